package cache

import (
	"maps"

	"github.com/hylaflow/hylaflow/artifact"
	"testing"
)

// LastKeysOf gives each address the key of the latest run of the same
// pipeline that planned it: a later record within a run wins, another
// pipeline's runs do not count, a key whose record is gone (gc) is passed
// over for an earlier run's, and an address no run planned is absent.
func TestLastKeysOf(t *testing.T) {
	c := openTest(t)
	k := make([]string, 6)
	for i := range k {
		rec := testRecord("s", i)
		mustStore(t, c, rec, map[string]artifact.Artifact{"out": valueArtifact(float64(i), 2)})
		k[i] = rec.Key
	}
	gone := testRecord("gone", 0).Key // never stored: no record in the index
	runs := []struct {
		pipeline string
		stages   [][2]string // address, key in record order
	}{
		{"p", [][2]string{{"a", k[0]}, {"b", k[1]}, {"d", k[5]}}},
		{"q", [][2]string{{"a", k[2]}, {"c", k[2]}}},
		{"p", [][2]string{{"a", k[3]}, {"a", k[4]}}}, // a retried: the later record wins
		{"p", [][2]string{{"b", gone}}},
	}
	for _, r := range runs {
		id, err := c.BeginRun(r.pipeline, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range r.stages {
			if err := c.RecordStage(id, StageRecord{Address: s[0], Key: s[1], Status: "cached"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.FinishRun(id, "ok"); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name      string
		pipeline  string
		addresses []string
		want      map[string]string
	}{
		{"p", "p", []string{"a", "b", "c", "d"}, map[string]string{"a": k[4], "b": k[1], "d": k[5]}},
		{"p, newest run only", "p", []string{"a"}, map[string]string{"a": k[4]}},
		{"q", "q", []string{"a", "b", "c"}, map[string]string{"a": k[2], "c": k[2]}},
		{"never ran", "r", []string{"a"}, map[string]string{}},
		{"no addresses", "p", nil, map[string]string{}},
	} {
		got, err := c.LastKeysOf(tt.pipeline, tt.addresses)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, tt.want) {
			t.Errorf("%s: LastKeysOf = %v, want %v", tt.name, got, tt.want)
		}
	}
}
