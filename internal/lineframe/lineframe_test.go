package lineframe

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

// TestReader: lines within the limit pass whole and in order; a longer one
// is dropped and answered with a JSON-RPC error for its id (found in its
// first 64 KiB, else null), its size reported; the stream goes on after it.
func TestReader(t *testing.T) {
	const limit = 100
	long := strings.Repeat("x", 300)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"a"}`,
		`{"jsonrpc":"2.0","id":2,"method":"big","params":{"p":"` + long + `"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"b"}`,
		`{"jsonrpc":"2.0","method":"big","params":{"p":"` + long + `"},"id":"late"}`,
		`{"jsonrpc":"2.0","method":"big","params":{"p":"` + strings.Repeat("z", headLen) + `"},"id":"too late"}`,
		`{"jsonrpc":"2.0","id":"s-4","method":"big","params":"` + long + `"}`,
		`{"jsonrpc":"2.0","id":5,"method":"last"}`,
	}, "\n")
	var answers bytes.Buffer
	var sizes []int64
	r := NewReader(strings.NewReader(in), &answers, limit, func(n int64) { sizes = append(sizes, n) })
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"b"}` + "\n" + `{"jsonrpc":"2.0","id":5,"method":"last"}`
	if string(got) != want {
		t.Errorf("passed on:\n%s\nwant:\n%s", got, want)
	}
	var wantAnswers strings.Builder
	for i, id := range []string{"2", `"late"`, "null", `"s-4"`} {
		fmt.Fprintf(&wantAnswers, `{"error":{"code":-32600,"message":"message of %d bytes refused: the limit is 100 bytes"},"id":%s,"jsonrpc":"2.0"}`+"\n", sizes[i], id)
	}
	if len(sizes) != 4 || answers.String() != wantAnswers.String() {
		t.Errorf("answers (sizes %v):\n%s\nwant:\n%s", sizes, answers.String(), wantAnswers.String())
	}
}

// TestReaderLongLastLine: a long last line without a newline is refused
// too, then the stream ends.
func TestReaderLongLastLine(t *testing.T) {
	var answers bytes.Buffer
	r := NewReader(strings.NewReader(`{"id":7,"p":"`+strings.Repeat("y", 5000)+`"}`), &answers, 10, nil)
	got, err := io.ReadAll(r)
	if err != nil || len(got) != 0 || !strings.Contains(answers.String(), `"id":7`) {
		t.Errorf("got %q, %v; answers %s", got, err, answers.String())
	}
}

// TestWriterKeepsWritesWhole: writes from many goroutines (the SDK's
// answers and the Reader's refusals) each stay one whole line.
func TestWriterKeepsWritesWhole(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				fmt.Fprintf(w, "%d-%d-%s\n", i, j, strings.Repeat("z", 100))
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for _, l := range lines {
		if !strings.HasSuffix(l, strings.Repeat("z", 100)) || strings.Count(l, "-") != 2 {
			t.Fatalf("a torn line: %q", l)
		}
	}
	if len(lines) != 800 {
		t.Errorf("%d lines, want 800", len(lines))
	}
}
