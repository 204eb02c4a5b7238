package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"
)

type file struct {
	rel  string
	data []byte
}

// writeFloor writes under dst the files apply wrote under ws (its state
// and ownership files included, the config and the lock file not) the way
// a minimal durable writer would: every directory first, then in parallel
// a temp file, fsync, rename. It returns the time of the writing alone.
func writeFloor(ws, dst string) (time.Duration, error) {
	return writeFloorDirs(ws, dst, false)
}

// writeDirFloor is writeFloor followed by one fsync of every directory it
// made (dst's parent included), in parallel: the renames and creations
// durable too, as apply makes them (each directory fsynced once after all
// its changes). It is the floor of a writer with apply's guarantees.
func writeDirFloor(ws, dst string) (time.Duration, error) {
	return writeFloorDirs(ws, dst, true)
}

// writeFloorDirs is writeFloor, with the directories fsynced after the
// files when syncDirs.
func writeFloorDirs(ws, dst string, syncDirs bool) (time.Duration, error) {
	dirs, files, err := collect(ws)
	if err != nil {
		return 0, err
	}
	t := time.Now()
	for _, d := range dirs {
		if err := os.Mkdir(filepath.Join(dst, d), 0o755); err != nil {
			return 0, err
		}
	}
	errs := make([]error, len(files))
	parallel(len(files), func(i int) { errs[i] = writeDurably(filepath.Join(dst, files[i].rel), files[i].data) })
	if syncDirs {
		// dst's parent holds dst, made above ("." is dst itself).
		all := []string{filepath.Dir(dst)}
		for _, d := range dirs {
			all = append(all, filepath.Join(dst, d))
		}
		derrs := make([]error, len(all))
		parallel(len(all), func(i int) { derrs[i] = fsyncDir(all[i]) })
		errs = append(errs, derrs...)
	}
	d := time.Since(t)
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return d, nil
}

// collect lists ws's directories (parents before children, "." first) and
// the files apply wrote there.
func collect(ws string) (dirs []string, files []file, err error) {
	err = filepath.WalkDir(ws, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ws, p)
		if e.IsDir() && rel == ".git" {
			return filepath.SkipDir // the workspace's repository: not apply's
		}
		if e.IsDir() {
			dirs = append(dirs, rel)
			return nil
		}
		if rel == "actant.cue" || rel == filepath.Join(".actant", "lock") {
			return nil
		}
		data, err := os.ReadFile(p)
		files = append(files, file{rel, data})
		return err
	})
	sort.Strings(dirs)
	return dirs, files, err
}

func writeDurably(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// fsyncDir fsyncs the directory dir.
func fsyncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// parallel calls f(0..n-1) on 4 workers per processor, as actctl's own
// writer does.
func parallel(n int, f func(i int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0)*4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
}
