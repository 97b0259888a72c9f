package pipelines_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/datasets/files/filestest"
	"github.com/hylaflow/hylaflow/datasets/synthetic"
	"github.com/hylaflow/hylaflow/runreport"
)

var updateExample = flag.Bool("update-example", false, "rewrite testdata/graph-example (graph.hcl's default graph)")

// exampleDir is graph.hcl's default data: a 300-node synthetic disease tree
// exported as a user would (string ids, shuffled, gzipped edge list with a
// header, features.csv, labels.csv with class names; no split).
const exampleDir = "../testdata/graph-example"

// writeExample writes the example graph into dir.
func writeExample(t *testing.T, dir string) {
	t.Helper()
	g, err := synthetic.GenerateDisease(synthetic.DiseaseOptions{Nodes: 300, Features: 4, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	if err := filestest.New(g, 5).EdgeList(dir); err != nil {
		t.Fatal(err)
	}
}

// TestGraphExampleIsGenerated: the committed example is what writeExample
// makes (go test ./pipelines -run GraphExample -update-example rewrites it).
func TestGraphExampleIsGenerated(t *testing.T) {
	if *updateExample {
		if err := os.RemoveAll(exampleDir); err != nil {
			t.Fatal(err)
		}
		writeExample(t, exampleDir)
	}
	fresh := t.TempDir()
	writeExample(t, fresh)
	for _, name := range []string{"edges.csv.gz", "features.csv", "labels.csv"} {
		a, err1 := os.ReadFile(filepath.Join(fresh, name))
		b, err2 := os.ReadFile(filepath.Join(exampleDir, name))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: committed example differs from the generated one (%v, %v); -update-example rewrites it", name, err1, err2)
		}
	}
}

// TestGraphPipelineTiny runs graph.hcl end to end as CI does, on the
// example graph with a reduced grid: it chooses one setting per model on
// validation, prints the four models' test accuracy and a verdict, and
// shows no paper value.
func TestGraphPipelineTiny(t *testing.T) {
	abs, err := filepath.Abs(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	p := load(t, "graph.hcl", map[string]string{"data": abs, "seeds": "[0,1,2]", "ks": "[1]", "scales": "[0.1,1]",
		"lr_es": "[1]", "lr_cs": "[0.1]", "sgc_lr_cs": "[0.1]", "gcn_hiddens": "[16]", "epochs": "30"})
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res := run(t, p, c)
	st := res.ByAddress["evaluate.graph"]
	if st == nil || len(st.Outputs) != 1 {
		t.Fatalf("evaluate.graph: %+v", st)
	}
	a, err := c.Load(st.Outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	md, err := a.(interface{ MemberFile(string) ([]byte, error) }).MemberFile("table.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runreport.WriteText(&out, md); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	t.Log("\n" + text)
	for _, want := range []string{"hyla-sgc", "rff-sgc", "sgc", "gcn", "over 3 runs", "chosen from 2 settings, mean val",
		"beyond the seeds' spread", "no paper value"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	if strings.Contains(text, "paper ") && !strings.Contains(text, "no paper value") {
		t.Error("the table shows a paper value")
	}
}
