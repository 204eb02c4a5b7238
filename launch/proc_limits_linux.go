package launch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// What one supervised start needs: file descriptors (three pipes, of
// which three ends stay open, exec's own status pipe, two pidfds: the
// runtime's and awaitExit's, with a margin) and tasks (the child, and
// room for the runtime to add a thread so that it never aborts on
// pthread_create).
const (
	filesPerStart = 12
	tasksPerStart = 8
)

// checkLimits refuses a start that would cross RLIMIT_NOFILE or the
// pids.max of this process's cgroup, naming the limit (docs/runtime.md,
// "Limits").
func checkLimits() error {
	if err := checkFiles(); err != nil {
		return err
	}
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil // no cgroup to read: nothing to check
	}
	return checkTasks("/sys/fs/cgroup", cg)
}

// checkFiles compares the open descriptors with RLIMIT_NOFILE.
func checkFiles() error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY {
		return nil
	}
	used, err := openFiles()
	if lim := HitLimit(err); lim != nil {
		return lim // not even one more descriptor
	} else if err != nil {
		return nil
	}
	if used+filesPerStart > rl.Cur {
		return &LimitError{Limit: "the open files limit (RLIMIT_NOFILE)", Used: used, Max: rl.Cur, Need: filesPerStart,
			Raise: "ulimit -n, LimitNOFILE= in a systemd unit"}
	}
	return nil
}

// direntBuf is the buffer openFiles reads /proc/self/fd's entries into.
var direntBuf = sync.Pool{New: func() any { return new([8 << 10]byte) }}

// openFiles counts this process's open descriptors, the entries of
// /proc/self/fd (its own included), without a string per entry: every
// start counts them, and at a thousand agents names would be thousands
// of allocations per start, a garbage quadratic in the agents.
func openFiles() (uint64, error) {
	fd, err := syscall.Open("/proc/self/fd", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	buf := direntBuf.Get().(*[8 << 10]byte)
	defer direntBuf.Put(buf)
	var n uint64
	for {
		m, err := syscall.ReadDirent(fd, buf[:])
		if err != nil {
			return 0, err
		}
		if m <= 0 {
			return n, nil
		}
		n += countDirents(buf[:m])
	}
}

// countDirents counts the entries in b, records of getdents64 (struct
// linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name), but "." and
// "..".
func countDirents(b []byte) uint64 {
	var n uint64
	for len(b) >= 20 {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < 20 || reclen > len(b) {
			break
		}
		name := b[19:reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if string(name) != "." && string(name) != ".." {
			n++
		}
		b = b[reclen:]
	}
	return n
}

// checkTasks compares pids.current with pids.max of the cgroup that
// cgroupFile (/proc/self/cgroup) names, under root (/sys/fs/cgroup):
// the pids controller's hierarchy on cgroup v1, the unified one on v2.
func checkTasks(root string, cgroupFile []byte) error {
	dir := pidsCgroup(root, cgroupFile)
	if dir == "" {
		return nil
	}
	max, err1 := readCount(filepath.Join(dir, "pids.max"))
	cur, err2 := readCount(filepath.Join(dir, "pids.current"))
	if err1 != nil || err2 != nil {
		return nil // "max", or no pids controller here
	}
	if cur+tasksPerStart > max {
		rel, _ := filepath.Rel(root, dir)
		return &LimitError{Limit: "the task limit (pids.max of cgroup " + rel + ")", Used: cur, Max: max, Need: tasksPerStart,
			Raise: "TasksMax= in a systemd unit, the pod's pids limit"}
	}
	return nil
}

// pidsCgroup is the directory of the pids controller's cgroup that
// cgroupFile names, or "".
func pidsCgroup(root string, cgroupFile []byte) string {
	v2 := ""
	for _, line := range bytes.Split(cgroupFile, []byte("\n")) {
		f := strings.SplitN(string(line), ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			v2 = filepath.Join(root, f[2])
		}
		for _, c := range strings.Split(f[1], ",") {
			if c == "pids" {
				return filepath.Join(root, "pids", f[2])
			}
		}
	}
	return v2
}

// readCount reads a cgroup file holding one number.
func readCount(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
}

// HitLimit is the limit err (of a start, or of opening a file) says was
// hit, or nil: fork's EAGAIN is RLIMIT_NPROC or the cgroup's pids.max
// (not checked before a start: counting a user's processes costs a scan
// of /proc), EMFILE and ENFILE the open files limits.
func HitLimit(err error) *LimitError {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, syscall.EAGAIN):
		return &LimitError{Limit: "the process limit (RLIMIT_NPROC or the cgroup's pids.max)", Need: 1, Raise: "ulimit -u, TasksMax= in a systemd unit"}
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return &LimitError{Limit: "the open files limit (RLIMIT_NOFILE, or the system's fs.file-max)", Need: filesPerStart, Raise: "ulimit -n, LimitNOFILE= in a systemd unit"}
	}
	return nil
}
