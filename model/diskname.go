package model

import "strings"

// DiskName is the file-system name of a component: the part after '@' of
// a hub reference "source@name", else the name itself; the name an MCP
// server or skill goes by in the files and in ACP's session/new.
func DiskName(ref string) string {
	if i := strings.LastIndexByte(ref, '@'); i >= 0 {
		return ref[i+1:]
	}
	return ref
}
