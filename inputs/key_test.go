package inputs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/userkey"
)

// TestCacheKey: no cache key where it would lie inside the workspace
// (its agents' reads reach it), nor without a home; otherwise this user's
// key (package internal/userkey, whose test covers the rest).
func TestCacheKey(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	if k, why := cacheKey(filepath.Dir(home), home, true); k != nil || !strings.Contains(why, "inside the workspace") {
		t.Errorf("key inside the workspace: %x %q", k, why)
	}
	if k, why := cacheKey(t.TempDir(), "", true); k != nil || why != "no actctl home" {
		t.Errorf("no home: %x %q", k, why)
	}
	if k, why := cacheKey(t.TempDir(), home, false); k != nil || !strings.Contains(why, "no usable cache key") {
		t.Errorf("missing key read: %x %q", k, why)
	}
	if k, why := cacheKey(t.TempDir(), home, true); len(k) != userkey.Size {
		t.Errorf("key made: %x %q", k, why)
	}
}
