//go:build !unix

package layout

// NoFollow: no such open flag here; NoLinks still checks the directories.
const NoFollow = 0
