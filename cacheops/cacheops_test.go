package cacheops

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testPipeline: two sources, a scale with a variable factor, a sum.
const testPipeline = `
variable "factor" { default = 2 }
stage "value" "a" { values = [1, 2, 3] }
stage "random" "r" {
  n    = 3
  seed = 7
}
stage "scale" "s" {
  in     = stage.value.a
  factor = var.factor
}
stage "sum" "all" { in = [stage.scale.s, stage.random.r] }
`

// testCache runs testPipeline with factor 2, then 3 (one stage at a time,
// so that the run history is in a fixed order) into a new cache.
func testCache(t *testing.T) *cache.Cache {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(file, []byte(testPipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := cache.Open(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, factor := range []string{"2", "3"} {
		p, diags := pipeline.Load(stages.Default(), file, pipeline.LoadOptions{Vars: map[string]string{"factor": factor}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if _, err := runner.Run(context.Background(), p, c, runner.RunOptions{Jobs: 1}); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

var (
	ageRE   = regexp.MustCompile(`\b(just now|\d+[smhd] ago|in the future)`)
	spaceRE = regexp.MustCompile(` {2,}`)
)

// mask replaces what changes between runs (the cache directory, ages) and
// collapses the table padding they influence.
func mask(s, dir string) string {
	s = strings.ReplaceAll(s, dir, "CACHE")
	s = ageRE.ReplaceAllString(s, "AGO")
	return spaceRE.ReplaceAllString(s, "  ")
}

// golden compares got with testdata/NAME.golden.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; got:\n%s\nwant:\n%s", name, got, want)
	}
}

// List, Stats and a GC dry run print what the golden files hold; List's
// orders and filters, and the JSON forms, hold the same artifacts.
func TestListStatsGC(t *testing.T) {
	c := testCache(t)
	var b bytes.Buffer
	if err := List(&b, c, ListOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "ls", mask(b.String(), c.Dir()))
	b.Reset()
	if err := Stats(&b, c, false); err != nil {
		t.Fatal(err)
	}
	golden(t, "stats", mask(b.String(), c.Dir()))
	b.Reset()
	if err := GC(&b, c, cache.GCOptions{KeepRuns: 1, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "gc_dry_run", mask(b.String(), c.Dir()))

	list := func(opts ListOptions) []ArtifactJSON {
		t.Helper()
		var b bytes.Buffer
		opts.JSON = true
		if err := List(&b, c, opts); err != nil {
			t.Fatal(err)
		}
		var out []ArtifactJSON
		if err := json.Unmarshal(b.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := list(ListOptions{})
	if len(all) != 8 {
		t.Fatalf("%d artifacts, want 8", len(all))
	}
	for i, a := range list(ListOptions{Sort: "size"}) {
		if i > 0 && a.Size > all[0].Size {
			t.Errorf("size order: %+v", a)
		}
	}
	if got := list(ListOptions{Prefixes: []string{"scale."}}); len(got) != 2 || got[0].Address != "scale.s" {
		t.Errorf("prefix scale.: %+v", got)
	}
	if got := list(ListOptions{Prefixes: []string{strings.ToUpper(all[0].Key[:6])}}); len(got) == 0 || got[0].Key != all[0].Key {
		t.Errorf("key prefix in capitals: %+v", got)
	}
	b.Reset()
	if err := List(&b, c, ListOptions{Prefixes: []string{"nosuch"}}); err != nil || b.String() != "none of the 8 artifacts in "+c.Dir()+" matches nosuch\n" {
		t.Errorf("no match: %v, %q", err, b.String())
	}
	var st StatsJSON
	b.Reset()
	if err := Stats(&b, c, true); err != nil || json.Unmarshal(b.Bytes(), &st) != nil {
		t.Fatalf("stats --json: %v\n%s", err, b.String())
	}
	if st.Keys != 6 || st.Artifacts != 8 || st.Runs != 2 || len(st.ByStage) != 4 || st.ByStage[0].Type != "sum" {
		t.Errorf("stats: %+v", st)
	}
}

// Verify finds a damaged payload and Repair drops it; Clear empties.
func TestVerifyRepairClear(t *testing.T) {
	c := testCache(t)
	var b bytes.Buffer
	if clean, err := Verify(&b, c, false); !clean || err != nil || !strings.HasPrefix(b.String(), "checked 8 payloads: no problems") {
		t.Fatalf("verify: %v %v %q", clean, err, b.String())
	}
	// Damage one payload.
	var objects []string
	filepath.Walk(filepath.Join(c.Dir(), "objects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			objects = append(objects, p)
		}
		return nil
	})
	if len(objects) == 0 {
		t.Fatal("no payload files")
	}
	if err := os.WriteFile(objects[0], []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if clean, err := Verify(&b, c, false); clean || err != nil || !strings.Contains(b.String(), "--repair drops the damaged entries") {
		t.Errorf("verify of a damaged payload: %v %v %q", clean, err, b.String())
	}
	b.Reset()
	if clean, err := Verify(&b, c, true); !clean || err != nil || !strings.Contains(b.String(), "repaired: ") {
		t.Errorf("repair: %v %v %q", clean, err, b.String())
	}
	what, err := Contents(c)
	if err != nil || !strings.HasSuffix(what, " and 2 runs") {
		t.Errorf("Contents = %q, %v", what, err)
	}
	b.Reset()
	if err := Clear(&b, c); err != nil || b.String() != "removed "+what+" from "+c.Dir()+"\n" {
		t.Errorf("clear: %v %q", err, b.String())
	}
	if what, _ := Contents(c); what != "0 keys, 0 payload files (0 B) and 0 runs" {
		t.Errorf("after clear: %s", what)
	}
}

// Export writes a payload or one member; a key with several outputs
// needs one named (*RefError), an unknown key is cache.ErrNotFound.
func TestExport(t *testing.T) {
	c := testCache(t)
	var b bytes.Buffer
	if err := List(&b, c, ListOptions{JSON: true, Prefixes: []string{"sum.all"}}); err != nil {
		t.Fatal(err)
	}
	var sums []ArtifactJSON
	if err := json.Unmarshal(b.Bytes(), &sums); err != nil {
		t.Fatal(err)
	}
	key := sums[0].Key
	dir := t.TempDir()
	var out, msgs bytes.Buffer
	var re *RefError
	if err := Export(&out, &msgs, c, key[:10], filepath.Join(dir, "x.npz")); !errors.As(err, &re) ||
		!strings.Contains(err.Error(), "has 2 outputs (metrics, out): name one as "+key[:10]+"/OUTPUT") {
		t.Errorf("export of a key with two outputs: %v", err)
	}
	file := filepath.Join(dir, "out.npz")
	if err := Export(&out, &msgs, c, key[:10]+"/out", file); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(file); err != nil || st.Size() == 0 || !strings.HasPrefix(out.String(), "wrote "+file+": "+key[:12]+"/out (value, ") {
		t.Errorf("export: %v, %q", err, out.String())
	}
	out.Reset()
	if err := Export(&out, &msgs, c, key+"/out", "-"); err != nil || !bytes.HasPrefix(out.Bytes(), []byte("PK")) ||
		!strings.HasPrefix(msgs.String(), "wrote stdout: ") {
		t.Errorf("export to stdout: %v, message %q", err, msgs.String())
	}
	out.Reset()
	if err := ExportMember(&out, &msgs, c, key+"/metrics", "metrics", filepath.Join(dir, "m.json")); err != nil ||
		!strings.Contains(out.String(), "member metrics of "+key[:12]+"/metrics") {
		t.Errorf("export member: %v, %q", err, out.String())
	}
	if err := ExportMember(&out, &msgs, c, key, "metrics", filepath.Join(dir, "m2.json")); !errors.As(err, &re) {
		t.Errorf("export member without an output: %v", err)
	}
	// A .json file asks for the one member in JSON, not an archive.
	out.Reset()
	jsonFile := filepath.Join(dir, "m3.json")
	if err := Export(&out, &msgs, c, key+"/metrics", jsonFile); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(jsonFile); err != nil || !json.Valid(b) || bytes.HasPrefix(b, []byte("PK")) {
		t.Errorf("export KEY/metrics m.json wrote %q (%v), want JSON", b, err)
	}
	out.Reset()
	if err := Export(&out, &msgs, c, key+"/out", filepath.Join(dir, "o.json")); !errors.As(err, &re) ||
		!strings.Contains(err.Error(), "o.json ends in .json, but "+key[:12]+"/out holds 1 member(s)") {
		t.Errorf("export of a vector to a .json file: %v", err)
	}
	if err := Export(&out, &msgs, c, key+"/out", filepath.Join(dir, "o.npy")); err != nil {
		t.Errorf("export of a vector to a .npy file: %v", err)
	} else if b, _ := os.ReadFile(filepath.Join(dir, "o.npy")); !bytes.HasPrefix(b, []byte("\x93NUMPY")) {
		t.Errorf("o.npy: %.20q", b)
	}
	if err := Export(&out, &msgs, c, "ffff", filepath.Join(dir, "y")); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("unknown key: %v", err)
	}
}

func TestFormats(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ got, want string }{
		{Size(0), "0 B"},
		{Size(1023), "1023 B"},
		{Size(1024), "1.0 KiB"},
		{Size(1536), "1.5 KiB"},
		{Size(5 << 20), "5.0 MiB"},
		{Size(3 << 30), "3.00 GiB"},
		{Age(time.Time{}, now), "-"},
		{Age(now.Add(-500*time.Millisecond), now), "just now"},
		{Age(now.Add(-42*time.Second), now), "42s ago"},
		{Age(now.Add(-5*time.Minute), now), "5m ago"},
		{Age(now.Add(-47*time.Hour), now), "47h ago"},
		{Age(now.Add(-72*time.Hour), now), "3d ago"},
		{Age(now.Add(time.Hour), now), "in the future"},
		{Duration(0), "0s"},
		{Duration(300 * time.Microsecond), "<1ms"},
		{Duration(42 * time.Millisecond), "42ms"},
		{Duration(1500 * time.Millisecond), "1.5s"},
		{Duration(65 * time.Second), "1m05s"},
		{Duration(2*time.Hour + 3*time.Minute), "2h03m"},
		{ShortKey("0123456789abcdef"), "0123456789ab"},
		{ShortKey("abc"), "abc"},
		{Time(time.Time{}), ""},
		{Time(now), "2024-05-01T12:00:00Z"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestParseAge(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"36h", 36 * time.Hour, true},
		{"7d", 7 * 24 * time.Hour, true},
		{"1.5d", 36 * time.Hour, true},
		{"2w", 14 * 24 * time.Hour, true},
		{"90m", 90 * time.Minute, true},
		{"3x", 0, false},
		{"-1h", 0, false},
		{"d", 0, false},
		{"-2d", 0, false},
	} {
		got, err := ParseAge(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// Open reads without creating anything and writes only to a cache that
// exists; ClearDir clears, or resets an index SQLite cannot read.
func TestOpenAndClearDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	if _, err := Open(dir, true); err == nil || !strings.Contains(err.Error(), "no cache at "+dir) {
		t.Errorf("Open to write a missing cache: %v", err)
	}
	if c, err := Open(dir, false); err != nil {
		t.Errorf("Open to read a missing cache: %v", err)
	} else {
		c.Close()
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("reading created the cache (%v)", err)
	}
	c, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.BeginRun("p", []string{"run"}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	var out bytes.Buffer
	damaged := ""
	if err := ClearDir(&out, dir, func(index string) { damaged = index }); err != nil || damaged != "" ||
		out.String() != "removed 0 keys, 0 payload files (0 B) and 1 runs from "+dir+"\n" {
		t.Errorf("ClearDir: %v, damaged %q, printed %q", err, damaged, out.String())
	}
	index := filepath.Join(dir, "index.db")
	if err := os.WriteFile(index, bytes.Repeat([]byte("damaged "), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := ClearDir(&out, dir, func(index string) { damaged = index }); err != nil || damaged != index ||
		!strings.HasPrefix(out.String(), "removed the damaged index and ") {
		t.Errorf("ClearDir of a damaged index: %v, damaged %q, printed %q", err, damaged, out.String())
	}
	if c, err := Open(dir, true); err != nil {
		t.Errorf("the reset cache does not open: %v", err)
	} else {
		c.Close()
	}
}
