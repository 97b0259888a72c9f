package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/stages/schema"
)

var cacheCmdUpdate = flag.Bool("update-cache", false, "rewrite the cache_*/runs_* golden files in testdata")

// cacheCmdTestPipeline: two sources, a scale with a variable factor, a sum.
const cacheCmdTestPipeline = `
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

// cacheCmdExec runs hylaflow in-process.
func cacheCmdExec(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := app.Dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

// cacheCmdMust runs hylaflow and fails the test unless it exits with want.
func cacheCmdMust(t *testing.T, want int, args ...string) string {
	t.Helper()
	code, out, errs := cacheCmdExec(args...)
	if code != want {
		t.Fatalf("hylaflow %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errs)
	}
	return out + errs
}

var (
	cacheCmdAgeRE   = regexp.MustCompile(`\b(just now|\d+[smhd] ago|in the future)`)
	cacheCmdDurRE   = regexp.MustCompile(`(<1ms|\b0s|\b\d+ms|\b\d+\.\ds|\b\d+m\d\ds|\b\d+h\d\dm)\b`)
	cacheCmdDateRE  = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`)
	cacheCmdSpaceRE = regexp.MustCompile(` {2,}`)
)

// cacheCmdMask replaces what changes between runs (the cache directory,
// ages, durations, dates) and collapses the table padding they influence.
func cacheCmdMask(s, dir string) string {
	s = strings.ReplaceAll(s, dir, "CACHE")
	s = cacheCmdAgeRE.ReplaceAllString(s, "AGO")
	s = cacheCmdDurRE.ReplaceAllString(s, "DUR")
	s = cacheCmdDateRE.ReplaceAllString(s, "DATE")
	return cacheCmdSpaceRE.ReplaceAllString(s, "  ")
}

// cacheCmdGolden compares got with testdata/NAME.golden, or with the
// golden file of package cacheops that prints it (cache_ls:
// ../../cacheops/testdata/ls.golden).
func cacheCmdGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if lib, ok := strings.CutPrefix(name, "cache_"); ok && name != "cache_help" {
		path = filepath.Join("..", "..", "cacheops", "testdata", lib+".golden")
	}
	if *cacheCmdUpdate {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update-cache once)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; got:\n%s\nwant:\n%s", name, got, want)
	}
}

// cacheCmdSetup runs the test pipeline with factor 2, then with factor 3,
// and returns the pipeline file and the cache directory.
func cacheCmdSetup(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(file, []byte(cacheCmdTestPipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	cdir := filepath.Join(dir, "cache")
	// -j 1: the run history lists stages in the order they finished.
	cacheCmdMust(t, cli.ExitOK, "run", file, "--cache", cdir, "-q", "-j", "1")
	cacheCmdMust(t, cli.ExitOK, "run", file, "--cache", cdir, "-q", "-j", "1", "-var", "factor=3")
	return file, cdir
}

func cacheCmdLsJSON(t *testing.T, cdir string) []cacheops.ArtifactJSON {
	t.Helper()
	var list []cacheops.ArtifactJSON
	if err := json.Unmarshal([]byte(cacheCmdMust(t, cli.ExitOK, "cache", "ls", "--json", "--cache", cdir)), &list); err != nil {
		t.Fatal(err)
	}
	return list
}

func cacheCmdFind(list []cacheops.ArtifactJSON, address, output string) []cacheops.ArtifactJSON {
	var out []cacheops.ArtifactJSON
	for _, a := range list {
		if a.Address == address && a.Output == output {
			out = append(out, a)
		}
	}
	return out
}

func TestCacheCmdListStatsVerify(t *testing.T) {
	_, cdir := cacheCmdSetup(t)
	cacheCmdGolden(t, "cache_ls", cacheCmdMask(cacheCmdMust(t, cli.ExitOK, "cache", "ls", "--cache", cdir), cdir))
	cacheCmdGolden(t, "cache_stats", cacheCmdMask(cacheCmdMust(t, cli.ExitOK, "cache", "stats", "--cache", cdir), cdir))

	// ls --json agrees with the cache's own listing.
	list := cacheCmdLsJSON(t, cdir)
	c, err := cache.OpenReadOnly(cdir)
	if err != nil {
		t.Fatal(err)
	}
	infos, err := c.List()
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 8 || len(infos) != 8 {
		t.Fatalf("ls --json lists %d artifacts, cache.List %d; want 8 (value, random, 2×scale, 2×sum with 2 outputs)", len(list), len(infos))
	}
	for i, a := range infos {
		j := list[i]
		if j.Key != a.Key || j.Output != a.Name || j.Digest != a.Digest || j.Size != a.Size || j.Address != a.Address || j.Kind != string(a.Kind) {
			t.Errorf("ls --json[%d] = %+v, cache.List = %+v", i, j, a)
		}
		if _, err := time.Parse(time.RFC3339Nano, j.Created); err != nil {
			t.Errorf("created %q: %v", j.Created, err)
		}
	}
	// Prefix filters: by stage address and by key.
	sums := cacheCmdFind(list, "sum.all", "out")
	out := cacheCmdMust(t, cli.ExitOK, "cache", "ls", "sum.", sums[0].Key[:6], "--cache", cdir)
	if strings.Count(out, "sum.all") != 4 || strings.Contains(out, "scale.s") || !strings.HasSuffix(out, "\n4 artifacts, 1.7 KiB\n") {
		t.Errorf("ls sum. KEY:\n%s", out)
	}
	out = cacheCmdMust(t, cli.ExitOK, "cache", "ls", "random.r", "--cache", cdir)
	if strings.Count(out, "random.r") != 1 || strings.Count(out, "\n") != 3 || !strings.HasSuffix(out, "\n1 artifact, 470 B\n") {
		t.Errorf("ls random.r:\n%s", out)
	}
	if out := cacheCmdMust(t, cli.ExitOK, "cache", "ls", "nothing", "--cache", cdir); out != "none of the 8 artifacts in "+cdir+" matches nothing\n" {
		t.Errorf("ls nothing: %q", out)
	}
	// --sort: by size, largest first; by storage time, oldest first.
	var bySize, byStored []cacheops.ArtifactJSON
	json.Unmarshal([]byte(cacheCmdMust(t, cli.ExitOK, "cache", "ls", "--json", "--sort", "size", "--cache", cdir)), &bySize)
	json.Unmarshal([]byte(cacheCmdMust(t, cli.ExitOK, "cache", "ls", "--json", "--sort", "stored", "--cache", cdir)), &byStored)
	if len(bySize) != 8 || len(byStored) != 8 {
		t.Fatalf("ls --sort: %d and %d artifacts", len(bySize), len(byStored))
	}
	for i := 1; i < 8; i++ {
		prev, _ := time.Parse(time.RFC3339Nano, byStored[i-1].Created)
		cur, _ := time.Parse(time.RFC3339Nano, byStored[i].Created)
		if bySize[i].Size > bySize[i-1].Size || cur.Before(prev) {
			t.Errorf("ls --sort out of order at %d: sizes %d > %d or created %s < %s", i, bySize[i].Size, bySize[i-1].Size, byStored[i].Created, byStored[i-1].Created)
		}
	}
	if byStored[0].Address == "sum.all" || byStored[7].Address == "random.r" {
		t.Errorf("ls --sort stored: first %s, last %s", byStored[0].Address, byStored[7].Address)
	}
	if code, _, errs := cacheCmdExec("cache", "ls", "--sort", "colour", "--cache", cdir); code != cli.ExitUsage || !strings.Contains(errs, `--sort "colour": want stage, size, stored or used`) {
		t.Errorf("ls --sort colour: exit %d %q", code, errs)
	}

	var st cacheops.StatsJSON
	if err := json.Unmarshal([]byte(cacheCmdMust(t, cli.ExitOK, "cache", "stats", "--json", "--cache", cdir)), &st); err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, a := range list {
		total += a.Size
	}
	if st.Keys != 6 || st.Artifacts != 8 || st.Runs != 2 || st.Objects > 8 || st.Objects < 6 || st.Dir != cdir {
		t.Errorf("stats --json = %+v, want 6 keys, 8 artifacts, 2 runs", st)
	}
	var byStage []string
	var stageTotal int64
	for _, b := range st.ByStage {
		byStage = append(byStage, b.Type+":"+strconv.Itoa(b.Artifacts))
		stageTotal += b.Bytes
	}
	if got := strings.Join(byStage, " "); got != "sum:4 scale:2 random:1 value:1" || stageTotal != total {
		t.Errorf("stats by stage type %s (%d bytes), want sum:4 scale:2 random:1 value:1 (%d bytes)", got, stageTotal, total)
	}
	if st.Objects == 8 && st.Bytes != total {
		t.Errorf("stats bytes %d, sum of the listed sizes %d", st.Bytes, total)
	}
	if out := cacheCmdMust(t, cli.ExitOK, "cache", "verify", "--cache", cdir); out != "checked "+strconv.Itoa(st.Objects)+" payloads: no problems\n" {
		t.Errorf("verify: %q", out)
	}

	// Damage one payload: verify names it and exits 1.
	victim := cacheCmdFind(list, "sum.all", "out")[0]
	path := filepath.Join(cdir, "objects", victim.Digest[:2], victim.Digest)
	if err := os.WriteFile(path, []byte("not the artifact"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = cacheCmdMust(t, cli.ExitFailed, "cache", "verify", "--cache", cdir)
	if !strings.Contains(out, victim.Digest) || !strings.Contains(out, "1 problems") {
		t.Errorf("verify after damaging %s:\n%s", victim.Digest, out)
	}
}

func TestCacheCmdExport(t *testing.T) {
	_, cdir := cacheCmdSetup(t)
	list := cacheCmdLsJSON(t, cdir)
	sums := cacheCmdFind(list, "sum.all", "out")
	if len(sums) != 2 {
		t.Fatalf("want 2 sum.all outputs, got %+v", sums)
	}
	dir := t.TempDir()
	for _, s := range sums {
		file := filepath.Join(dir, s.Key[:8]+".npz")
		out := cacheCmdMust(t, cli.ExitOK, "cache", "export", s.Key[:8]+"/out", file, "--cache", cdir)
		if want := "wrote " + file + ": " + s.Key[:12] + "/out (value, "; !strings.HasPrefix(out, want) {
			t.Errorf("export output %q, want prefix %q", out, want)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := os.ReadFile(filepath.Join(cdir, "objects", s.Digest[:2], s.Digest))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if !bytes.Equal(b, stored) || hex.EncodeToString(sum[:]) != s.Digest || int64(len(b)) != s.Size {
			t.Errorf("exported file (%d bytes) differs from the stored payload %s (%d bytes)", len(b), s.Digest, s.Size)
		}
		code, piped, errs := cacheCmdExec("cache", "export", s.Key[:10]+"/out", "-", "--cache", cdir)
		if code != cli.ExitOK || piped != string(stored) || !strings.HasPrefix(errs, "wrote stdout: "+s.Key[:12]+"/out") {
			t.Errorf("export to stdout: exit %d, %d bytes (want %d), stderr %q", code, len(piped), len(stored), errs)
		}
		a, err := bundle.Decode(bytes.NewReader(b), int64(len(b)), file)
		if err != nil {
			t.Fatal(err)
		}
		values, err := a.Floats("values")
		if err != nil {
			t.Fatal(err)
		}
		// The sum's metrics artifact reports the total of the exported vector.
		mfile := filepath.Join(dir, s.Key[:8]+"-metrics.npz")
		cacheCmdMust(t, cli.ExitOK, "cache", "export", s.Key+"/metrics", mfile, "--cache", cdir)
		mb, _ := os.ReadFile(mfile)
		ma, err := bundle.Decode(bytes.NewReader(mb), int64(len(mb)), mfile)
		if err != nil {
			t.Fatal(err)
		}
		var metrics map[string]float64
		if err := ma.JSON("metrics", &metrics); err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for _, v := range values {
			total += v
		}
		if len(values) != 3 || math.Abs(total-metrics["total"]) > 1e-12 {
			t.Errorf("exported values %v (total %v), metrics %v", values, total, metrics)
		}
		cacheCmdNumpyValues(t, file, values)
	}

	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{sums[0].Key[:8], "x"}, cli.ExitUsage, "outputs (metrics, out): name one as " + sums[0].Key[:8] + "/OUTPUT"},
		{[]string{sums[0].Key[:8] + "/nope", "x"}, cli.ExitUsage, `has no output "nope" (have metrics, out)`},
		{[]string{"ffffffffffff", "x"}, cli.ExitUsage, "no key starts with ffffffffffff"},
		{[]string{cacheCmdAmbiguous(t, list), "x"}, cli.ExitUsage, " is ambiguous: "},
		{[]string{"zz", "x"}, cli.ExitUsage, `key "zz": want hex digits`},
		{[]string{"only-one-arg"}, cli.ExitUsage, "want 2 arguments, got 1"},
	}
	for _, tc := range tests {
		args := append([]string{"cache", "export"}, tc.args...)
		args = append(args, "--cache", cdir)
		code, out, errs := cacheCmdExec(args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("hylaflow %s: exit %d, stderr %q; want exit %d and %q (stdout %q)", strings.Join(args, " "), code, errs, tc.code, tc.want, out)
		}
	}
}

// cacheCmdAmbiguous returns a one-digit prefix shared by two listed keys.
func cacheCmdAmbiguous(t *testing.T, list []cacheops.ArtifactJSON) string {
	first := map[byte]string{}
	for _, a := range list {
		if k, ok := first[a.Key[0]]; ok && k != a.Key {
			return a.Key[:1]
		}
		first[a.Key[0]] = a.Key
	}
	t.Fatalf("no two keys share a first digit: %+v", list)
	return ""
}

// cacheCmdNumpyValues checks that numpy.load reads the exported artifact's
// "values" member bit for bit (skipped without numpy, except on CI).
func cacheCmdNumpyValues(t *testing.T, file string, want []float64) {
	t.Helper()
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import numpy").CombinedOutput(); err != nil {
		if testenv.CI() {
			t.Fatalf("numpy is not importable by %s: %v %s", py, err, out)
		}
		t.Logf("skipping the numpy check: %v %s", err, out)
		return
	}
	out, err := exec.Command(py, "-c", "import sys, numpy; print(' '.join(str(x) for x in numpy.load(sys.argv[1])['values'].view('<u8')))", file).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy.load %s: %v\n%s", file, err, out)
	}
	var bits []string
	for _, v := range want {
		bits = append(bits, strconv.FormatUint(math.Float64bits(v), 10))
	}
	if got := strings.TrimSpace(string(out)); got != strings.Join(bits, " ") {
		t.Errorf("numpy.load values bits %s, want %s", got, strings.Join(bits, " "))
	}
}

func TestCacheCmdGCAndClear(t *testing.T) {
	_, cdir := cacheCmdSetup(t)
	before := cacheCmdLsJSON(t, cdir)
	out := cacheCmdMust(t, cli.ExitOK, "cache", "gc", "--keep-runs", "1", "--dry-run", "--cache", cdir)
	if !strings.HasPrefix(out, "would remove 2 keys and 3 payload files (") {
		t.Errorf("gc --dry-run: %q", out)
	}
	cacheCmdGolden(t, "cache_gc_dry_run", cacheCmdMask(out, cdir))
	if after := cacheCmdLsJSON(t, cdir); len(after) != len(before) {
		t.Fatalf("gc --dry-run removed artifacts: %d → %d", len(before), len(after))
	}
	// Everything used within the last hour is kept whatever the runs say.
	out = cacheCmdMust(t, cli.ExitOK, "cache", "gc", "--keep-runs", "0", "--older-than", "1h", "--cache", cdir)
	if !strings.HasPrefix(out, "removed 0 keys and 0 payload files (0 B)") {
		t.Errorf("gc --older-than 1h: %q", out)
	}
	out = cacheCmdMust(t, cli.ExitOK, "cache", "gc", "--keep-runs", "1", "--cache", cdir)
	if !strings.HasPrefix(out, "removed 2 keys and 3 payload files (") {
		t.Errorf("gc: %q", out)
	}
	after := cacheCmdLsJSON(t, cdir)
	if len(after) != 5 {
		t.Fatalf("after gc %d artifacts, want 5", len(after))
	}
	// The artifacts of the last run (factor 3) stay: its scale output is 3·[1 2 3].
	scale := cacheCmdFind(after, "scale.s", "out")
	if len(scale) != 1 {
		t.Fatalf("scale.s outputs after gc: %+v", scale)
	}
	file := filepath.Join(t.TempDir(), "scale.npz")
	cacheCmdMust(t, cli.ExitOK, "cache", "export", scale[0].Key, file, "--cache", cdir)
	b, _ := os.ReadFile(file)
	a, err := bundle.Decode(bytes.NewReader(b), int64(len(b)), file)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := a.Floats("values"); err != nil || len(v) != 3 || v[0] != 3 || v[1] != 6 || v[2] != 9 {
		t.Errorf("kept scale.s values %v (%v), want [3 6 9]", v, err)
	}
	cacheCmdMust(t, cli.ExitOK, "cache", "verify", "--cache", cdir)

	out = cacheCmdMust(t, cli.ExitUsage, "cache", "clear", "--cache", cdir)
	if !strings.Contains(out, "would remove 4 keys, 5 payload files (") || !strings.Contains(out, "and 2 runs from "+cdir+"; pass --yes") {
		t.Errorf("clear without --yes: %q", out)
	}
	if n := len(cacheCmdLsJSON(t, cdir)); n != 5 {
		t.Fatalf("clear without --yes removed artifacts (%d left)", n)
	}
	cacheCmdMust(t, cli.ExitOK, "cache", "clear", "--yes", "--cache", cdir)
	if got := cacheCmdMust(t, cli.ExitOK, "cache", "ls", "--cache", cdir); got != "the cache "+cdir+" holds no artifacts\n" {
		t.Errorf("ls after clear: %q", got)
	}
	var st cacheops.StatsJSON
	json.Unmarshal([]byte(cacheCmdMust(t, cli.ExitOK, "cache", "stats", "--json", "--cache", cdir)), &st)
	if st.Keys != 0 || st.Artifacts != 0 || st.Objects != 0 || st.Bytes != 0 || st.Runs != 0 {
		t.Errorf("stats after clear: %+v", st)
	}
}

func TestCacheCmdUsage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"cache"}, cli.ExitUsage, "Usage: hylaflow cache SUBCOMMAND"},
		{[]string{"cache", "--help"}, cli.ExitOK, "Usage: hylaflow cache SUBCOMMAND"},
		{[]string{"cache", "bogus"}, cli.ExitUsage, `unknown subcommand "bogus"`},
		{[]string{"cache", "ls", "--help"}, cli.ExitOK, "Usage: hylaflow cache ls [--json]"},
		{[]string{"cache", "gc", "-h"}, cli.ExitOK, "--keep-runs N    runs whose artifacts are kept (default 5)"},
		{[]string{"cache", "export", "--help"}, cli.ExitOK, "numpy.load(FILE)"},
		{[]string{"cache", "stats", "extra"}, cli.ExitUsage, "want 0 arguments, got 1"},
		{[]string{"cache", "ls", "--bogus"}, cli.ExitUsage, "hylaflow cache ls: unknown flag --bogus"},
		{[]string{"cache", "gc", "--older-than", "3x", "--cache", missing}, cli.ExitUsage, `"3x": want a duration such as 36h, 7d or 2w`},
		{[]string{"cache", "gc", "--cache", missing}, cli.ExitFailed, "no cache at " + missing},
		{[]string{"cache", "gc", "--keep-runs", "-1"}, cli.ExitUsage, "--keep-runs -1: want 0 or more"},
		{[]string{"cache", "clear", "--cache", missing}, cli.ExitFailed, "no cache at " + missing},
		// Reading commands on a missing cache report an empty one and create nothing.
		{[]string{"cache", "ls", "--cache", missing}, cli.ExitOK, "holds no artifacts"},
		{[]string{"cache", "verify", "--cache", missing}, cli.ExitOK, "checked 0 payloads: no problems"},
	}
	for _, tc := range tests {
		code, out, errs := cacheCmdExec(tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("hylaflow %s: exit %d, output %q; want exit %d and %q", strings.Join(tc.args, " "), code, out+errs, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("reading commands created %s", missing)
	}
	cacheCmdGolden(t, "cache_help", cacheCmdMust(t, cli.ExitOK, "cache", "help"))
}

// cache export --member writes one member as a file other tools open: a
// graph's adjacency as an .npz holding only that matrix (what
// scipy.sparse.load_npz reads; artifact/interop_test.go opens it with
// scipy), its labels as an .npy; files get 0666 less the umask.
func TestCacheCmdExportMember(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	dir := t.TempDir()
	file := filepath.Join(dir, "g.hcl")
	src := "stage \"dataset\" \"d\" {\n  source = \"synthetic\"\n  name   = \"disease\"\n  nodes  = 40\n  seed   = 1\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cdir := filepath.Join(dir, "cache")
	cacheCmdMust(t, cli.ExitOK, "run", "-q", file, "--cache", cdir)
	list := cacheCmdLsJSON(t, cdir)
	if len(list) != 1 || list[0].Kind != "graph" {
		t.Fatalf("cache ls: %+v, want one graph", list)
	}
	key := list[0].Key[:12]
	c, err := cache.OpenReadOnly(cdir)
	if err != nil {
		t.Fatal(err)
	}
	refs, _, err := c.Lookup(list[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	art, err := c.Load(refs[0])
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	g, err := bundle.From(art)
	if err != nil {
		t.Fatal(err)
	}
	wantAdj, err := g.Sparse(schema.MemberAdj)
	if err != nil {
		t.Fatal(err)
	}

	whole := filepath.Join(dir, "graph.npz")
	out := cacheCmdMust(t, cli.ExitOK, "cache", "export", key, whole, "--cache", cdir)
	if !strings.Contains(out, "sparse members adj: for scipy.sparse.load_npz, export one with --member adj") {
		t.Errorf("export of a graph does not point at --member:\n%s", out)
	}
	adjFile := filepath.Join(dir, "adj.npz")
	out = cacheCmdMust(t, cli.ExitOK, "cache", "export", key, adjFile, "--member", "adj", "--cache", cdir)
	if !strings.HasPrefix(out, "wrote "+adjFile+": member adj of "+key+"/graph (graph, ") {
		t.Errorf("export --member adj said:\n%s", out)
	}
	labelsFile := filepath.Join(dir, "labels")
	out = cacheCmdMust(t, cli.ExitOK, "cache", "export", key+"/graph", labelsFile, "--member", "labels", "--cache", cdir)
	if !strings.Contains(out, "wrote "+labelsFile+" (a .npy file): member labels") {
		t.Errorf("export --member labels said:\n%s", out)
	}
	for _, f := range []string{whole, adjFile, labelsFile} {
		if st, err := os.Stat(f); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v (%v), want -rw-r--r--", f, st.Mode(), err)
		}
	}
	b, err := os.ReadFile(adjFile)
	if err != nil {
		t.Fatal(err)
	}
	a, err := bundle.Decode(bytes.NewReader(b), int64(len(b)), adjFile)
	if err != nil {
		t.Fatal(err)
	}
	gotAdj, err := a.Sparse("")
	if err != nil || a.Names()[0] != "" || len(a.Names()) != 1 {
		t.Fatalf("adj.npz members %q (%v), want the one unnamed sparse matrix", a.Names(), err)
	}
	if fmt.Sprint(gotAdj.Rows, gotAdj.Indptr, gotAdj.Indices, gotAdj.Data) != fmt.Sprint(wantAdj.Rows, wantAdj.Indptr, wantAdj.Indices, wantAdj.Data) {
		t.Errorf("adj.npz holds another matrix than the graph's adj")
	}
	if lb, err := os.ReadFile(labelsFile); err != nil || !bytes.HasPrefix(lb, []byte("\x93NUMPY")) || !bytes.Contains(lb, []byte("'<i8'")) {
		t.Errorf("labels is not an int64 .npy: %q… (%v)", lb[:min(len(lb), 40)], err)
	}
	code, _, errs := cacheCmdExec("cache", "export", key, filepath.Join(dir, "x"), "--member", "nope", "--cache", cdir)
	if code != cli.ExitFailed || !strings.Contains(errs, `no member "nope"`) {
		t.Errorf("export --member nope: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Errorf("a failed export left a file")
	}
}
