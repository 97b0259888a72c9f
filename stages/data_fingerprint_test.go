package stages

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/datasets/reddit/reddittest"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/registry"
)

// dataKey is the cache key of a dataset instance as the runner makes it:
// the stage type, its version, its parameters and the fingerprint.
func dataKey(t *testing.T, params registry.Values) (string, error) {
	t.Helper()
	st, _ := Default().Lookup("dataset")
	full, err := st.Complete(params)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := registry.EncodeParams(st, full)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := st.Fingerprint(full)
	if err != nil {
		return "", err
	}
	return cache.ComputeKey(&cache.KeyRecord{StageType: st.Name, Version: st.Version, Params: enc, Fingerprint: fp}), nil
}

// dataSpellings are the spellings of a catalogue entry's name that a
// pipeline may use: the name and each alias, as written, in upper case
// and capitalised.
func dataSpellings(e datasets.Entry) []string {
	var out []string
	for _, n := range append([]string{e.Name}, e.Aliases...) {
		for _, s := range []string{n, strings.ToUpper(n), strings.ToUpper(n[:1]) + n[1:]} {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// TestDataKeyFollowsEveryByte: for every catalogued dataset with files
// (copies of the shared files in a temporary root; Reddit, which is not
// distributed, from a small graph in its format), flipping one byte of
// any file changes the dataset stage's cache key for every accepted
// spelling of its name, and an optional file that appears changes it
// too. On the main branch before the names were canonicalised, the keys
// of "Citeseer" or "CORA" stayed put: their paths missed the files and
// hashed "missing".
func TestDataKeyFollowsEveryByte(t *testing.T) {
	shared := testenv.Data(t)
	past := time.Now().Add(-time.Hour) // old enough for the digest memo
	for _, e := range datasets.Catalog() {
		if len(e.Files) == 0 {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			root := t.TempDir()
			t.Setenv("HYLAFLOW_DATA", root)
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			copied := 0
			for _, f := range e.Files {
				data, err := os.ReadFile(filepath.Join(shared, filepath.FromSlash(f.Path)))
				if err != nil {
					continue // optional, or Reddit's
				}
				dataWrite(t, root, f.Path, data, past)
				copied++
			}
			if copied == 0 && e.Source == "reddit" {
				dataWriteReddit(t, root, past)
			} else if len(datasets.RequiredProblems(e.FileProblems(root))) > 0 {
				t.Fatalf("the shared datasets lack required files of %s: %s", e.Name, datasets.SummarizeProblems(e.FileProblems(root)))
			}
			spellings := dataSpellings(e)
			keys := func() map[string]string {
				t.Helper()
				out := map[string]string{}
				for _, s := range spellings {
					k, err := dataKey(t, registry.Values{"source": e.Source, "name": s})
					if err != nil {
						t.Fatalf("%s: %v", s, err)
					}
					out[s] = k
				}
				return out
			}
			before := keys()
			for _, f := range e.Files {
				p := filepath.Join(root, filepath.FromSlash(f.Path))
				data, err := os.ReadFile(p)
				if err != nil { // an optional file: its appearance changes the keys
					dataWrite(t, root, f.Path, []byte("x"), time.Now())
					after := keys()
					for _, s := range spellings {
						if after[s] == before[s] {
							t.Errorf("%s: key unchanged when %s appeared", s, f.Path)
						}
					}
					os.Remove(p)
					continue
				}
				// One byte in the middle, and for files over a megabyte the
				// first and the last too: a loader reads them all.
				at := []int{len(data) / 2}
				if len(data) > 1<<20 {
					at = append(at, 0, len(data)-1)
				}
				for _, i := range at {
					flipped := slices.Clone(data)
					flipped[i] ^= 0x20
					dataWrite(t, root, f.Path, flipped, time.Now())
					after := keys()
					for _, s := range spellings {
						if after[s] == before[s] {
							t.Errorf("%s: key unchanged after byte %d of %s changed", s, i, f.Path)
						}
					}
				}
				dataWrite(t, root, f.Path, data, past)
			}
			if again := keys(); !mapsEqual(again, before) {
				t.Errorf("restored files, keys %v, want %v", again, before)
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestDataKeyMissingFiles: a dataset whose files are missing or of the
// wrong size is an error at plan time (the fingerprint, hence the key),
// saying which and naming every root tried; never a constant hash.
func TestDataKeyMissingFiles(t *testing.T) {
	shared := testenv.Data(t)
	root := t.TempDir()
	t.Setenv("HYLAFLOW_DATA", root)
	cacheHome := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cacheHome)
	e, _ := datasets.LookupIn("planetoid", "citeseer")
	for _, f := range e.Files {
		data, err := os.ReadFile(filepath.Join(shared, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		dataWrite(t, root, f.Path, data, time.Now())
	}
	for _, spelling := range []string{"citeseer", "Citeseer"} {
		if _, err := dataKey(t, registry.Values{"source": "planetoid", "name": spelling}); err != nil {
			t.Fatalf("%s: %v", spelling, err)
		}
	}
	index := filepath.Join(root, "planetoid", "ind.citeseer.test.index")
	data, _ := os.ReadFile(index)
	dataWrite(t, root, "planetoid/ind.citeseer.test.index", append(data, '\n'), time.Now())
	for _, tc := range []struct {
		params registry.Values
		want   []string
	}{
		{registry.Values{"source": "planetoid", "name": "Citeseer"}, []string{
			"dataset citeseer (planetoid): no data root holds its files; roots tried: " + root + " ($HYLAFLOW_DATA): planetoid/ind.citeseer.test.index (wrong size: 5001 bytes, want 5000)",
			filepath.Join(cacheHome, "hylaflow", "datasets") + " (user cache): 8 missing: planetoid/ind.citeseer.x"}},
		{registry.Values{"source": "planetoid", "name": "CITESEER", "root": root}, []string{
			"dataset citeseer (planetoid): under root " + root + ": planetoid/ind.citeseer.test.index (wrong size: 5001 bytes, want 5000)"}},
	} {
		_, err := dataKey(t, tc.params)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %v, want an error with %q", tc.params, err, w)
			}
		}
	}
	os.Remove(index)
	if _, err := dataKey(t, registry.Values{"source": "planetoid", "name": "Citeseer", "root": root}); err == nil ||
		!strings.Contains(err.Error(), "1 missing: planetoid/ind.citeseer.test.index") {
		t.Errorf("a missing file: %v", err)
	}
	// A root that does not exist is no different.
	if _, err := dataKey(t, registry.Values{"source": "planetoid", "name": "cora", "root": filepath.Join(root, "nowhere")}); err == nil ||
		!strings.Contains(err.Error(), "8 missing") {
		t.Errorf("a root that does not exist: %v", err)
	}
}

// dataWrite writes rel under root with the given modification time.
func dataWrite(t *testing.T, root, rel string, data []byte, mtime time.Time) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// dataWriteReddit writes reddittest's graph in FastGCN's Reddit format
// under root with the given modification time.
func dataWriteReddit(t *testing.T, root string, mtime time.Time) {
	t.Helper()
	for _, p := range reddittest.Write(t, root) {
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
}
