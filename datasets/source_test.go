package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
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
func (s stubSource) Files(Request) ([]File, error)     { return s.files, nil }
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

// TestFingerprint: paths within the root and contents, a missing optional
// file as missing, the generator first; independent of where the root
// lies. A missing required file, a file of the wrong size and an AnyOf
// group with no file are errors, never a constant hash.
func TestFingerprint(t *testing.T) {
	src := stubSource{name: "fp", files: []File{{Path: "d/a"}, {Path: "d/b", Optional: true}}}
	fp := func(root string) string {
		t.Helper()
		s, err := Fingerprint(src, Request{Root: root, Name: "x"})
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
	if _, err := Fingerprint(src, Request{Root: filepath.Join(r1, "d", "a"), Name: "x"}); err == nil {
		t.Error("a root that is a file: no error") // stat of a/d/a fails with ENOTDIR, not ErrNotExist
	}
	for _, tc := range []struct {
		name  string
		files []File
		want  string
	}{
		{"required missing", []File{{Path: "d/a"}, {Path: "d/c"}}, filepath.Join(r1, "d", "c") + ": missing"},
		{"wrong size", []File{{Path: "d/a", Size: 6}}, filepath.Join(r1, "d", "a") + ": wrong size: 5 bytes, want 6"},
		{"directory", []File{{Path: "d"}}, filepath.Join(r1, "d") + ": not a regular file"},
		{"no file of a group", []File{{Path: "d/a"}, {Path: "d/x", Optional: true, AnyOf: "g"}, {Path: "d/y", Optional: true, AnyOf: "g"}},
			"none of d/x, d/y exists under " + r1},
	} {
		_, err := Fingerprint(stubSource{name: "fp", files: tc.files}, Request{Root: r1, Name: "x"})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "dataset x (fp): ") {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	// One file of a group is enough.
	if _, err := Fingerprint(stubSource{name: "fp", files: []File{{Path: "d/a", AnyOf: "g"}, {Path: "d/y", Optional: true, AnyOf: "g"}}},
		Request{Root: r1, Name: "x"}); err != nil {
		t.Errorf("a group with one file present: %v", err)
	}
}

// TestResolve: the name takes the catalogue's spelling (an alias or any
// case of the name) before the source declares its files, and Path
// refuses files that were not declared.
func TestResolve(t *testing.T) {
	var seen []string
	src := recordingSource{stubSource{name: "rs", files: []File{{Path: "d/a"}}}, &seen}
	unregister := RegisterForTest(src, Entry{Name: "Mixed_Case", Source: "rs", Aliases: []string{"short"}})
	defer unregister()
	for _, spelling := range []string{"Mixed_Case", "mixed_case", "MIXED_CASE", "short", "SHORT", "unknown"} {
		seen = seen[:0]
		req, err := Resolve(src, Request{Root: "/r", Name: spelling})
		if err != nil {
			t.Fatal(err)
		}
		want := "Mixed_Case"
		if spelling == "unknown" {
			want = "unknown"
		}
		if req.Name != want || len(seen) != 1 || seen[0] != want {
			t.Errorf("%s: resolved to %q, Files saw %v, want %q", spelling, req.Name, seen, want)
		}
		if again, _ := Resolve(src, req); len(seen) != 1 || again.Name != want {
			t.Errorf("%s: resolving a resolved request called Files again", spelling)
		}
		if p, err := req.Path("d/a"); err != nil || p != filepath.Join("/r", "d", "a") {
			t.Errorf("%s: Path(d/a) = %q, %v", spelling, p, err)
		}
		if _, err := req.Path("d/other"); err == nil || !strings.Contains(err.Error(), "not among the files its source declares (d/a)") {
			t.Errorf("%s: Path of an undeclared file: %v", spelling, err)
		}
	}
}

// recordingSource records the names Files is called with.
type recordingSource struct {
	stubSource
	seen *[]string
}

func (s recordingSource) Files(req Request) ([]File, error) {
	*s.seen = append(*s.seen, req.Name)
	return s.files, nil
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

// TestRootCandidates: without $HYLAFLOW_DATA the default data root is
// shared/datasets beside the repository holding the pipeline (SetStart),
// found the way the cache is, whatever the working directory; every
// candidate is listed with how it was found.
func TestRootCandidates(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "clone")
	pipes := filepath.Join(repo, "mypipes", "deeper")
	data := filepath.Join(base, "shared", "datasets")
	for _, d := range []string{filepath.Join(repo, ".git"), pipes, data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cacheHome := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cacheHome)
	t.Setenv("HYLAFLOW_DATA", "")
	t.Chdir(t.TempDir()) // a working directory with no ../shared/datasets
	userCache := filepath.Join(cacheHome, "hylaflow", "datasets")
	defer SetStart("")
	SetStart(pipes)
	got := RootCandidates()
	wd, _ := os.Getwd()
	want := []Root{{data, RootFromRepo}, {filepath.Join(filepath.Dir(wd), "shared", "datasets"), RootFromWD}, {userCache, RootFromCache}}
	if !slices.Equal(got, want) {
		t.Errorf("candidates %v, want %v", got, want)
	}
	if d := DefaultRoot(); d != data {
		t.Errorf("DefaultRoot() = %s, want %s", d, data)
	}
	// Outside any repository: the working directory's ../shared/datasets,
	// then the user cache; the default root is the cache when neither exists.
	SetStart(t.TempDir())
	if got := RootCandidates(); len(got) != 2 || got[0].How != RootFromWD || got[1].How != RootFromCache {
		t.Errorf("outside a repository: %v", got)
	}
	if d := DefaultRoot(); d != userCache {
		t.Errorf("DefaultRoot() = %s, want the user cache %s", d, userCache)
	}
	// $HYLAFLOW_DATA wins, as given.
	t.Setenv("HYLAFLOW_DATA", "rel/data")
	if got := RootCandidates(); len(got) != 2 || got[0] != (Root{"rel/data", RootFromEnv}) {
		t.Errorf("with HYLAFLOW_DATA: %v", got)
	}
}
