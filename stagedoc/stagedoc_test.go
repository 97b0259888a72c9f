package stagedoc

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testType has a slot of each sort, a required parameter, parameters
// with an enum, a range, a long default and long documentation.
var testType = &registry.Type{
	Name: "smooth", Version: "3",
	Doc: "Smooths a graph's features by repeated multiplication with the normalised adjacency matrix, " +
		"as SGC does, so that a linear classifier on the result sees each node's neighbourhood.",
	Inputs: []registry.Input{
		{Name: "graph", Kind: "graph", Doc: "the graph whose features are smoothed"},
		{Name: "extra", Kind: "features", Many: true, Optional: true},
	},
	Params: []registry.Param{
		{Name: "k", Type: registry.Int, Required: true, Range: registry.AtLeast(1), Doc: "number of multiplications"},
		{Name: "mode", Type: registry.String, Default: "sym", Enum: []string{"sym", "rw"}, Doc: "normalisation"},
		{Name: "names", Type: registry.Strings, Default: []string{"a-long-name", "another-long-name", "a-third"}},
		{Name: "weights", Type: registry.Floats, Default: []float64{0.5, 0.25}},
	},
	Outputs: []registry.Output{{Name: "features", Kind: "features", Doc: "S^k X, one row per node"}},
}

func TestDescribe(t *testing.T) {
	var b bytes.Buffer
	Describe(&b, testType)
	Functions(&b, []registry.Function{{Name: "present", Doc: "present(name) is true when the files of dataset name are on this machine"}})
	golden := filepath.Join("testdata", "describe.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if b.String() != string(want) {
		t.Errorf("differs from %s; got:\n%s\nwant:\n%s", golden, b.String(), want)
	}
	for i, line := range strings.Split(b.String(), "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("line %d has trailing blanks: %q", i+1, line)
		}
	}
	var none bytes.Buffer
	Functions(&none, nil)
	if none.Len() != 0 {
		t.Errorf("Functions(nil) wrote %q", none.String())
	}
}

func TestJSON(t *testing.T) {
	b, err := json.Marshal(JSON([]*registry.Type{testType}))
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	params := got[0]["params"].([]any)
	k, mode := params[0].(map[string]any), params[1].(map[string]any)
	if got[0]["name"] != "smooth" || got[0]["version"] != "3" || k["required"] != true || k["default"] != nil || k["range"] != "≥ 1" ||
		mode["default"] != "sym" || len(got[0]["inputs"].([]any)) != 2 || got[0]["inputs"].([]any)[1].(map[string]any)["many"] != true {
		t.Errorf("JSON: %s", b)
	}
	// Every registered stage type has a description and a JSON form.
	reg := stages.Default()
	for _, n := range reg.Names() {
		typ, _ := reg.Lookup(n)
		var d bytes.Buffer
		Describe(&d, typ)
		if !strings.HasPrefix(d.String(), n+" (version ") || !strings.Contains(d.String(), "  outputs:\n") {
			t.Errorf("%s: %s", n, d.String())
		}
		if j := JSON([]*registry.Type{typ}); len(j) != 1 || j[0].Outputs == nil || j[0].Params == nil || j[0].Inputs == nil {
			t.Errorf("%s: JSON %+v", n, j)
		}
	}
}
