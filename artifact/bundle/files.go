package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/hylaflow/hylaflow/artifact"
)

// WriteFiles writes a's members as files a user opens directly into dir
// (created, 0755): each file member (PNG, SVG, CSV, Markdown …) under its
// own name, each JSON member as NAME.json, indented, and, with
// opts.Arrays, the bundle as ARRAYS.npz when it holds arrays. Files are
// written whole (artifact.WriteFile: a temporary file renamed into place),
// mode 0644. A member name that is not a plain file name is an error:
// nothing is ever written outside dir. It returns the written paths in
// member order.
func (a *Bundle) WriteFiles(dir string, opts artifact.FilesOptions) ([]string, error) {
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
			var err error
			if data, err = indentJSON(v); err != nil {
				return files, fmt.Errorf("member %q: %w", name, err)
			}
			file = name + ".json"
		default:
			arrays = true
			continue
		}
		if !artifact.PlainFileName(file) {
			return files, fmt.Errorf("member %q is not a plain file name", name)
		}
		p, err := artifact.WriteFile(dir, file, data)
		if err != nil {
			return files, err
		}
		files = append(files, p)
	}
	if arrays && opts.Arrays != "" {
		file := opts.Arrays + ".npz"
		if !artifact.PlainFileName(file) {
			return files, fmt.Errorf("arrays file %q is not a plain file name", file)
		}
		var b bytes.Buffer
		if err := a.Encode(&b); err != nil {
			return files, err
		}
		p, err := artifact.WriteFile(dir, file, b.Bytes())
		if err != nil {
			return files, err
		}
		files = append(files, p)
	}
	return files, nil
}

// MemberFile returns the bytes of a file member, or of a JSON member
// indented with a final newline (as WriteFiles writes them); array members
// and missing ones are errors.
func (a *Bundle) MemberFile(name string) ([]byte, error) {
	if v, ok := a.members[name].(json.RawMessage); ok {
		b, err := indentJSON(v)
		if err != nil {
			return nil, fmt.Errorf("artifact (%s): member %q: %w", a.kind, name, err)
		}
		return b, nil
	}
	return a.File(name)
}

// indentJSON indents a JSON document and ends it with a newline.
func indentJSON(v json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, v, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
