package inputs

import (
	"io"
	"os"

	"github.com/actctl/actctl/schema"
)

// openRegular opens p for reading only if it is a regular file
// (schema.OpenRegular: opened non-blocking and checked before a byte is
// read), so a named pipe (or a socket, a device) put where a record, a
// cache or an input is expected cannot hang actctl.
func openRegular(p string) (*os.File, error) { return schema.OpenRegular(p) }

// readRegular is os.ReadFile of the regular file p (see openRegular).
func readRegular(p string) ([]byte, error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
