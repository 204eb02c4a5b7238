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
		return errors.New("dashboard: the running actctl up serves no dashboard (it was started with --ui off): stop it and start `actctl up` without --ui off")
	}
	if err != nil {
		return err
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
