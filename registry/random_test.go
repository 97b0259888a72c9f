package registry

import "testing"

func draws(t *testing.T, j *Job, name string) [4]uint64 {
	t.Helper()
	r := j.Stream(name)
	return [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
}

// TestSeedsAndStreams: a stage's seed depends on the user's seed and the
// stage type only; named streams are reproducible, differ by name and by
// seed, and differ from the job's RNG.
func TestSeedsAndStreams(t *testing.T) {
	if SeedFor(3, "train") != SeedFor(3, "train") {
		t.Fatal("SeedFor is not a function of its arguments")
	}
	seeds := map[uint64]string{}
	for _, tc := range []struct {
		seed int
		typ  string
	}{{0, "train"}, {1, "train"}, {3, "train"}, {3, "sample"}, {3, "embed"}, {0, "sample"}} {
		s := SeedFor(tc.seed, tc.typ)
		if prev, dup := seeds[s]; dup {
			t.Fatalf("seed %d of %s collides with %s", tc.seed, tc.typ, prev)
		}
		seeds[s] = tc.typ
	}
	if SeedParam(Values{"seed": 5, "lr": 0.1}) != 5 || SeedParam(Values{"lr": 0.1}) != 0 || SeedParam(Values{"seed": "5"}) != 0 {
		t.Fatal("SeedParam: want the int seed parameter, else 0")
	}
	a := &Job{Seed: SeedFor(3, "train")}
	b := &Job{Seed: SeedFor(3, "train"), Key: "another key", Address: "train.other"}
	c := &Job{Seed: SeedFor(4, "train")}
	if draws(t, a, "init") != draws(t, b, "init") {
		t.Error("the same seed and name gave two streams (key or address leaked in)")
	}
	if draws(t, a, "init") == draws(t, a, "dropout") {
		t.Error("two names gave the same stream")
	}
	if draws(t, a, "init") == draws(t, c, "init") {
		t.Error("two seeds gave the same stream")
	}
	r := NewRNG(a.Seed)
	if [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()} == draws(t, a, "") {
		t.Error("the stream named \"\" is the job's RNG")
	}
}
