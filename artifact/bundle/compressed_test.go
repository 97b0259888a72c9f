package bundle

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// withCompressMin lowers the size from which dense members are held
// compressed, for the test's small matrices.
func withCompressMin(t *testing.T, n int64) {
	old := compressMinBytes
	compressMinBytes = n
	t.Cleanup(func() { compressMinBytes = old })
}

// sparseDense returns an r×c matrix whose entries are non-zero with
// probability p, among them −0, NaN and ±Inf (the bits a dense member can
// hold), and rows entirely zero.
func sparseDense(r, c int, p float64, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 7))
	m := mat.NewDense(r, c, nil)
	specials := []float64{math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64}
	for i := 0; i < r; i++ {
		if i%5 == 3 {
			continue
		}
		for j := 0; j < c; j++ {
			if rng.Float64() < p {
				v := rng.NormFloat64()
				if rng.IntN(20) == 0 {
					v = specials[rng.IntN(len(specials))]
				}
				m.Set(i, j, v)
			}
		}
	}
	return m
}

// sameBits reports whether two matrices hold the same bits.
func sameBits(a, b *mat.Dense) bool {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		return false
	}
	for i := 0; i < ar; i++ {
		for j := 0; j < ac; j++ {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return false
			}
		}
	}
	return true
}

func TestDenseMemberHeldCompressed(t *testing.T) {
	withCompressMin(t, 1024)
	cases := []struct {
		name       string
		x          *mat.Dense
		compressed bool
	}{
		{"sparse (1 %)", sparseDense(300, 170, 0.01, 1), true},
		{"at the ratio's edge (5 %)", sparseDense(300, 170, 0.05, 2), true},
		{"dense-ish (40 %)", sparseDense(300, 170, 0.4, 3), false},
		{"all zero", mat.NewDense(200, 90, nil), true},
		{"below the size threshold", sparseDense(10, 10, 0.01, 4), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := New("features")
			a.SetDense("X", tc.x)
			a.SetInts("train", []int{0, 2})
			enc := encode(t, a)
			got := decode(t, enc)
			rows, ok := got.DenseRows("X")
			if ok != tc.compressed {
				t.Fatalf("held compressed = %v, want %v", ok, tc.compressed)
			}
			r, c := tc.x.Dims()
			if gr, gc, err := got.DenseDims("X"); err != nil || gr != r || gc != c {
				t.Fatalf("DenseDims = %d, %d, %v; want %d, %d", gr, gc, err, r, c)
			}
			if ok {
				if err := rows.CheckSorted(); err != nil {
					t.Fatal(err)
				}
				for p, v := range rows.Data {
					if math.Float64bits(v) == 0 {
						t.Fatalf("entry %d is +0: the compressed rows keep non-zero bits only", p)
					}
				}
				if rows.NNZ()*compressRatio > r*c {
					t.Fatalf("%d non-zeros of %d entries held compressed", rows.NNZ(), r*c)
				}
			}
			// Every accessor sees the stored bits, concurrently.
			var wg sync.WaitGroup
			dense := make([]*mat.Dense, 4)
			for k := range dense {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if k%2 == 0 {
						dense[k], _ = got.Dense("X")
					} else {
						v, _ := got.Member("X")
						dense[k], _ = v.(*mat.Dense)
					}
				}()
			}
			wg.Wait()
			for k, d := range dense {
				if d == nil || !sameBits(d, tc.x) {
					t.Fatalf("reader %d: the expanded member differs from the stored one", k)
				}
			}
			// Re-encoding gives the same bytes, expanded or not.
			again := decode(t, enc)
			if b := encode(t, again); !bytes.Equal(b, enc) {
				t.Fatal("re-encoding the compressed member changed the artifact's bytes")
			}
			if b := encode(t, got); !bytes.Equal(b, enc) {
				t.Fatal("re-encoding after expansion changed the artifact's bytes")
			}
			if _, err := got.Floats("X"); err == nil || !strings.Contains(err.Error(), "*mat.Dense") {
				t.Fatalf("Floats on a dense member: %v, want an error naming *mat.Dense", err)
			}
		})
	}
}

// A damaged compressed member is reported like a dense one: the zip's
// CRC-32 names the member; a shape that does not match the bytes names the
// offset.
func TestDenseMemberCompressedDamage(t *testing.T) {
	withCompressMin(t, 1024)
	a := New("features")
	x := sparseDense(300, 170, 0.01, 5)
	a.SetDense("X", x)
	enc := encode(t, a)
	start := bytes.Index(enc, []byte("\x93NUMPY"))
	if start < 0 {
		t.Fatal("no .npy member found")
	}
	for _, off := range []int{start + 200, start + 300*170*8/2, start + 300*170*8} {
		b := bytes.Clone(enc)
		b[off] ^= 0x40
		_, err := Decode(bytes.NewReader(b), int64(len(b)), "test.artifact")
		if err == nil {
			t.Fatalf("byte %d flipped: decoded without error", off)
		}
		if !strings.Contains(err.Error(), `X.npy`) {
			t.Fatalf("byte %d flipped: %v, want the member named", off, err)
		}
	}
	// A row-streaming read error is wrapped with the member and offset.
	rd := &failingReaderAt{b: enc, failAt: int64(start + 5000)}
	_, err := Decode(rd, int64(len(enc)), "test.artifact")
	if err == nil || !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "X.npy") {
		t.Fatalf("read error: %v, want errDisk wrapped with the member", err)
	}
}

var errDisk = errors.New("disk error")

// failingReaderAt fails every read that covers byte failAt.
type failingReaderAt struct {
	b      []byte
	failAt int64
}

func (r *failingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off <= r.failAt && r.failAt < off+int64(len(p)) {
		return 0, errDisk
	}
	return bytes.NewReader(r.b).ReadAt(p, off)
}

// SetDenseRows stores the dense matrix its rows give: the bytes of
// SetDense on the expanded matrix, whichever form decoding then picks.
func TestSetDenseRows(t *testing.T) {
	for _, min := range []int64{1 << 40, 1024} {
		withCompressMin(t, min)
		x := sparseDense(120, 77, 0.03, 9)
		rows := sparse.FromDenseBits(x)
		a, b := New("features"), New("features")
		a.SetDense("X", x)
		b.SetDenseRows("X", rows)
		if got, ok := b.DenseRows("X"); !ok || got != rows {
			t.Fatal("DenseRows does not return the rows SetDenseRows stored")
		}
		if !bytes.Equal(encode(t, a), encode(t, b)) {
			t.Fatalf("min %d: SetDenseRows and SetDense of the same matrix encode differently", min)
		}
		if d, _ := b.Dense("X"); !sameBits(d, x) {
			t.Fatal("Dense of a member given by its rows differs from the matrix")
		}
		if _, ok := decode(t, encode(t, b)).DenseRows("X"); ok != (min == 1024) {
			t.Fatalf("min %d: decoded compressed = %v", min, ok)
		}
	}
	for name, bad := range map[string]*sparse.CSR{
		"unsorted": {Rows: 1, Cols: 3, Indptr: []int{0, 2}, Indices: []int32{2, 0}, Data: []float64{1, 2}},
		"repeated": {Rows: 1, Cols: 3, Indptr: []int{0, 2}, Indices: []int32{1, 1}, Data: []float64{1, 2}},
		"a +0":     {Rows: 1, Cols: 3, Indptr: []int{0, 1}, Indices: []int32{1}, Data: []float64{0}},
		"invalid":  {Rows: 2, Cols: 3, Indptr: []int{0, 1}, Indices: []int32{1}, Data: []float64{1}},
	} {
		a := New("features")
		a.SetDenseRows("X", bad)
		if err := Encode(&bytes.Buffer{}, a); err == nil || !strings.Contains(err.Error(), `"X"`) {
			t.Errorf("%s: Encode error %v, want one naming the member", name, err)
		}
	}
}
