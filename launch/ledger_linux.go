package launch

import "syscall"

// noFollow makes an open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// startTime is pid's start time since boot (/proc/PID/stat, field 22).
func startTime(pid int) (uint64, error) {
	st, err := procFS{}.stat(pid)
	if err != nil {
		return 0, err
	}
	return st.start, nil
}
