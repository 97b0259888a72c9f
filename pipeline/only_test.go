package pipeline

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestOnly: --only keeps what the patterns name and everything upstream,
// in the pipeline's order; publish blocks only when all they publish is
// kept; a pattern that names nothing is an ErrNoMatch listing the
// stages.
func TestOnly(t *testing.T) {
	p := mustLoad(t, `
stage "source" "cora" { name = "cora" }
stage "source" "pubmed" { name = "pubmed" }
stage "train" "cora" {
  for_each = toset(["0", "1"])
  data     = stage.source.cora.graph
  seed     = tonumber(each.key)
}
stage "train" "pubmed" {
  for_each = toset(["0", "1"])
  data     = stage.source.pubmed.graph
  seed     = tonumber(each.key)
}
stage "collect" "all" { runs = [stage.train.cora, stage.train.pubmed] }
publish "out" { from = [stage.collect.all] }
publish "models" { from = [stage.train.cora] }
`, LoadOptions{})
	for _, tc := range []struct {
		patterns []string
		want     []string
		publish  int
	}{
		{[]string{`train.cora["1"]`}, []string{"source.cora", `train.cora["1"]`}, 0},
		{[]string{"train.cora"}, []string{"source.cora", `train.cora["0"]`, `train.cora["1"]`}, 1},
		{[]string{`train.*["0"]`}, []string{"source.cora", "source.pubmed", `train.cora["0"]`, `train.pubmed["0"]`}, 0},
		{[]string{"source.pubmed", "train.c?ra"}, []string{"source.cora", "source.pubmed", `train.cora["0"]`, `train.cora["1"]`}, 1},
		{[]string{"collect.*"}, []string{"source.cora", "source.pubmed", `train.cora["0"]`, `train.cora["1"]`,
			`train.pubmed["0"]`, `train.pubmed["1"]`, "collect.all"}, 2},
	} {
		sub, err := Only(p, tc.patterns)
		if err != nil {
			t.Errorf("%v: %v", tc.patterns, err)
			continue
		}
		var got []string
		for _, inst := range sub.Instances {
			got = append(got, inst.Address)
			if sub.ByAddress[inst.Address] != inst {
				t.Errorf("%v: ByAddress lacks %s", tc.patterns, inst.Address)
			}
		}
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) || len(sub.ByAddress) != len(want) || len(sub.Publish) != tc.publish {
			t.Errorf("%v: instances %v, %d publish blocks; want %v, %d", tc.patterns, got, len(sub.Publish), want, tc.publish)
		}
		if len(p.Instances) != 7 {
			t.Fatalf("Only changed the pipeline it was given: %d instances", len(p.Instances))
		}
	}
	if sub, err := Only(p, nil); err != nil || sub != p {
		t.Errorf("no patterns: %v, %v", sub, err)
	}
	_, err := Only(p, []string{"train.citeseer", "train.cora"})
	if !errors.Is(err, ErrNoMatch) || !strings.Contains(err.Error(), "--only train.citeseer: no stage or instance of") ||
		!strings.Contains(err.Error(), "(its stages: source.cora, source.pubmed, train.cora, train.pubmed, collect.all)") {
		t.Errorf("unknown pattern: %v", err)
	}
}
