package schema

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestValidateLinearInReferences checks that validating references costs
// the same per reference however many components are declared: a template
// listing 4x the skills must not cost 16x the memory (it did when every
// reference sorted the declared names to look itself up). Memory, not
// time: allocated bytes are deterministic.
func TestValidateLinearInReferences(t *testing.T) {
	small, large := validateBytes(t, 100), validateBytes(t, 400)
	if ratio := float64(large) / float64(small); ratio > 8 {
		t.Errorf("Validate allocated %d bytes for 100 skills and %d for 400 (%.1fx): quadratic in the references", small, large, ratio)
	}
}

// validateBytes loads a config whose one template lists n skills and
// returns the bytes one Validate allocates.
func validateBytes(t *testing.T, n int) uint64 {
	var sb strings.Builder
	sb.WriteString("package actant\n")
	var refs []string
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "skills: \"s%d\": content: \"Do %d.\"\n", i, i)
		refs = append(refs, fmt.Sprintf("%q", fmt.Sprintf("s%d", i)))
	}
	fmt.Fprintf(&sb, "templates: t: {backend: \"claude-code\", skills: [%s]}\nagents: a: template: \"t\"\n", strings.Join(refs, ", "))
	cfg := mustLoad(t, map[string]string{"actant.cue": sb.String()})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ds := cfg.Validate()
	runtime.ReadMemStats(&after)
	if len(ds) != 0 {
		t.Fatalf("n=%d: %v", n, ds)
	}
	return after.TotalAlloc - before.TotalAlloc
}
