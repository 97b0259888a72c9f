package runner_test

import (
	"reflect"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/runner"
)

func TestKeyChanges(t *testing.T) {
	base := func() *cache.KeyRecord {
		return &cache.KeyRecord{StageType: "train", Version: "3",
			Params: map[string]string{"lr": "0.01", "epochs": "100"},
			Inputs: map[string][]string{"samples": {"k1/samples"}, "features": {"k2/features"}}, Fingerprint: "f"}
	}
	names := map[string]string{"k9/samples": `sample.hyla["0"] changed`}
	producer := func(ref string) string { return names[ref] }
	for _, tc := range []struct {
		name   string
		change func(r *cache.KeyRecord)
		want   []string
	}{
		{"same", func(*cache.KeyRecord) {}, nil},
		{"type and version", func(r *cache.KeyRecord) { r.StageType, r.Version = "train2", "4" },
			[]string{"stage type train → train2", "stage version 3 → 4"}},
		{"params", func(r *cache.KeyRecord) {
			r.Params["lr"] = "0.05"
			r.Params["k"] = "2"
			delete(r.Params, "epochs")
		}, []string{"param epochs removed (was 100)", "param k added (2)", "param lr changed 0.01 → 0.05"}},
		{"input with a known producer", func(r *cache.KeyRecord) { r.Inputs["samples"] = []string{"k9/samples"} },
			[]string{`input samples changed (sample.hyla["0"] changed)`}},
		{"input with an unknown producer", func(r *cache.KeyRecord) { r.Inputs["features"] = []string{"k8/features"} },
			[]string{"input features changed (k8/features)"}},
		{"input count", func(r *cache.KeyRecord) { r.Inputs["features"] = []string{"k2/features", "k3/features"} },
			[]string{"input features changed (1 → 2 artifacts)"}},
		{"many inputs", func(r *cache.KeyRecord) {
			r.Inputs["samples"] = []string{"a/s", "b/s", "c/s", "d/s", "e/s"}
		}, []string{"input samples changed (1 → 5 artifacts)"}},
		{"fingerprint", func(r *cache.KeyRecord) { r.Fingerprint = "g" }, []string{"input data changed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := base()
			tc.change(cur)
			if got := runner.KeyChanges(base(), cur, producer); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	old := base()
	old.Inputs["samples"] = []string{"a/s", "b/s", "c/s", "d/s", "e/s"}
	cur := base()
	cur.Inputs["samples"] = []string{"a/s", "x/s", "y/s", "z/s", "w/s"}
	want := []string{"input samples changed (x/s, y/s, z/s, and 1 more)"}
	if got := runner.KeyChanges(old, cur, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("more than three changed references: got %q, want %q", got, want)
	}
}
