package inputs

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
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

// fsClock returns the clock the kernel stamps files with (the coarse
// real-time clock; a fine-grained stamp is never behind it), so that a
// file whose ctime is before it when read is settled: every later change
// stamps a later ctime (see settleMeta).
func fsClock() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
