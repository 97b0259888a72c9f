package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FilesOptions configure WriteFiles.
type FilesOptions struct {
	// Arrays, when not "", is the base name of a NAME.npz file that
	// receives the whole artifact (numpy.load opens it) if it holds dense,
	// vector or sparse members; "" skips them.
	Arrays string
}

// WriteFiles writes a's members as files a user opens directly into dir
// (created, 0755): each file member (PNG, SVG, CSV, Markdown …) under its
// own name, each JSON member as NAME.json, indented, and, with
// opts.Arrays, the artifact as ARRAYS.npz when it holds arrays. Files are
// written whole (a temporary file renamed into place), mode 0644. A member
// name that is not a plain file name is an error: nothing is ever written
// outside dir. It returns the written paths in member order.
func WriteFiles(dir string, a *Artifact, opts FilesOptions) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	arrays := false
	for _, name := range a.Names() {
		var file string
		var data []byte
		switch v := a.members[name].(type) {
		case []byte:
			file, data = name, v
		case json.RawMessage:
			var b bytes.Buffer
			if err := json.Indent(&b, v, "", "  "); err != nil {
				return files, fmt.Errorf("member %q: %w", name, err)
			}
			b.WriteByte('\n')
			file, data = name+".json", b.Bytes()
		default:
			arrays = true
			continue
		}
		if !plainFileName(file) {
			return files, fmt.Errorf("member %q is not a plain file name", name)
		}
		p := filepath.Join(dir, file)
		if err := writeFileAtomic(p, data); err != nil {
			return files, err
		}
		files = append(files, p)
	}
	if arrays && opts.Arrays != "" {
		file := opts.Arrays + ".npz"
		if !plainFileName(file) {
			return files, fmt.Errorf("arrays file %q is not a plain file name", file)
		}
		var b bytes.Buffer
		if err := Encode(&b, a); err != nil {
			return files, err
		}
		p := filepath.Join(dir, file)
		if err := writeFileAtomic(p, b.Bytes()); err != nil {
			return files, err
		}
		files = append(files, p)
	}
	return files, nil
}

// plainFileName reports whether name names a file directly inside a
// directory: no separators, not "." or "..", not empty.
func plainFileName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`) &&
		name == filepath.Base(name) && !strings.ContainsRune(name, 0)
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so a reader never sees half a file, with mode 0644.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
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
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
