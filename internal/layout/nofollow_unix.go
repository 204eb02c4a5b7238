//go:build unix

package layout

import "syscall"

// NoFollow is the open flag that refuses a symbolic link as the last
// component of a record's or log's path (see NoLinks for the others).
const NoFollow = syscall.O_NOFOLLOW
