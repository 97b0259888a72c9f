package artifact

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FilesOptions configure Artifact.WriteFiles.
type FilesOptions struct {
	// Arrays, when not "", is the base name of a file that receives the
	// artifact's numerical members in the format's array file (NAME.npz
	// for package bundle, which numpy.load opens) if it holds any; ""
	// skips them.
	Arrays string
}

// WriteFile writes data to dir/name as a whole (through a temporary file in
// dir renamed into place, so a reader never sees half a file), mode 0644
// whatever the umask, and returns the path. dir must exist. A name that is
// not a plain file name (empty, ".", "..", or holding a separator or NUL)
// is an error: nothing is ever written outside dir. Formats use it in
// WriteFiles.
func WriteFile(dir, name string, data []byte) (string, error) {
	if !PlainFileName(name) {
		return "", fmt.Errorf("%q is not a plain file name", name)
	}
	path := filepath.Join(dir, name)
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// PlainFileName reports whether name names a file directly inside a
// directory: not empty, not "." or "..", no separator or NUL.
func PlainFileName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`) &&
		name == filepath.Base(name) && !strings.ContainsRune(name, 0)
}
