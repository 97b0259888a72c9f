package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// FormatFile brings pipeline file into the canonical HCL layout
// (hclwrite.Format). A file that does not parse (or nests too deeply) is
// diagnostics, and untouched. changed reports whether the layout differed;
// with write, a changed file is replaced atomically (temporary file, fsync,
// rename), keeping its mode. err is a file that cannot be read or written.
func FormatFile(file string, write bool) (changed bool, diags hcl.Diagnostics, err error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return false, nil, err
	}
	if diags := CheckNesting(src, file); diags.HasErrors() {
		return false, diags, nil
	}
	if _, diags := hclsyntax.ParseConfig(src, file, hcl.InitialPos); diags.HasErrors() {
		return false, diags, nil
	}
	out := hclwrite.Format(src)
	if bytes.Equal(out, src) {
		return false, nil, nil
	}
	if write {
		err = replaceFile(file, out)
	}
	return true, nil, err
}

// replaceFile replaces file atomically (temp file, fsync, rename), keeping its mode.
func replaceFile(file string, b []byte) error {
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".fmt-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", file, err)
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
