package inputs

import (
	"io/fs"
	"syscall"
)

// sysStat adds ctime, inode and device to s.
func sysStat(s *Stat, fi fs.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.Ino, s.Dev = uint64(st.Ino), uint64(st.Dev)
		s.Ctime = st.Ctim.Nano()
	}
}

// statComplete: ctime and inode are read (see Stat).
const statComplete = true
