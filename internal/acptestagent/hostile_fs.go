package acptestagent

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// The file-system ops of a hostile (or merely careless) agent, for the
// tests of the client's fs/read_text_file and fs/write_text_file
// (docs/run.md, "What the client does for the agent").
func init() {
	// read-lines PATH LINE LIMIT   fs/read_text_file with line and limit
	//                              ("-" leaves one out); "read: <content>"
	//                              or "read error: <message>"
	register("read-lines", readLines)
	// read-size PATH               fs/read_text_file of the whole file;
	//                              "read <n> bytes" or "read error: <message>"
	//                              (the content is not echoed: it may be big)
	register("read-size", readSize)
	// swap-race DIR OUTSIDE N      while a goroutine keeps swapping the
	//                              directory DIR for a symlink to OUTSIDE
	//                              and back, N reads of DIR/secret.txt and
	//                              N writes of DIR/planted.txt; then
	//                              "race: reads <n> leaked <n> writes <n>"
	//                              (leaked: reads that returned the content
	//                              of OUTSIDE/secret.txt) and one line
	//                              "race message: <message>" per distinct
	//                              error message the client answered
	register("swap-race", swapRace)
	// write-all TEXT PATH...       fs/write_text_file of TEXT to each PATH;
	//                              one line each: "write PATH: ok" or
	//                              "write PATH: error: <message>"
	register("write-all", writeAll)
}

func writeAll(t *Turn) (acp.StopReason, error) {
	if len(t.Words) < 3 {
		t.Say("write error: want TEXT PATH...\n")
		return acp.StopReasonEndTurn, nil
	}
	var b strings.Builder
	for _, p := range t.Words[2:] {
		_, err := t.Conn().WriteTextFile(t.Ctx, acp.WriteTextFileRequest{SessionId: t.SID, Path: p, Content: t.Words[1]})
		if err != nil {
			fmt.Fprintf(&b, "write %s: error: %s\n", p, errText(err))
		} else {
			fmt.Fprintf(&b, "write %s: ok\n", p)
		}
	}
	t.Say(b.String())
	return acp.StopReasonEndTurn, nil
}

// errText is what the agent saw of an error: a JSON-RPC error's message
// (which agents show), else the error itself.
func errText(err error) string {
	var re *acp.RequestError
	if errors.As(err, &re) {
		return re.Message
	}
	return err.Error()
}

// optInt parses a LINE or LIMIT word ("-": none).
func optInt(w string) (*int, error) {
	if w == "-" {
		return nil, nil
	}
	n, err := strconv.Atoi(w)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

func readLines(t *Turn) (acp.StopReason, error) {
	if len(t.Words) != 4 {
		t.Say("read error: want PATH LINE LIMIT\n")
		return acp.StopReasonEndTurn, nil
	}
	line, err1 := optInt(t.Words[2])
	limit, err2 := optInt(t.Words[3])
	if err := errors.Join(err1, err2); err != nil {
		t.Say("read error: " + err.Error() + "\n")
		return acp.StopReasonEndTurn, nil
	}
	r, err := t.Conn().ReadTextFile(t.Ctx, acp.ReadTextFileRequest{SessionId: t.SID, Path: t.Words[1], Line: line, Limit: limit})
	if err != nil {
		t.Say("read error: " + errText(err) + "\n")
		return acp.StopReasonEndTurn, nil
	}
	t.Say("read: " + r.Content + "\n")
	return acp.StopReasonEndTurn, nil
}

func readSize(t *Turn) (acp.StopReason, error) {
	if len(t.Words) != 2 {
		t.Say("read error: want PATH\n")
		return acp.StopReasonEndTurn, nil
	}
	r, err := t.Conn().ReadTextFile(t.Ctx, acp.ReadTextFileRequest{SessionId: t.SID, Path: t.Words[1]})
	if err != nil {
		t.Say("read error: " + errText(err) + "\n")
		return acp.StopReasonEndTurn, nil
	}
	t.Say(fmt.Sprintf("read %d bytes\n", len(r.Content)))
	return acp.StopReasonEndTurn, nil
}

func swapRace(t *Turn) (acp.StopReason, error) {
	if len(t.Words) != 4 {
		t.Say("race error: want DIR OUTSIDE N\n")
		return acp.StopReasonEndTurn, nil
	}
	dir, outside := t.Words[1], t.Words[2]
	n, err := strconv.Atoi(t.Words[3])
	if err != nil {
		t.Say("race error: " + err.Error() + "\n")
		return acp.StopReasonEndTurn, nil
	}
	secret, err := os.ReadFile(outside + "/secret.txt")
	if err != nil {
		t.Say("race error: " + err.Error() + "\n")
		return acp.StopReasonEndTurn, nil
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); swapLoop(dir, outside, stop) }()
	reads, leaked, writes := 0, 0, 0
	msgs := map[string]bool{}
	for i := 0; i < n; i++ {
		r, err := t.Conn().ReadTextFile(t.Ctx, acp.ReadTextFileRequest{SessionId: t.SID, Path: dir + "/secret.txt"})
		switch {
		case err != nil:
			msgs[errText(err)] = true
		case r.Content == string(secret):
			leaked++
		default:
			reads++
		}
		_, err = t.Conn().WriteTextFile(t.Ctx, acp.WriteTextFileRequest{SessionId: t.SID, Path: dir + "/planted.txt", Content: "planted"})
		if err != nil {
			msgs[errText(err)] = true
		} else {
			writes++
		}
	}
	close(stop)
	wg.Wait()
	var b strings.Builder
	fmt.Fprintf(&b, "race: reads %d leaked %d writes %d\n", reads, leaked, writes)
	keys := make([]string, 0, len(msgs))
	for m := range msgs {
		keys = append(keys, m)
	}
	sort.Strings(keys)
	for _, m := range keys {
		fmt.Fprintf(&b, "race message: %s\n", m)
	}
	t.Say(b.String())
	return acp.StopReasonEndTurn, nil
}

// swapLoop swaps the directory dir for a symlink to outside and back
// until stop is closed (exchange: at once where the system can, else by
// moving dir aside), leaving the directory at dir when it returns.
func swapLoop(dir, outside string, stop chan struct{}) {
	link := dir + ".link"
	if err := os.Symlink(outside, link); err != nil {
		fmt.Fprintln(os.Stderr, "test agent: swap-race:", err)
		return
	}
	defer os.Remove(link)
	for swapped := false; ; swapped = !swapped {
		select {
		case <-stop:
			if swapped {
				exchange(dir, link)
			}
			return
		default:
		}
		if err := exchange(dir, link); err != nil {
			fmt.Fprintln(os.Stderr, "test agent: swap-race:", err)
			return
		}
	}
}
