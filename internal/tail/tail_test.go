package tail

import "testing"

// TestTail: the last bytes are kept, whatever the writes' sizes.
func TestTail(t *testing.T) {
	for _, tc := range []struct {
		max    int
		writes []string
		want   string
	}{
		{4, []string{"ab", "cd", "ef"}, "cdef"},
		{4, []string{"abcdefgh"}, "efgh"},
		{8, []string{"ab"}, "ab"},
		{0, []string{"ab"}, ""},
	} {
		tl := New(tc.max)
		for _, w := range tc.writes {
			_, _ = tl.Write([]byte(w))
		}
		if got := tl.Raw(); got != tc.want {
			t.Errorf("max %d, writes %q: %q, want %q", tc.max, tc.writes, got, tc.want)
		}
	}
}
