package bundle

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// systemPython is the interpreter with numpy and scipy (Debian's python3-numpy
// and python3-scipy); a pyenv python3 on PATH usually lacks them.
const systemPython = "/usr/bin/python3"

// needNumpy skips the test when numpy/scipy are unavailable, except on CI
// (CI=true), where the interop tests must run.
func needNumpy(t *testing.T) {
	t.Helper()
	out, err := exec.Command(systemPython, "-c", "import numpy, scipy.sparse").CombinedOutput()
	if err != nil {
		testenv.Missing(t, "needs numpy and scipy importable by %s (apt-get install python3-numpy python3-scipy): %s%v", systemPython, out, err)
	}
}

// pyReadScript loads an artifact with numpy.load and scipy.sparse.load_npz
// and prints what it found as JSON: float arrays as their IEEE bit patterns.
const pyReadScript = `
import json, sys, zipfile
import numpy as np, scipy.sparse as sp

path = sys.argv[1]
out = {"arrays": {}, "raw": {}}
def desc(a):
    d = {"dtype": a.dtype.str, "shape": list(a.shape)}
    if a.dtype.kind == "f":
        d["bits"] = [str(x) for x in np.ascontiguousarray(a, "<f8").reshape(-1).view("<u8").tolist()]
    elif a.dtype.kind == "i":
        d["ints"] = [str(x) for x in a.reshape(-1).tolist()]
    else:
        d["str"] = str(a)
    return d
with np.load(path, allow_pickle=False) as z:
    npy = {n[:-4] for n in zipfile.ZipFile(path).namelist() if n.endswith(".npy")}
    for k in z.files:
        if k in npy:
            out["arrays"][k] = desc(z[k])
        else:
            out["raw"][k] = z[k].hex()
    # a named sparse member, rebuilt from its flat members
    adj = sp.csr_matrix((z["adj.data"], z["adj.indices"], z["adj.indptr"]), shape=tuple(z["adj.shape"]))
    out["adj_dense"] = adj.toarray().tolist()
m = sp.load_npz(path)
out["load_npz"] = {"format": m.format, "shape": list(m.shape), "dense": m.toarray().tolist()}
print(json.dumps(out))
`

type pyArray struct {
	Dtype string   `json:"dtype"`
	Shape []int    `json:"shape"`
	Bits  []string `json:"bits"`
	Ints  []string `json:"ints"`
	Str   string   `json:"str"`
}

func TestNumpyScipyReadEncoded(t *testing.T) {
	needNumpy(t)
	a := sampleArtifact(t)
	path := filepath.Join(t.TempDir(), "sample.artifact")
	if err := os.WriteFile(path, encode(t, a), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(systemPython, "-c", pyReadScript, path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var res struct {
		Arrays   map[string]pyArray `json:"arrays"`
		Raw      map[string]string  `json:"raw"`
		AdjDense [][]float64        `json:"adj_dense"`
		LoadNpz  struct {
			Format string      `json:"format"`
			Shape  []int       `json:"shape"`
			Dense  [][]float64 `json:"dense"`
		} `json:"load_npz"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("python output: %v\n%s", err, out)
	}
	if len(res.Arrays) != 27 || len(res.Raw) != 4 {
		t.Errorf("numpy.load found %d arrays and %d raw members, want 27 and 4 (3 json/file members + the manifest)", len(res.Arrays), len(res.Raw))
	}
	bitsOf := func(v []float64) []string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = uintString(math.Float64bits(x))
		}
		return s
	}
	intsOf := func(v []int) []string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = intString(int64(x))
		}
		return s
	}
	check := func(key, dtype string, shape []int, bits, ints []string) {
		t.Helper()
		got, ok := res.Arrays[key]
		if !ok {
			t.Errorf("numpy.load has no array %q (have %v)", key, res.Arrays)
			return
		}
		if got.Dtype != dtype || !equalStrings(intStrings(got.Shape), intStrings(shape)) ||
			!equalStrings(got.Bits, bits) || !equalStrings(got.Ints, ints) {
			t.Errorf("numpy %q = %+v, want dtype %s shape %v bits %v ints %v", key, got, dtype, shape, bits, ints)
		}
	}
	for _, n := range a.Names() {
		v, _ := a.Member(n)
		switch m := v.(type) {
		case *mat.Dense:
			r, c, d := denseRows(m)
			check(n, "<f8", []int{r, c}, bitsOf(d), nil)
		case []float64:
			check(n, "<f8", []int{len(m)}, bitsOf(m), nil)
		case []int:
			check(n, "<i8", []int{len(m)}, nil, intsOf(m))
		case *sparse.CSR:
			p := n + "."
			if n == "" {
				p = ""
			}
			check(p+"data", "<f8", []int{len(m.Data)}, bitsOf(m.Data), nil)
			idx := make([]int, len(m.Indices))
			for i, x := range m.Indices {
				idx[i] = int(x)
			}
			check(p+"indices", "<i4", []int{len(idx)}, nil, intsOf(idx))
			check(p+"indptr", "<i8", []int{len(m.Indptr)}, nil, intsOf(m.Indptr))
			check(p+"shape", "<i8", []int{2}, nil, intsOf([]int{m.Rows, m.Cols}))
			if got := res.Arrays[p+"format"]; got.Dtype != "<U3" || got.Str != "csr" || len(got.Shape) != 0 {
				t.Errorf("numpy %q = %+v, want the 0-d '<U3' string csr", p+"format", got)
			}
		case json.RawMessage:
			if res.Raw[n+".json"] != hex.EncodeToString(m) {
				t.Errorf("numpy raw %q = %s, want %x", n+".json", res.Raw[n+".json"], []byte(m))
			}
		case []byte:
			if got, ok := res.Raw[n]; !ok || got != hex.EncodeToString(m) {
				t.Errorf("numpy raw %q = %q (present %v), want %x", n, got, ok, m)
			}
		}
	}
	if got := res.Raw[ManifestName]; got == "" {
		t.Errorf("numpy.load does not list the manifest")
	}
	wantAdj := [][]float64{{1.5, 0, 0, -2}, {0, 0, 0, 0}, {0, 7, 0, 0}}
	if !equalMatrix(res.AdjDense, wantAdj) {
		t.Errorf("scipy adj = %v, want %v", res.AdjDense, wantAdj)
	}
	wantUnnamed := [][]float64{{0, 0, 4}, {5, 6, 0}}
	if res.LoadNpz.Format != "csr" || !equalMatrix(res.LoadNpz.Dense, wantUnnamed) || len(res.LoadNpz.Shape) != 2 || res.LoadNpz.Shape[0] != 2 || res.LoadNpz.Shape[1] != 3 {
		t.Errorf("scipy.sparse.load_npz = %+v, want csr %v", res.LoadNpz, wantUnnamed)
	}
}

// pyWriteScript writes a matrix with scipy.sparse.save_npz (int32 indices
// and indptr, zip64 extras) and adds the manifest, as a user might.
const pyWriteScript = `
import json, sys, zipfile
import numpy as np, scipy.sparse as sp
path = sys.argv[1]
m = sp.csr_matrix(np.array([[0, 1.5, 0], [0, 0, 0], [2, 0, -3.25], [0, 0, 1e-10]]))
sp.save_npz(path, m, compressed=False)
with zipfile.ZipFile(path, "a", zipfile.ZIP_STORED) as z:
    z.writestr("__artifact__.json", json.dumps({"version": 1, "kind": "features", "members": {"": "sparse"}}))
`

func TestDecodeScipyWritten(t *testing.T) {
	needNumpy(t)
	path := filepath.Join(t.TempDir(), "scipy.npz")
	if out, err := exec.Command(systemPython, "-c", pyWriteScript, path).CombinedOutput(); err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := decode(t, b)
	m, err := a.Sparse("")
	if err != nil {
		t.Fatal(err)
	}
	want := &sparse.CSR{Rows: 4, Cols: 3, Indptr: []int{0, 1, 1, 3, 4}, Indices: []int32{1, 0, 2, 2}, Data: []float64{1.5, 2, -3.25, 1e-10}}
	if a.Kind() != KindFeatures || m.Rows != want.Rows || m.Cols != want.Cols || intString(int64(len(m.Indptr))) != "5" ||
		!equalStrings(intStrings(m.Indptr), intStrings(want.Indptr)) || !sameFloats(m.Data, want.Data) {
		t.Errorf("decoded %+v (kind %s), want %+v", m, a.Kind(), want)
	}
	for i := range want.Indices {
		if m.Indices[i] != want.Indices[i] {
			t.Errorf("indices %v, want %v", m.Indices, want.Indices)
			break
		}
	}
}

func uintString(u uint64) string { return strconv.FormatUint(u, 10) }

func intString(x int64) string { return strconv.FormatInt(x, 10) }

func intStrings(v []int) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = intString(int64(x))
	}
	return s
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalMatrix(a, b [][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameFloats(a[i], b[i]) {
			return false
		}
	}
	return true
}

// pyGraphScript opens the files WriteMember made from a graph artifact:
// the adjacency with scipy.sparse.load_npz, the features and labels with
// numpy.load, and the whole artifact with numpy.load.
const pyGraphScript = `
import json, sys
import numpy as np, scipy.sparse as sp
adj_path, feat_path, labels_path, whole = sys.argv[1:5]
adj = sp.load_npz(adj_path)
out = {
    "adj": {"format": adj.format, "shape": list(adj.shape), "dense": adj.toarray().tolist()},
    "features": np.load(feat_path).tolist(),
    "labels": [int(x) for x in np.load(labels_path)],
}
with np.load(whole) as z:
    out["whole"] = sorted(z.files)
print(json.dumps(out))
`

// TestScipyReadsGraphMembers: a graph artifact laid out as the dataset
// stages make it (schema.go) exports its adjacency as an .npz that
// scipy.sparse.load_npz reads, and its dense members as .npy files.
func TestScipyReadsGraphMembers(t *testing.T) {
	needNumpy(t)
	g := New(KindGraph)
	adj := &sparse.CSR{Rows: 4, Cols: 4, Indptr: []int{0, 1, 3, 4, 4}, Indices: []int32{1, 0, 2, 1}, Data: []float64{1, 1, 0.5, 0.5}}
	g.SetSparse(MemberAdj, adj)
	g.SetDense(MemberFeatures, mat.NewDense(4, 2, []float64{0.25, 1, -1, 0, 3, math.Pi, 0, 1e-300}))
	g.SetInts(MemberLabels, []int{0, 1, -1, 2})
	g.SetInts(MemberTrain, []int{0, 1})
	if err := g.SetJSON(MemberInfo, GraphInfo{Name: "toy", Nodes: 4, Classes: 3, Normalization: "none"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(member, wantExt string) string {
		var b bytes.Buffer
		ext, err := WriteMember(&b, g, member)
		if err != nil || ext != wantExt {
			t.Fatalf("WriteMember(%q): %q, %v; want %q", member, ext, err, wantExt)
		}
		p := filepath.Join(dir, member+ext)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	adjPath, featPath, labelsPath := write(MemberAdj, ".npz"), write(MemberFeatures, ".npy"), write(MemberLabels, ".npy")
	whole := filepath.Join(dir, "graph.npz")
	if err := os.WriteFile(whole, encode(t, g), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(systemPython, "-c", pyGraphScript, adjPath, featPath, labelsPath, whole)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var res struct {
		Adj struct {
			Format string      `json:"format"`
			Shape  []int       `json:"shape"`
			Dense  [][]float64 `json:"dense"`
		} `json:"adj"`
		Features [][]float64 `json:"features"`
		Labels   []int       `json:"labels"`
		Whole    []string    `json:"whole"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("python output: %v\n%s", err, out)
	}
	wantAdj := [][]float64{{0, 1, 0, 0}, {1, 0, 0.5, 0}, {0, 0.5, 0, 0}, {0, 0, 0, 0}}
	if res.Adj.Format != "csr" || len(res.Adj.Shape) != 2 || res.Adj.Shape[0] != 4 || res.Adj.Shape[1] != 4 || !equalMatrix(res.Adj.Dense, wantAdj) {
		t.Errorf("load_npz(adj): %+v, want csr 4×4 %v", res.Adj, wantAdj)
	}
	wantFeat := [][]float64{{0.25, 1}, {-1, 0}, {3, math.Pi}, {0, 1e-300}}
	if !equalMatrix(res.Features, wantFeat) {
		t.Errorf("numpy.load(features) = %v, want %v", res.Features, wantFeat)
	}
	if fmt.Sprint(res.Labels) != "[0 1 -1 2]" {
		t.Errorf("numpy.load(labels) = %v, want [0 1 -1 2]", res.Labels)
	}
	wantWhole := "[__artifact__.json adj.data adj.format adj.indices adj.indptr adj.shape features info.json labels train]"
	if fmt.Sprint(res.Whole) != wantWhole {
		t.Errorf("numpy.load(graph artifact).files = %v, want %s", res.Whole, wantWhole)
	}
	// The .npz of one member decodes as an artifact again, with the matrix.
	b, err := os.ReadFile(adjPath)
	if err != nil {
		t.Fatal(err)
	}
	back, err := decode(t, b).Sparse("")
	if err != nil || fmt.Sprint(back.Indptr, back.Indices, back.Data) != fmt.Sprint(adj.Indptr, adj.Indices, adj.Data) {
		t.Errorf("decoded member .npz: %+v, %v; want %+v", back, err, adj)
	}
	if _, err := WriteMember(&bytes.Buffer{}, g, "nope"); err == nil || !strings.Contains(err.Error(), `no member "nope"`) {
		t.Errorf("WriteMember of a missing member: %v", err)
	}
}
