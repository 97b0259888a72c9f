package stages

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// textGCNToyRoot writes a small TextGCN-format corpus "toy" (meta file and
// cleaned corpus) under a temporary data root: docs documents of three
// classes, each drawing most of its words from its class's ten words;
// every fourth document is a test document.
func textGCNToyRoot(t *testing.T, docs int) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "textgcn")
	if err := os.MkdirAll(filepath.Join(dir, "corpus"), 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	var meta, corpus strings.Builder
	for i := 0; i < docs; i++ {
		y := i % 3
		split := "train"
		if (i/3)%4 == 1 {
			split = "test"
		}
		fmt.Fprintf(&meta, "d%d\t%s\tc%d\n", i, split, y)
		var words []string
		for k := 0; k < 12; k++ {
			c := y
			if rng.Float64() < 0.3 {
				c = rng.IntN(3)
			}
			words = append(words, fmt.Sprintf("w%d_%d", c, rng.IntN(10)))
		}
		corpus.WriteString(strings.Join(words, " ") + "\n")
	}
	for name, s := range map[string]string{"toy.txt": meta.String(), "corpus/toy.clean.txt": corpus.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestTextGCNStage(t *testing.T) {
	root := textGCNToyRoot(t, 240)
	for _, view := range []string{"transductive", "inductive_corpus"} {
		t.Run(view, func(t *testing.T) {
			g := learnRun(t, "dataset", map[string]any{"source": "textgcn", "name": "toy", "root": root, "view": view}, nil, 1, 2)["graph"]
			g = learnRun(t, "normalize", nil, map[string][]*bundle.Bundle{"graph": {g}}, 1, 2)["graph"]
			var tests []float64
			for _, workers := range []int{1, 2} {
				out := learnRun(t, "textgcn", map[string]any{"hidden": 16, "seed": 2}, map[string][]*bundle.Bundle{"graph": {g}}, 5, workers)
				var m map[string]any
				if err := out["metrics"].JSON(schema.MemberMetrics, &m); err != nil {
					t.Fatal(err)
				}
				want := map[string]string{"transductive": "transductive", "inductive_corpus": "inductive"}[view]
				if m["model"] != "textgcn" || m["setting"] != want {
					t.Errorf("metrics name model %v, setting %v; want textgcn, %s", m["model"], m["setting"], want)
				}
				test, _ := m["test"].(float64)
				if test < 0.85 {
					t.Errorf("test accuracy %v on the toy corpus, want ≥ 0.85", test)
				}
				tests = append(tests, test)
				w1, err := out["model"].Dense("W1")
				if err != nil {
					t.Fatal(err)
				}
				var info schema.GraphInfo
				if err := g.JSON(schema.MemberInfo, &info); err != nil {
					t.Fatal(err)
				}
				// One W1 row per node; in the inductive graph none for
				// the 60 test documents.
				wantRows := info.Nodes
				if view == "inductive_corpus" {
					wantRows -= 60
				}
				if r, c := w1.Dims(); r != wantRows || c != 16 {
					t.Errorf("W1 is %d×%d, want %d×16", r, c, wantRows)
				}
			}
			if tests[0] != tests[1] {
				t.Errorf("test accuracy %v with 1 worker, %v with 2", tests[0], tests[1])
			}
		})
	}
}

func TestTextGCNStageErrors(t *testing.T) {
	root := textGCNToyRoot(t, 60)
	raw := learnRun(t, "dataset", map[string]any{"source": "textgcn", "name": "toy", "root": root}, nil, 1, 1)["graph"]
	disease, _ := gnnGraph(t, true)
	for _, tc := range []struct {
		name  string
		graph *bundle.Bundle
		want  string
	}{
		{"unnormalised", raw, "not normalised"},
		{"not a corpus", disease, "not a corpus graph"},
	} {
		_, err := learnRunErr("textgcn", nil, map[string][]*bundle.Bundle{"graph": {tc.graph}}, 1, 1, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// The estimate covers TextGCN's arrays: it grows with the nodes and the
// hidden width (the measured peaks are in docs/text.md).
func TestMemTextGCN(t *testing.T) {
	in := func(n int) map[string][]registry.InputSize {
		return map[string][]registry.InputSize{"graph": {{Bytes: 1 << 20, Shapes: map[string][]int{schema.MemberAdj: {n, n}}}}}
	}
	vals := func(h int) registry.Values { return registry.Values{"hidden": h} }
	small, big, wide := memTextGCN(vals(200), in(1000)), memTextGCN(vals(200), in(10000)), memTextGCN(vals(400), in(10000))
	if want := int64(2<<20) + memBase + textGCNDenseArrays*10000*200*8; big != want {
		t.Errorf("estimate for 10 000 nodes %d, want %d", big, want)
	}
	if !(small < big && big < wide) {
		t.Errorf("estimates %d (1 000 nodes), %d (10 000), %d (hidden 400) do not grow", small, big, wide)
	}
}
