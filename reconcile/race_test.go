//go:build race

package reconcile

func init() { raceEnabled = true }
