package stages

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/registry"
)

func dataCheckParams(source, name, root string) registry.Values {
	return registry.Values{"source": source, "name": name, "root": root, "path": ""}
}

// TestDataCheckFiles: the files source needs a path and no catalogue name;
// the others need a name and take no path.
func TestDataCheckFiles(t *testing.T) {
	for _, c := range []struct {
		source, name, path, param, want string
	}{
		{"files", "", "data/mine", "", ""},
		{"files", "my graph", "data/mine", "", ""},
		{"files", "", "", "source", `Source "files" reads the graph at path: set path to its directory or file (see docs/your-graph.md).`},
		{"planetoid", "", "", "source", `Source "planetoid" needs name, one of cora, citeseer, pubmed (see ` + "`hylaflow datasets list`)."},
		{"planetoid", "cora", "data/mine", "path", `Only source "files" reads path; source "planetoid" reads its catalogued files under root.`},
	} {
		p := dataCheckParams(c.source, c.name, "")
		p["path"] = c.path
		probs := dataCheck(p)
		switch {
		case c.want == "" && len(probs) > 0:
			t.Errorf("%s %q %q: unexpected %+v", c.source, c.name, c.path, probs)
		case c.want != "" && (len(probs) != 1 || probs[0].Detail != c.want || probs[0].Param != c.param):
			t.Errorf("%s %q %q: got %+v, want on %s: %s", c.source, c.name, c.path, probs, c.param, c.want)
		}
	}
}

func TestDataCheck(t *testing.T) {
	cases := []struct{ source, name, want string }{
		{"planetoid", "cora", ""},
		{"planetoid", "Cora", ""},
		{"textgcn", "R8", ""},
		{"hgcn", "disease_nc", ""},
		{"synthetic", "disease", ""},
		{"synthetic", "synthetic_sbm", ""},
		{"reddit", "reddit", ""},
		{"planetoid", "corra", `unknown dataset "corra" for source "planetoid"; did you mean "cora"?`},
		{"textgcn", "R53", `unknown dataset "R53" for source "textgcn"; did you mean "r52"?`},
		{"planetoid", "airport", `dataset "airport" is of source "hgcn", not "planetoid"; set source = "hgcn".`},
		{"hgcn", "disease", `unknown dataset "disease" for source "hgcn"; it has disease_nc, disease_lp, airport (see ` + "`hylaflow datasets list`)."},
		{"synthetic", "tree", `unknown dataset "tree" for source "synthetic"; it has synthetic_disease, disease, synthetic_sbm, sbm (see ` + "`hylaflow datasets list`)."},
	}
	for _, c := range cases {
		probs := dataCheck(dataCheckParams(c.source, c.name, ""))
		switch {
		case c.want == "" && len(probs) > 0:
			t.Errorf("%s/%s: unexpected %+v", c.source, c.name, probs)
		case c.want != "" && (len(probs) != 1 || probs[0].Detail != c.want || probs[0].Param != "name" || probs[0].Warning):
			t.Errorf("%s/%s: got %+v, want an error on name: %s", c.source, c.name, probs, c.want)
		}
	}
}

func TestDataPreflight(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("HYLAFLOW_DATA", empty)
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // no fetched files either
	probs := dataPreflight(dataCheckParams("planetoid", "cora", ""))
	if len(probs) != 1 || !probs[0].Warning || probs[0].Param != "name" {
		t.Fatalf("got %+v, want one warning", probs)
	}
	d := probs[0].Detail
	for _, want := range []string{"Dataset cora: no data root holds its files; roots tried: " + empty + " ($HYLAFLOW_DATA): 8 missing: planetoid/ind.cora.x",
		"planetoid/ind.cora.tx and 5 more; ", "/hylaflow/datasets (user cache): 8 missing", "`hylaflow datasets fetch cora`", "set HYLAFLOW_DATA"} {
		if !strings.Contains(d, want) {
			t.Errorf("detail %q lacks %q", d, want)
		}
	}
	// Reddit's files cannot be downloaded; an explicit root is named as such.
	probs = dataPreflight(dataCheckParams("reddit", "reddit", empty))
	if len(probs) != 1 || !strings.Contains(probs[0].Detail, "`hylaflow datasets fetch --from DIR reddit`") ||
		!strings.Contains(probs[0].Detail, "point root at") {
		t.Errorf("reddit: %+v", probs)
	}
	// Generated datasets need nothing; unknown names are Check's business.
	for _, name := range []string{"disease", "nope"} {
		if probs := dataPreflight(dataCheckParams("synthetic", name, "")); len(probs) != 0 {
			t.Errorf("synthetic %s: %+v", name, probs)
		}
	}
	// Disease's feature file is optional: its absence is no warning.
	e, _ := datasets.Lookup("disease_nc")
	for _, f := range datasets.Required(e.Files) {
		path := filepath.Join(empty, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, f.Size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if probs := dataPreflight(dataCheckParams("hgcn", "disease_nc", "")); len(probs) != 0 {
		t.Errorf("disease_nc without its optional features: %+v", probs)
	}
}

// TestParamRanges holds every numeric parameter of the stage library to a
// declared range, except those listed here with the reason they have none.
func TestParamRanges(t *testing.T) {
	unbounded := map[string]string{
		"value.values": "any vector",
		"scale.factor": "any multiplier",
		"scale.offset": "any offset",
	}
	reg := Default()
	for _, name := range reg.Names() {
		typ, _ := reg.Lookup(name)
		for _, p := range typ.Params {
			switch p.Type {
			case registry.Int, registry.Float, registry.Ints, registry.Floats:
			default:
				continue
			}
			id := name + "." + p.Name
			_, free := unbounded[id]
			if p.Range == nil && !free {
				t.Errorf("%s (%s) declares no range", id, p.Type)
			}
			if p.Range != nil && free {
				t.Errorf("%s is listed as unbounded but declares %s", id, p.Range)
			}
		}
	}
}
