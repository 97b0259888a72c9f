package textgcn

import (
	"bytes"
	"fmt"
	"strings"
)

// Meta is one line of a TextGCN meta file (NAME.txt): the document's name,
// whether it is a training or a test document, and its label.
type Meta struct {
	Name  string
	Test  bool // split field contains "test"; otherwise it contains "train" (train, training)
	Label string
}

// ParseMeta parses a meta file's content: one document per line,
// "name<TAB>split<TAB>label", where split contains "test" (a test document)
// or "train" (a training document; Ohsumed writes "training"), as TextGCN's
// build_graph.py decides. file names the file in errors, which give its line.
func ParseMeta(data []byte, file string) ([]Meta, error) {
	lines := splitLines(data)
	out := make([]Meta, 0, len(lines))
	for i, raw := range lines {
		line := strings.TrimSpace(string(raw))
		if line == "" {
			return nil, fmt.Errorf("%s:%d: empty line, expected doc<TAB>train|test<TAB>label", file, i+1)
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: %d tab-separated fields, expected 3 (doc, train|test, label)", file, i+1, len(f))
		}
		var m Meta
		m.Name, m.Label = f[0], f[2] // never empty: the line is trimmed
		switch {
		case strings.Contains(f[1], "test"):
			m.Test = true
		case strings.Contains(f[1], "train"):
		default:
			return nil, fmt.Errorf("%s:%d: split field %q, expected train, training or test", file, i+1, truncate(f[1]))
		}
		out = append(out, m)
	}
	return out, nil
}

// splitLines splits data at '\n' as Python's readlines does on a file opened
// in binary mode: a final newline does not start another (empty) line.
func splitLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// truncate shortens s for an error message.
func truncate(s string) string {
	const max = 40
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
