package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/launch"
)

func init() {
	register(&cli.Command{
		Name:  "dashboard",
		Usage: "open the dashboard of the workspace's running actctl up in a browser (prints its URL when there is no browser)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "print", Usage: "print the URL, do not open a browser"},
		},
		OnUsageError: usageErrors,
		Action:       dashboardCmd,
	})
}

// dashboardJSON is `actctl dashboard -o json` (docs/json.md).
type dashboardJSON struct {
	URL    string `json:"url"`
	Pid    int    `json:"pid"`
	Opened bool   `json:"opened"`
}

func dashboardCmd(c *cli.Context) error {
	g := globalsOf(c)
	if c.NArg() != 0 {
		return usageError("dashboard: takes no argument")
	}
	root, err := upRoot(g)
	if err != nil {
		return err
	}
	// The socket says whether an up runs (a killed one leaves ui.json).
	cl, err := control.Dial(root)
	if err != nil {
		return err
	}
	cl.Close()
	ui, err := control.ReadUI(root)
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New(noDashboard)
	}
	if err != nil {
		return err
	}
	if !writtenByUp(root, ui) {
		return fmt.Errorf("%s (%s was not written by it, pid %d)", noDashboard, layout.Path(root, layout.Run, control.UIFile), control.HolderPid(root))
	}
	out := dashboardJSON{URL: ui.URL, Pid: ui.Pid}
	if !c.Bool("print") && !g.JSON() {
		out.Opened = openBrowser(ui.URL) == nil
	}
	if g.JSON() {
		return g.PrintJSON(out)
	}
	if out.Opened {
		fmt.Fprintf(g.Stderr, "opened %s\n", ui.URL)
		return nil
	}
	fmt.Fprintln(g.Stdout, ui.URL)
	return nil
}

// noDashboard is what `actctl dashboard` says of an up without one.
const noDashboard = "dashboard: the running actctl up serves no dashboard (it was started with --ui off): stop it and start `actctl up` without --ui off"

// writtenByUp says whether ui was written by the up that holds up.lock:
// its pid is the one up.lock names and, where the system says when a
// process started, its start time that process's. A record another
// process wrote (a committed one, one a killed up left) is not a URL to
// open.
func writtenByUp(root string, ui control.UI) bool {
	if ui.Pid <= 0 || ui.Pid != control.HolderPid(root) {
		return false
	}
	start, err := launch.StartTime(ui.Pid)
	if errors.Is(err, errors.ErrUnsupported) {
		return true // the pid is all there is to compare
	}
	return err == nil && start == ui.Start
}

// openBrowser opens url in the desktop's browser, detached. An error
// when there is none (no display on Linux, no opener command).
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return errors.New("no display")
		}
		cmd = exec.Command("xdg-open", url)
	}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
