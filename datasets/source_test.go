package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stubSource is a source with a fixed file list.
type stubSource struct {
	name   string
	files  []File
	params []ParamSpec
}

func (s stubSource) Name() string                      { return s.name }
func (s stubSource) Files(string) ([]File, error)      { return s.files, nil }
func (s stubSource) Generator(string) (string, string) { return "", "" }
func (s stubSource) Load(context.Context, Request) (*Graph, error) {
	return nil, errors.New("stub")
}
func (s stubSource) OfficialSplit(string) SplitRule { return SplitRule{Rule: SplitGiven} }
func (s stubSource) Params() []ParamSpec            { return s.params }

func mustPanic(t *testing.T, what, want string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), want) {
			t.Errorf("%s: panic %v, want one naming %q", what, r, want)
		}
	}()
	f()
}

func TestRegister(t *testing.T) {
	unregister := RegisterForTest(stubSource{name: "stub"}, Entry{Name: "stub_a", Source: "stub", Aliases: []string{"a"}})
	if s, ok := SourceOf("stub"); !ok || s.Name() != "stub" {
		t.Fatalf("SourceOf(stub) = %v, %v", s, ok)
	}
	if e, ok := Lookup("STUB_A"); !ok || e.Source != "stub" {
		t.Errorf("Lookup of a registered entry: %+v, %v", e, ok)
	}
	if _, ok := Lookup("a"); ok {
		t.Error("Lookup matched an alias")
	}
	if e, ok := LookupIn("stub", "A"); !ok || e.Name != "stub_a" {
		t.Errorf("LookupIn(stub, A) = %+v, %v", e, ok)
	}
	if _, ok := LookupIn("planetoid", "a"); ok {
		t.Error("LookupIn matched another source's alias")
	}
	mustPanic(t, "duplicate", "twice for source stub", func() { Register(stubSource{name: "stub"}) })
	mustPanic(t, "nil", "nil source", func() { Register(nil) })
	mustPanic(t, "no name", "without a name", func() { Register(stubSource{}) })
	unregister()
	if _, ok := SourceOf("stub"); ok {
		t.Error("still registered after unregister")
	}
	if _, ok := Lookup("stub_a"); ok {
		t.Error("catalogue entry left after unregister")
	}
	if _, err := SourceFor(Entry{Name: "x", Source: "stub"}); !errors.Is(err, ErrUnknownSource) {
		t.Errorf("SourceFor an unregistered source: %v", err)
	}
}

func TestCheckEntryFiles(t *testing.T) {
	src := stubSource{name: "stubfiles", files: []File{{Path: "s/need"}, {Path: "s/maybe", Optional: true}}}
	defer RegisterForTest(src)()
	for _, tc := range []struct {
		name  string
		files []File
		want  string // "" = no error
	}{
		{"exact", []File{{Path: "s/need"}, {Path: "s/maybe", Optional: true}}, ""},
		{"optional left out", []File{{Path: "s/need"}}, ""},
		{"optional listed as required", []File{{Path: "s/need"}, {Path: "s/maybe"}}, ""},
		{"required missing", []File{{Path: "s/maybe"}}, "source stubfiles requires s/need, which the catalogue does not list"},
		{"extra file", []File{{Path: "s/need"}, {Path: "s/other"}}, "catalogue lists s/other, which source stubfiles does not read"},
		{"required marked optional", []File{{Path: "s/need", Optional: true}}, "catalogue marks s/need optional, source stubfiles requires it"},
	} {
		err := CheckEntryFiles(Entry{Name: "e", Source: "stubfiles", Files: tc.files})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := CheckEntryFiles(Entry{Name: "e", Source: "nosuch"}); !errors.Is(err, ErrUnknownSource) {
		t.Errorf("unknown source: %v", err)
	}
}

// TestFingerprint: paths within the root and contents, a missing file as
// missing, the generator first; independent of where the root lies.
func TestFingerprint(t *testing.T) {
	src := stubSource{name: "fp", files: []File{{Path: "d/a"}, {Path: "d/b", Optional: true}}}
	fp := func(root string) string {
		t.Helper()
		s, err := Fingerprint(src, root, "x")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	r1, r2 := t.TempDir(), t.TempDir()
	for _, r := range []string{r1, r2} {
		os.MkdirAll(filepath.Join(r, "d"), 0o755)
		os.WriteFile(filepath.Join(r, "d", "a"), []byte("hello"), 0o644)
	}
	// sha256("d/a\x00" + sha256("hello") + "\nd/b\x00missing\n")
	const want = "6bfb0d019c39de0b9188757b9f9ee9d04f3d5700851b7893b09391e5dd38ae3d"
	if a, b := fp(r1), fp(r2); a != b {
		t.Errorf("fingerprint depends on the root: %s, %s", a, b)
	}
	got := fp(r1)
	if got != want {
		t.Errorf("fingerprint %s, want %s", got, want)
	}
	os.WriteFile(filepath.Join(r2, "d", "b"), []byte(""), 0o644)
	if fp(r2) == got {
		t.Error("an optional file appearing left the fingerprint unchanged")
	}
	if _, err := Fingerprint(src, filepath.Join(r1, "d", "a"), "x"); err == nil {
		t.Error("a root that is a file: no error") // stat of a/d/a fails with ENOTDIR, not ErrNotExist
	}
}

func TestOptions(t *testing.T) {
	o := Options{"s": "v", "i": 3, "f": 0.5, "b": true, "wrong": 1}
	if o.String("s") != "v" || o.Int("i") != 3 || o.Float("f") != 0.5 || !o.Bool("b") {
		t.Errorf("set options read %q %d %v %v", o.String("s"), o.Int("i"), o.Float("f"), o.Bool("b"))
	}
	if o.String("none") != "" || o.Int("none") != 0 || o.Float("wrong") != 0 || o.Bool("wrong") {
		t.Error("unset or mistyped options are not zero")
	}
	if r := (SplitRule{Rule: SplitGiven}); func() bool { _, _, ok := r.Proportions(); return ok }() {
		t.Error("a given split has proportions")
	}
}
