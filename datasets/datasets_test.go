package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestHGCNSplit(t *testing.T) {
	// 30 positives (labels 1..3), 70 negatives, 5 unlabelled.
	labels := make([]int, 105)
	for i := range labels {
		switch {
		case i < 30:
			labels[i] = 1 + i%3
		case i < 100:
			labels[i] = 0
		default:
			labels[i] = -1
		}
	}
	train, val, test, err := HGCNSplit(labels, 0.15, 0.6, 4)
	if err != nil {
		t.Fatal(err)
	}
	// m = 30: n_val = round(4.5) = 4 (half to even, as Python), n_test = 18 per group.
	if len(val) != 8 || len(test) != 36 || len(train) != 100-44 {
		t.Fatalf("sizes %d/%d/%d", len(train), len(val), len(test))
	}
	pos := func(s []int) int {
		c := 0
		for _, i := range s {
			if labels[i] > 0 {
				c++
			}
		}
		return c
	}
	if pos(val) != 4 || pos(test) != 18 {
		t.Fatalf("val/test not balanced: %d %d positives", pos(val), pos(test))
	}
	all := slices.Concat(train, val, test)
	slices.Sort(all)
	if len(slices.Compact(all)) != 100 || all[len(all)-1] != 99 {
		t.Fatal("split is not a partition of the labelled nodes")
	}
	tr2, _, _, _ := HGCNSplit(labels, 0.15, 0.6, 4)
	tr3, _, _, _ := HGCNSplit(labels, 0.15, 0.6, 5)
	if !slices.Equal(train, tr2) || slices.Equal(train, tr3) {
		t.Fatal("split not determined by the seed")
	}
	if _, _, _, err := HGCNSplit(labels, 0.6, 0.6, 0); err == nil {
		t.Error("proportions > 1: no error")
	}
	rtr, rv, rte, err := RandomSplit(labels, 0.1, 0.2, 1)
	if err != nil || len(rv) != 10 || len(rte) != 20 || len(rtr) != 70 {
		t.Fatalf("random split %d/%d/%d %v", len(rtr), len(rv), len(rte), err)
	}
}

func TestRoundHalfEven(t *testing.T) {
	for x, want := range map[float64]int{0.5: 0, 1.5: 2, 2.5: 2, 21.1: 21, 126.6: 127, 78.15: 78} {
		if got := roundHalfEven(x); got != want {
			t.Errorf("round(%v) = %d, want %d", x, got, want)
		}
	}
}

func TestCountEdgesAndSymmetric(t *testing.T) {
	// Directed entries 0→1, 1→0, 2→1 (one direction only), 3→3 (loop).
	a, _ := sparse.FromCOO(4, 4, []int{0, 1, 2, 3}, []int{1, 0, 1, 3}, nil)
	if got := CountEdges(a); got != 2 {
		t.Fatalf("CountEdges = %d, want 2", got)
	}
	s, err := SymmetricFromEdges(4, []int{0, 1, 2, 3, 0}, []int{1, 0, 1, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsSymmetric() || s.NNZ() != 4 || s.At(3, 3) != 0 || s.At(0, 1) != 1 {
		t.Fatalf("SymmetricFromEdges: %v", s.ToDense())
	}
}

func TestStandardizeColumns(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{1, 5, 2, 5, 3, 5, 100, 7})
	z := StandardizeColumns(x, []int{0, 1, 2})
	col := mat.Col(nil, 0, z)
	if math.Abs(stat.Mean(col[:3], nil)) > 1e-15 || math.Abs(stat.PopStdDev(col[:3], nil)-1) > 1e-12 {
		t.Fatalf("train rows not standardised: %v", col)
	}
	if math.Abs(z.At(3, 0)-(100-2)/math.Sqrt(2.0/3)) > 1e-9 {
		t.Fatalf("test row uses the training statistics: %v", z.At(3, 0))
	}
	if z.At(0, 1) != 0 || z.At(3, 1) != 2 {
		t.Fatalf("constant column: %v %v", z.At(0, 1), z.At(3, 1))
	}
}

func TestFetch(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	content := []byte("0,1\n1,2\n")
	sum := sha256.Sum256(content)
	good := hex.EncodeToString(sum[:])
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write(content)
	}))
	defer srv.Close()
	ctx := context.Background()
	dest := t.TempDir()
	f := File{Path: "hgcn/x/x.edges.csv", URL: srv.URL + "/x", Size: int64(len(content)), SHA256: good}
	if err := Fetch(ctx, []File{f}, dest, FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dest, f); err != nil {
		t.Fatal(err)
	}
	// Readable by the other users of a shared data root: 0666 less the
	// umask (022 here), not a temp file's 0600.
	if st, err := os.Stat(filepath.Join(dest, f.Path)); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("fetched file: mode %v (%v), want -rw-r--r--", st.Mode(), err)
	}
	for _, tc := range []struct {
		name string
		f    File
		opts FetchOptions
		want string
	}{
		{"bad checksum", File{Path: "a/b", URL: srv.URL + "/x", Size: int64(len(content)), SHA256: strings.Repeat("0", 64)}, FetchOptions{}, "sha256"},
		{"bad size", File{Path: "a/c", URL: srv.URL + "/x", Size: 3, SHA256: good}, FetchOptions{}, "want 3"},
		{"404", File{Path: "a/d", URL: srv.URL + "/missing", SHA256: good}, FetchOptions{}, "404"},
		{"unverified refused", File{Path: "a/e", URL: srv.URL + "/x"}, FetchOptions{}, "--allow-unverified"},
		{"no url", File{Path: "a/f", SHA256: good}, FetchOptions{}, "--from"},
		{"escaping path", File{Path: "../evil", URL: srv.URL + "/x", SHA256: good}, FetchOptions{}, "inside the data root"},
	} {
		err := Fetch(ctx, []File{tc.f}, dest, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if _, serr := os.Stat(filepath.Join(dest, tc.f.Path)); serr == nil {
			t.Errorf("%s: a file was left behind", tc.name)
		}
	}
	// --allow-unverified and --from.
	if err := Fetch(ctx, []File{{Path: "a/g", URL: srv.URL + "/x"}}, dest, FetchOptions{AllowUnverified: true}); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := Fetch(ctx, []File{{Path: f.Path, SHA256: good}}, other, FetchOptions{From: dest}); err != nil {
		t.Fatal(err)
	}
	if err := Verify(other, f); err != nil {
		t.Fatal(err)
	}
}

func TestCatalogFilesHaveChecksums(t *testing.T) {
	for _, e := range Catalog() {
		for _, f := range e.Files {
			if f.URL != "" && f.SHA256 == "" && e.Name != "disease_nc" {
				t.Errorf("%s: %s has a URL but no checksum", e.Name, f.Path)
			}
		}
	}
	// Against the shared datasets, every listed file with a checksum verifies.
	root := testenv.Data(t)
	checked := 0
	for _, e := range Catalog() {
		present, _ := e.Present(root)
		for _, f := range present {
			if f.SHA256 == "" {
				continue
			}
			if err := Verify(root, f); err != nil {
				t.Error(err)
			}
			checked++
		}
	}
	if checked < 30 {
		t.Errorf("only %d files verified", checked)
	}
}

func TestHyperbolicity(t *testing.T) {
	ctx := context.Background()
	// A path and a tree are 0-hyperbolic.
	n := 200
	var us, vs []int
	for i := 1; i < n; i++ {
		us = append(us, (i-1)/3)
		vs = append(vs, i)
	}
	tree, _ := SymmetricFromEdges(n, us, vs)
	h, err := EstimateHyperbolicity(ctx, tree, 50, 20000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if h.Delta != 0 || h.Component != n || h.Diameter == 0 {
		t.Fatalf("tree: %+v", h)
	}
	// A cycle of length 4k has δ = k (four points at distance k apart; all landmarks sampled).
	m := 40
	us, vs = nil, nil
	for i := 0; i < m; i++ {
		us = append(us, i)
		vs = append(vs, (i+1)%m)
	}
	cyc, _ := SymmetricFromEdges(m, us, vs)
	h, err = EstimateHyperbolicity(ctx, cyc, m, 200000, 2)
	if err != nil {
		t.Fatal(err)
	}
	if h.Delta != 10 || h.Diameter != 20 || h.Relative != 1 {
		t.Fatalf("cycle C40: %+v, want δ = 10, diameter 20", h)
	}
}

// TestCountEdgesRandom compares CountEdges with a set of pairs on random
// graphs with one-directional entries and self loops: sorted rows (the
// parallel binary-search path, several row blocks), unsorted rows and
// repeated entries (the transposing path).
func TestCountEdgesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 9000
	var ri, ci []int
	pairs := map[[2]int]bool{}
	for e := 0; e < 90000; e++ {
		i, j := rng.IntN(n), rng.IntN(n)
		if rng.IntN(50) == 0 {
			j = i
		}
		ri, ci = append(ri, i), append(ci, j)
		if rng.IntN(3) > 0 { // two thirds of the entries in both directions
			ri, ci = append(ri, j), append(ci, i)
		}
		if i != j {
			pairs[[2]int{min(i, j), max(i, j)}] = true
		}
	}
	a, err := sparse.FromCOO(n, n, ri, ci, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := CountEdges(a); got != len(pairs) {
		t.Fatalf("sorted rows: CountEdges = %d, want %d", got, len(pairs))
	}
	// The same entries with every row reversed and its first entry repeated.
	u := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		idx := slices.Clone(a.Indices[a.Indptr[i]:a.Indptr[i+1]])
		slices.Reverse(idx)
		if len(idx) > 0 {
			idx = append(idx, idx[0])
		}
		u.Indices = append(u.Indices, idx...)
		u.Indptr[i+1] = len(u.Indices)
	}
	u.Data = make([]float64, len(u.Indices))
	if got := CountEdges(u); got != len(pairs) {
		t.Fatalf("unsorted rows: CountEdges = %d, want %d", got, len(pairs))
	}
}

// TestStandardizeColumnsParallel: the parallel statistics and output equal
// a one-goroutine reference bit for bit (each column summed over the rows
// in their order), with a row subset and a constant column.
func TestStandardizeColumnsParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const r, c = 3000, 401
	x := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			x.Set(i, j, rng.NormFloat64()*float64(j+1)+float64(j))
		}
		x.Set(i, 7, 3.5)
	}
	for _, rows := range [][]int{nil, rng.Perm(r)[:2000]} {
		sel := rows
		if sel == nil {
			sel = make([]int, r)
			for i := range sel {
				sel[i] = i
			}
		}
		mean := make([]float64, c)
		for _, i := range sel {
			for j := 0; j < c; j++ {
				mean[j] += x.At(i, j)
			}
		}
		vr := make([]float64, c)
		for j := range mean {
			mean[j] /= float64(len(sel))
			for _, i := range sel {
				d := x.At(i, j) - mean[j]
				vr[j] += d * d
			}
		}
		got := StandardizeColumns(x, rows)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				scale := 1.0
				if sd := math.Sqrt(vr[j] / float64(len(sel))); sd != 0 {
					scale = 1 / sd
				}
				want := (x.At(i, j) - mean[j]) * scale
				if g := got.At(i, j); math.Float64bits(g) != math.Float64bits(want) {
					t.Fatalf("rows %d: (%d,%d) = %v, want %v", len(sel), i, j, g, want)
				}
			}
		}
	}
}

// A root is found without the files marked Optional (Disease's features),
// never without a required one; Present still reports the optional file.
func TestFindRootOptionalFiles(t *testing.T) {
	e, ok := Lookup("disease_nc")
	if !ok {
		t.Fatal("disease_nc is not in the catalogue")
	}
	var optional []string
	for _, f := range e.Files {
		if f.Optional {
			optional = append(optional, f.Path)
		}
	}
	if want := []string{"hgcn/disease_nc/disease_nc.feats.npz"}; !slices.Equal(optional, want) {
		t.Fatalf("optional files %q, want %q", optional, want)
	}
	root := t.TempDir()
	t.Setenv("HYLAFLOW_DATA", root)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	write := func(f File) {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, f.Size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := e.FindRoot(); r != "" {
		t.Fatalf("FindRoot = %q with no files", r)
	}
	write(e.Files[0]) // the edges, not the labels
	if r := e.FindRoot(); r != "" {
		t.Errorf("FindRoot = %q without the labels", r)
	}
	write(e.Files[1])
	if r := e.FindRoot(); r != root {
		t.Errorf("FindRoot = %q with edges and labels, want %q", r, root)
	}
	_, missing := e.Present(root)
	if len(missing) != 1 || !missing[0].Optional || len(Required(missing)) != 0 {
		t.Errorf("Present reports missing %+v, want the optional feature file alone", missing)
	}
}
