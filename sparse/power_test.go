package sparse

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// refMul is m·x computed entry by entry in plain Go: each entry is the sum of
// the row's rounded products in stored order, the arithmetic the package
// promises whatever kernel, column blocking or worker count it uses.
func refMul(m *CSR, x [][]float64) [][]float64 {
	out := make([][]float64, m.Rows)
	for i := range out {
		out[i] = make([]float64, len(x[0]))
		for c := range out[i] {
			acc := 0.0
			for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
				acc += float64(m.Data[p] * x[m.Indices[p]][c])
			}
			out[i][c] = acc
		}
	}
	return out
}

// TestPowerDenseBitIdentical checks MulDense and PowerDense bit for bit
// against refMul for widths around the kernels' 8- and 32-column runs and
// the column blocks, several powers and worker counts.
func TestPowerDenseBitIdentical(t *testing.T) {
	t.Run("whole", testPowerDenseBitIdentical)
	// Segments of 40 rows of a 32-column block, and MulDense's segments of
	// 64 KiB of x's rows (8 to 8192 rows, by width): the segmented products.
	defer func(b, mb int) { spmmSegmentBytes, mulSegmentBytes = b, mb }(spmmSegmentBytes, mulSegmentBytes)
	spmmSegmentBytes, mulSegmentBytes = 40*32*8, 64<<10
	t.Run("segmented", testPowerDenseBitIdentical)
}

// TestMulDenseSegmentsUnsorted checks that MulDense with small segments
// gives refMul's bits on a sorted matrix (segmented) and on the same one
// with its rows shuffled (one pass), for 1 and 3 workers.
func TestMulDenseSegmentsUnsorted(t *testing.T) {
	defer func(mb int) { mulSegmentBytes = mb }(mulSegmentBytes)
	mulSegmentBytes = 8 * 8 * 8 // 8 rows of an 8-column x
	rng := rand.New(rand.NewPCG(31, 32))
	sorted := randCSR(rng, 300, 200, 0.05)
	unsorted := sorted.Clone()
	for i := 0; i < unsorted.Rows; i++ {
		lo, hi := unsorted.Indptr[i], unsorted.Indptr[i+1]
		rng.Shuffle(hi-lo, func(a, b int) {
			unsorted.Indices[lo+a], unsorted.Indices[lo+b] = unsorted.Indices[lo+b], unsorted.Indices[lo+a]
			unsorted.Data[lo+a], unsorted.Data[lo+b] = unsorted.Data[lo+b], unsorted.Data[lo+a]
		})
	}
	x := randDense(rng, 200, 8)
	rows := make([][]float64, 200)
	for i := range rows {
		rows[i] = mat.Row(nil, i, x)
	}
	for _, m := range []*CSR{sorted, unsorted} {
		want := refMul(m, rows)
		for _, workers := range []int{1, 3} {
			got, err := MulDense(context.Background(), m, x, workers)
			if err != nil {
				t.Fatal(err)
			}
			for i, row := range want {
				for c, w := range row {
					if g := got.At(i, c); math.Float64bits(g) != math.Float64bits(w) {
						t.Fatalf("sorted=%v, %d workers: (%d,%d) = %v, want %v", m == sorted, workers, i, c, g, w)
					}
				}
			}
		}
	}
}

func testPowerDenseBitIdentical(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 12))
	s, err := SymNormalize(randGraph(rng, 700, 0.01))
	if err != nil {
		t.Fatal(err)
	}
	for _, cols := range []int{1, 7, 8, 17, 31, 32, 33, 64, 101} {
		x := randDense(rng, s.Rows, cols)
		rows := make([][]float64, s.Rows)
		for i := range rows {
			rows[i] = mat.Row(nil, i, x)
		}
		want := rows
		for k := 1; k <= 3; k++ {
			want = refMul(s, want)
			for _, workers := range []int{1, 2, 3} {
				t.Run(fmt.Sprintf("cols=%d/k=%d/workers=%d", cols, k, workers), func(t *testing.T) {
					got, err := PowerDense(ctx, s, x, k, workers)
					if err != nil {
						t.Fatal(err)
					}
					if k == 1 {
						if got, err = MulDense(ctx, s, x, workers); err != nil {
							t.Fatal(err)
						}
					}
					for i, row := range want {
						for c, w := range row {
							if g := got.At(i, c); math.Float64bits(g) != math.Float64bits(w) {
								t.Fatalf("(%d,%d) = %v (%#x), want %v (%#x)", i, c, g, math.Float64bits(g), w, math.Float64bits(w))
							}
						}
					}
				})
			}
		}
	}
}

// TestTransposeAnyWorkers checks the parallel transpose against the
// sequential definition (entries of each row of mᵀ in increasing row order
// of m) for several worker counts, including unsorted input rows and empty
// rows and columns.
func TestTransposeAnyWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	big := randCSR(rng, 900, 700, 0.25) // ~157k entries: split into parts
	unsorted := big.Clone()
	for i := 0; i < unsorted.Rows; i++ {
		lo, hi := unsorted.Indptr[i], unsorted.Indptr[i+1]
		rng.Shuffle(hi-lo, func(a, b int) {
			unsorted.Indices[lo+a], unsorted.Indices[lo+b] = unsorted.Indices[lo+b], unsorted.Indices[lo+a]
			unsorted.Data[lo+a], unsorted.Data[lo+b] = unsorted.Data[lo+b], unsorted.Data[lo+a]
		})
	}
	for _, tc := range []struct {
		name string
		m    *CSR
	}{
		{"big", big}, {"unsorted rows", unsorted}, {"small", randCSR(rng, 30, 50, 0.1)},
		{"empty", &CSR{Rows: 4, Cols: 3, Indptr: make([]int, 5)}},
	} {
		// The sequential definition.
		want := &CSR{Rows: tc.m.Cols, Cols: tc.m.Rows, Indptr: make([]int, tc.m.Cols+1)}
		for c := 0; c < tc.m.Cols; c++ {
			for i := 0; i < tc.m.Rows; i++ {
				for p := tc.m.Indptr[i]; p < tc.m.Indptr[i+1]; p++ {
					if int(tc.m.Indices[p]) == c {
						want.Indices = append(want.Indices, int32(i))
						want.Data = append(want.Data, tc.m.Data[p])
					}
				}
			}
			want.Indptr[c+1] = len(want.Data)
		}
		for _, workers := range []int{1, 2, 3, 8} {
			got := tc.m.transpose(workers)
			if err := got.Validate(); err != nil {
				t.Fatalf("%s, %d workers: %v", tc.name, workers, err)
			}
			if got.NNZ() != want.NNZ() || !slices.Equal(got.Indptr, want.Indptr) ||
				(want.NNZ() > 0 && (!slices.Equal(got.Indices, want.Indices) || !slices.Equal(got.Data, want.Data))) {
				t.Fatalf("%s, %d workers: transpose differs from the sequential one", tc.name, workers)
			}
		}
	}
}

// TestCanonicalMatchesFromCOO: Canonical sorts unsorted rows and sums
// repeated columns in stored order, exactly as FromCOO builds the matrix
// from the same entries.
func TestCanonicalMatchesFromCOO(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const rows, cols = 60, 25
	m := &CSR{Rows: rows, Cols: cols, Indptr: make([]int, rows+1)}
	var ri, ci []int
	for i := 0; i < rows; i++ {
		for e := rng.IntN(12); e > 0; e-- {
			c := rng.IntN(cols)
			m.Indices = append(m.Indices, int32(c))
			m.Data = append(m.Data, rng.NormFloat64())
			ri, ci = append(ri, i), append(ci, c)
		}
		m.Indptr[i+1] = len(m.Data)
	}
	if m.CheckSorted() == nil {
		t.Fatal("the test matrix happens to be canonical")
	}
	want, err := FromCOO(rows, cols, ri, ci, m.Data)
	if err != nil {
		t.Fatal(err)
	}
	orig := m.Clone()
	got := m.Canonical()
	if !slices.Equal(got.Indptr, want.Indptr) || !slices.Equal(got.Indices, want.Indices) || !slices.Equal(got.Data, want.Data) {
		t.Fatal("Canonical differs from FromCOO")
	}
	if !slices.Equal(m.Indices, orig.Indices) || !slices.Equal(m.Data, orig.Data) {
		t.Fatal("Canonical modified its receiver")
	}
	if c := want.Canonical(); c != want {
		t.Fatal("Canonical of a canonical matrix is not the matrix itself")
	}
}

// TestPowerSparseMatchesPowerDense: m^k·x from a sparse x (some rows
// unsorted) equals PowerDense of x.ToDense() bit for bit,
// whole and segmented, for widths across the 32-column blocks.
func TestPowerSparseMatchesPowerDense(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(41, 42))
	s, err := SymNormalize(randGraph(rng, 500, 0.01))
	if err != nil {
		t.Fatal(err)
	}
	for _, seg := range []int{spmmSegmentBytes, 40 * 32 * 8} {
		defer func(b int) { spmmSegmentBytes = b }(spmmSegmentBytes)
		spmmSegmentBytes = seg
		for _, cols := range []int{1, 9, 32, 70} {
			x := randCSR(rng, s.Rows, cols, 0.05)
			// Reverse every third row: unsorted rows.
			for i := 0; i < x.Rows; i += 3 {
				lo, hi := x.Indptr[i], x.Indptr[i+1]
				slices.Reverse(x.Indices[lo:hi])
				slices.Reverse(x.Data[lo:hi])
			}
			for k := 0; k <= 3; k++ {
				want, err := PowerDense(ctx, s, x.ToDense(), k, 1)
				if err != nil {
					t.Fatal(err)
				}
				for _, workers := range []int{1, 2, 3} {
					got, err := PowerSparse(ctx, s, x, k, workers)
					if err != nil {
						t.Fatal(err)
					}
					wr, wc := want.Dims()
					for i := 0; i < wr; i++ {
						for j := 0; j < wc; j++ {
							if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
								t.Fatalf("seg %d cols %d k %d workers %d: (%d,%d) = %v, want %v", seg, cols, k, workers, i, j, g, w)
							}
						}
					}
				}
			}
		}
	}
	if _, err := PowerSparse(ctx, s, randCSR(rng, 7, 3, 0.5), 2, 1); err == nil {
		t.Error("mismatched shapes: no error")
	}
}

// TestPowerDenseLargeScratch runs PowerDense with block buffers above
// scratchMin (mapped outside the Go heap on Linux), whole and segmented,
// against refMul bit for bit, and checks scratch itself.
func TestPowerDenseLargeScratch(t *testing.T) {
	buf, free := scratch(3 << 20) // 24 MiB
	for i := range buf {
		if buf[i] != 0 {
			t.Fatalf("scratch not zeroed at %d", i)
		}
		buf[i] = float64(i)
	}
	if buf[len(buf)-1] != float64(len(buf)-1) {
		t.Fatal("scratch lost a write")
	}
	free()

	ctx := context.Background()
	rng := rand.New(rand.NewPCG(61, 62))
	const n, cols = 20000, 40
	var ri, ci []int
	for i := 0; i < n; i++ {
		for e := 0; e < 3; e++ {
			j := rng.IntN(n)
			ri, ci = append(ri, i, j), append(ci, j, i)
		}
	}
	a, err := FromCOO(n, n, ri, ci, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := SymNormalize(a)
	if err != nil {
		t.Fatal(err)
	}
	x := randDense(rng, n, cols)
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = mat.Row(nil, i, x)
	}
	want := refMul(s, refMul(s, rows))
	for _, seg := range []int{spmmSegmentBytes, 1 << 20} {
		defer func(b int) { spmmSegmentBytes = b }(spmmSegmentBytes)
		spmmSegmentBytes = seg
		got, err := PowerDense(ctx, s, x, 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range want {
			for c, w := range row {
				if g := got.At(i, c); math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("segment %d bytes: (%d,%d) = %v, want %v", seg, i, c, g, w)
				}
			}
		}
	}
}

// TestPowerDenseGatherMatchesPowerDense: m^k·x[rows] gathered block by block
// equals PowerDense of the copied rows bit for bit, whole and segmented, for
// any workers; bad rows are errors.
func TestPowerDenseGatherMatchesPowerDense(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(71, 72))
	const n = 600
	sub := rng.Perm(n)[:400]
	slices.Sort(sub[:300]) // partly sorted, partly shuffled
	s, err := SymNormalize(randGraph(rng, len(sub), 0.02))
	if err != nil {
		t.Fatal(err)
	}
	for _, seg := range []int{spmmSegmentBytes, 40 * 32 * 8} {
		defer func(b int) { spmmSegmentBytes = b }(spmmSegmentBytes)
		spmmSegmentBytes = seg
		for _, cols := range []int{1, 9, 32, 70} {
			x := randDense(rng, n, cols)
			xs := mat.NewDense(len(sub), cols, nil)
			for a, i := range sub {
				xs.SetRow(a, x.RawRowView(i))
			}
			for k := 0; k <= 3; k++ {
				want, err := PowerDense(ctx, s, xs, k, 1)
				if err != nil {
					t.Fatal(err)
				}
				for _, workers := range []int{1, 2, 3} {
					got, err := PowerDenseGather(ctx, s, x, sub, k, workers)
					if err != nil {
						t.Fatal(err)
					}
					for i := range sub {
						for j := 0; j < cols; j++ {
							if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
								t.Fatalf("seg %d cols %d k %d workers %d: (%d,%d) = %v, want %v", seg, cols, k, workers, i, j, g, w)
							}
						}
					}
				}
			}
		}
	}
	x := randDense(rng, n, 3)
	if _, err := PowerDenseGather(ctx, s, x, sub[:10], 2, 1); err == nil {
		t.Error("rows shorter than the matrix: no error")
	}
	bad := slices.Clone(sub)
	bad[5] = n
	if _, err := PowerDenseGather(ctx, s, x, bad, 2, 1); err == nil {
		t.Error("row out of range: no error")
	}
}

// TestMakeFloats: large and small slices are zeroed, fully writable, and
// on Linux with transparent huge pages a large one's mapping carries the
// huge-page advice (VmFlags "hg" in /proc/self/smaps).
func TestMakeFloats(t *testing.T) {
	for _, n := range []int{0, 1, 1000, hugeMin/8 + 12345} {
		s := MakeFloats(n)
		if len(s) != n {
			t.Fatalf("len %d, want %d", len(s), n)
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("n=%d: not zeroed at %d", n, i)
			}
			s[i] = float64(i)
		}
		if n > 0 && s[n-1] != float64(n-1) {
			t.Fatalf("n=%d: lost a write", n)
		}
		if n*8 >= hugeMin {
			checkHugeAdvice(t, s)
		}
	}
	if r, c := NewDense(3, 4).Dims(); r != 3 || c != 4 {
		t.Errorf("NewDense(3, 4) is %dx%d", r, c)
	}
}

// TestMulDenseRowsTo checks that MulDenseRowsTo, with the rows' order
// checked or known, writes the selected rows with MulDenseTo's bits and
// leaves every other row as it was, in one pass and in segments, for 1 and
// 3 workers (order known: also with every row); and that it refuses a
// wrong number of row flags.
func TestMulDenseRowsTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	m := randCSR(rng, 300, 200, 0.05)
	x := randDense(rng, 200, 12)
	want, err := MulDense(context.Background(), m, x, 1)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]bool, m.Rows)
	for i := range rows {
		rows[i] = rng.IntN(3) > 0
	}
	defer func(mb int) { mulSegmentBytes = mb }(mulSegmentBytes)
	for _, seg := range []int{mulSegmentBytes, 8 * 12 * 8} {
		mulSegmentBytes = seg
		for _, workers := range []int{1, 3} {
			for _, call := range []struct {
				name string
				rows []bool
				mul  func(out *mat.Dense, rows []bool) error
			}{
				{"order checked", rows, func(out *mat.Dense, rows []bool) error {
					return MulDenseRowsTo(context.Background(), m, x, out, rows, false, workers)
				}},
				{"order known", rows, func(out *mat.Dense, rows []bool) error {
					return MulDenseRowsTo(context.Background(), m, x, out, rows, true, workers)
				}},
				{"order known, every row", nil, func(out *mat.Dense, rows []bool) error {
					return MulDenseRowsTo(context.Background(), m, x, out, rows, true, workers)
				}},
			} {
				out := mat.NewDense(m.Rows, 12, nil)
				for i := range out.RawMatrix().Data {
					out.RawMatrix().Data[i] = -7
				}
				if err := call.mul(out, call.rows); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < m.Rows; i++ {
					for c := 0; c < 12; c++ {
						w := -7.0
						if call.rows == nil || call.rows[i] {
							w = want.At(i, c)
						}
						if g := out.At(i, c); math.Float64bits(g) != math.Float64bits(w) {
							t.Fatalf("%s, segment %d B, %d workers: (%d,%d) = %v, want %v", call.name, seg, workers, i, c, g, w)
						}
					}
				}
			}
		}
	}
	for _, sorted := range []bool{false, true} {
		if err := MulDenseRowsTo(context.Background(), m, x, mat.NewDense(m.Rows, 12, nil), rows[1:], sorted, 1); err == nil {
			t.Errorf("order known %v, too few row flags: no error", sorted)
		}
	}
}
