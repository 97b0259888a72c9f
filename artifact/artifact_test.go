package artifact_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
)

// note is a minimal artifact format for the tests: "NOTE" + kind length
// (one byte) + kind + text.
type note struct {
	kind artifact.Kind
	text string
}

const noteMagic = "NOTE"

func (n *note) Kind() artifact.Kind { return n.kind }

func (n *note) Encode(w io.Writer) error {
	if len(n.kind) > 255 {
		return errors.New("kind too long")
	}
	_, err := fmt.Fprintf(w, "%s%c%s%s", noteMagic, byte(len(n.kind)), n.kind, n.text)
	return err
}

func (n *note) Metrics() map[string]float64 {
	if n.kind != "metrics" {
		return nil
	}
	return map[string]float64{"length": float64(len(n.text))}
}

func (n *note) WriteFiles(dir string, _ artifact.FilesOptions) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p, err := artifact.WriteFile(dir, "note.txt", []byte(n.text))
	if err != nil {
		return nil, err
	}
	return []string{p}, nil
}

func (n *note) MemberFile(name string) ([]byte, error) {
	if name != "note.txt" {
		return nil, fmt.Errorf("no member %q", name)
	}
	return []byte(n.text), nil
}

func decodeNote(r io.ReaderAt, size int64, name string) (artifact.Artifact, error) {
	b := make([]byte, size)
	if _, err := r.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("note %s: %w", name, err)
	}
	if len(b) < 5 || int(b[4]) > len(b)-5 {
		return nil, fmt.Errorf("note %s: %d bytes, too short for the kind", name, len(b))
	}
	k := int(b[4])
	return &note{kind: artifact.Kind(b[5 : 5+k]), text: string(b[5+k:])}, nil
}

func init() {
	artifact.RegisterCodec(artifact.Codec{Name: "note", Magic: noteMagic, Decode: decodeNote})
}

var _ artifact.Artifact = (*note)(nil)

func TestEncodeDecodeThroughRegistry(t *testing.T) {
	for _, n := range []*note{{"value", "hello"}, {"metrics", ""}, {"", "x"}} {
		var b bytes.Buffer
		if err := artifact.Encode(&b, n); err != nil {
			t.Fatal(err)
		}
		got, err := artifact.Decode(bytes.NewReader(b.Bytes()), int64(b.Len()), "mem")
		if err != nil {
			t.Fatalf("%+v: %v", n, err)
		}
		if g, ok := got.(*note); !ok || *g != *n {
			t.Errorf("decoded %#v, want %#v", got, n)
		}
	}
	if err := artifact.Encode(io.Discard, nil); err == nil {
		t.Error("Encode of a nil artifact succeeded")
	}
}

func TestDecodeUnknownFormat(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"other magic", "GIF89a....", `artifact f.bin: unknown artifact format: 10 bytes starting "GIF8", which no registered codec (`},
		{"shorter than a magic", "NO", `artifact f.bin: unknown artifact format: 2 bytes starting "NO", which no registered codec (`},
		{"empty", "", `artifact f.bin: unknown artifact format: 0 bytes starting ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := artifact.Decode(strings.NewReader(tt.data), int64(len(tt.data)), "f.bin")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want prefix %q", err, tt.want)
			}
			if !errors.Is(err, artifact.ErrUnknownFormat) {
				t.Errorf("error %v does not wrap ErrUnknownFormat", err)
			}
		})
	}
	// A reader that returns less than the size says is an error, not a panic.
	if _, err := artifact.Decode(strings.NewReader("NO"), 100, "short"); err == nil ||
		err.Error() != "artifact short: reading the first 4 bytes: unexpected EOF" {
		t.Errorf("short reader: %v", err)
	}
}

func TestRegisterCodecRefusals(t *testing.T) {
	dec := func(io.ReaderAt, int64, string) (artifact.Artifact, error) { return nil, nil }
	tests := []struct {
		name  string
		codec artifact.Codec
		want  string
	}{
		{"no name", artifact.Codec{Magic: "ZZZZ", Decode: dec}, "name, magic and Decode are required"},
		{"no magic", artifact.Codec{Name: "z", Decode: dec}, "name, magic and Decode are required"},
		{"no decode", artifact.Codec{Name: "z", Magic: "ZZZZ"}, "name, magic and Decode are required"},
		{"same name", artifact.Codec{Name: "note", Magic: "ZZZZ", Decode: dec}, `codec "note" registered twice`},
		{"magic prefix of another", artifact.Codec{Name: "n2", Magic: "NO", Decode: dec}, `overlapping magic`},
		{"another's magic a prefix", artifact.Codec{Name: "n3", Magic: "NOTEBOOK", Decode: dec}, `overlapping magic`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tt.want) {
					t.Errorf("panic %v, want %q", r, tt.want)
				}
			}()
			artifact.RegisterCodec(tt.codec)
		})
	}
	if got := strings.Join(artifact.Codecs(), ","); got != "note" {
		t.Errorf("Codecs() = %s after refused registrations, want note", got)
	}
}

func TestKindAccepts(t *testing.T) {
	tests := []struct {
		slot, got artifact.Kind
		want      bool
	}{
		{artifact.KindAny, "graph", true},
		{artifact.KindAny, artifact.KindAny, true},
		{"graph", "graph", true},
		{"graph", "features", false},
		{"graph", artifact.KindAny, false},
	}
	for _, tt := range tests {
		if got := tt.slot.Accepts(tt.got); got != tt.want {
			t.Errorf("Kind(%q).Accepts(%q) = %v, want %v", tt.slot, tt.got, got, tt.want)
		}
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	old := umask(0o077) // a restrictive umask must not make published files private
	defer umask(old)
	p, err := artifact.WriteFile(dir, "a.txt", []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(dir, "a.txt") {
		t.Errorf("path %s", p)
	}
	if _, err := artifact.WriteFile(dir, "a.txt", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("a.txt = %q after the rewrite, want two", b)
	}
	if st, err := os.Stat(p); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o644) {
		t.Errorf("a.txt: %v, mode %v, want 0644", err, st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("dir holds %d entries (temporary files left?), want 1", len(entries))
	}
	for _, name := range []string{"", ".", "..", "../escape", "a/b", `a\b`, "nul\x00"} {
		if _, err := artifact.WriteFile(dir, name, []byte("x")); err == nil || !strings.Contains(err.Error(), "not a plain file name") {
			t.Errorf("WriteFile(%q): %v", name, err)
		}
	}
	if _, err := artifact.WriteFile(filepath.Join(dir, "missing"), "b.txt", nil); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}
}

// The engine's view: an artifact of the test format is published and its
// metrics read only through the interface.
func TestInterfaceUse(t *testing.T) {
	var a artifact.Artifact = &note{"metrics", "abc"}
	if m := a.Metrics(); m["length"] != 3 {
		t.Errorf("Metrics() = %v", m)
	}
	files, err := a.WriteFiles(filepath.Join(t.TempDir(), "out"), artifact.FilesOptions{})
	if err != nil || len(files) != 1 {
		t.Fatalf("WriteFiles: %v, %v", files, err)
	}
	if b, _ := os.ReadFile(files[0]); string(b) != "abc" {
		t.Errorf("%s = %q", files[0], b)
	}
	if _, err := a.MemberFile("other"); err == nil {
		t.Error("MemberFile of a missing member succeeded")
	}
}
