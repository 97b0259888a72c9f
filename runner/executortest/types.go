package executortest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/registry"
)

// The suite's stage types exchange Vectors, an artifact format of this
// package (registered with package artifact as codec "executortest"), so
// the suite exercises real execution, storage and loading through the
// engine's opaque interfaces without any of the built-in stages.

// KindVector is the kind of a Vector.
const KindVector artifact.Kind = "vector"

// VectorMagic starts every encoded Vector.
const VectorMagic = "HYLAFLOW-TEST-VECTOR\x00"

// maxVectorLen bounds the vectors the suite's stages make and decode.
const maxVectorLen = 1 << 24

// Vector is a float64 vector artifact. It implements artifact.Artifact.
type Vector struct {
	Values []float64
}

var _ artifact.Artifact = (*Vector)(nil)

func init() {
	artifact.RegisterCodec(artifact.Codec{Name: "executortest", Magic: VectorMagic, Decode: decodeVector})
}

// Kind returns KindVector.
func (v *Vector) Kind() artifact.Kind { return KindVector }

// Encode writes VectorMagic, the length as a little-endian uint64 and the
// values as little-endian float64 bits.
func (v *Vector) Encode(w io.Writer) error {
	b := make([]byte, len(VectorMagic)+8+8*len(v.Values))
	n := copy(b, VectorMagic)
	binary.LittleEndian.PutUint64(b[n:], uint64(len(v.Values)))
	for i, x := range v.Values {
		binary.LittleEndian.PutUint64(b[n+8+8*i:], math.Float64bits(x))
	}
	_, err := w.Write(b)
	return err
}

// Metrics returns nil: a Vector carries no results.
func (v *Vector) Metrics() map[string]float64 { return nil }

// WriteFiles writes the values, one per line, as values.txt into dir.
func (v *Vector) WriteFiles(dir string, _ artifact.FilesOptions) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	b, _ := v.MemberFile("values.txt")
	p, err := artifact.WriteFile(dir, "values.txt", b)
	if err != nil {
		return nil, err
	}
	return []string{p}, nil
}

// MemberFile returns the values, one per line, for the name values.txt.
func (v *Vector) MemberFile(name string) ([]byte, error) {
	if name != "values.txt" {
		return nil, fmt.Errorf("vector: no member %q (have values.txt)", name)
	}
	var sb strings.Builder
	for _, x := range v.Values {
		sb.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		sb.WriteByte('\n')
	}
	return []byte(sb.String()), nil
}

func decodeVector(r io.ReaderAt, size int64, name string) (artifact.Artifact, error) {
	head := int64(len(VectorMagic) + 8)
	if size < head {
		return nil, fmt.Errorf("vector %s: %d bytes, want at least %d", name, size, head)
	}
	b := make([]byte, head)
	if _, err := r.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("vector %s: %w", name, err)
	}
	if string(b[:len(VectorMagic)]) != VectorMagic {
		return nil, fmt.Errorf("vector %s: bad magic", name)
	}
	n := binary.LittleEndian.Uint64(b[len(VectorMagic):])
	if n > maxVectorLen || int64(n)*8 != size-head {
		return nil, fmt.Errorf("vector %s: length %d does not match the %d bytes after the header", name, n, size-head)
	}
	data := make([]byte, size-head)
	if _, err := r.ReadAt(data, head); err != nil && !(errors.Is(err, io.EOF) && len(data) == 0) {
		return nil, fmt.Errorf("vector %s: %w", name, err)
	}
	v := &Vector{Values: make([]float64, n)}
	for i := range v.Values {
		v.Values[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return v, nil
}

// VectorValues returns the values of a Vector; another artifact is an error.
func VectorValues(a artifact.Artifact) ([]float64, error) {
	v, ok := a.(*Vector)
	if !ok || v == nil {
		return nil, fmt.Errorf("artifact %T is not an executortest.Vector", a)
	}
	return v.Values, nil
}

// Types returns a registry holding the suite's stage types, all over
// Vectors, with the names, parameters and behaviour of the built-in generic
// stages (package stages): value, random, scale, sleep and fail.
func Types() *registry.Registry {
	r := registry.New()
	for _, t := range []*registry.Type{valueType(), randomType(), scaleType(), sleepType(), failType()} {
		if err := r.Register(t); err != nil {
			panic(err) // a type with an invalid schema is a programming error
		}
	}
	return r
}

var vectorOutput = []registry.Output{{Name: "out", Kind: KindVector, Doc: "float vector"}}

func out(v []float64) map[string]artifact.Artifact {
	return map[string]artifact.Artifact{"out": &Vector{Values: v}}
}

// input returns the vector of the one artifact of slot.
func input(job *registry.Job, slot string) ([]float64, error) {
	in := job.Inputs[slot]
	if len(in) != 1 {
		return nil, fmt.Errorf("input %q: %d artifacts, want 1", slot, len(in))
	}
	v, err := VectorValues(in[0])
	if err != nil {
		return nil, fmt.Errorf("input %q from %s: %w", slot, strings.Join(job.InputLabels[slot], ", "), err)
	}
	return v, nil
}

func valueType() *registry.Type {
	return &registry.Type{
		Name: "value", Version: "1",
		Doc:     "Emits the float vector given as its values parameter.",
		Params:  []registry.Param{{Name: "values", Type: registry.Floats, Required: true, Doc: "the vector to emit"}},
		Outputs: vectorOutput,
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			return out(append([]float64{}, job.Params.Floats("values")...)), nil
		},
	}
}

func randomType() *registry.Type {
	return &registry.Type{
		Name: "random", Version: "1",
		Doc: "Emits n standard normal numbers drawn from the job's seeded generator.",
		Params: []registry.Param{
			{Name: "n", Type: registry.Int, Range: registry.Between(0, maxVectorLen), Default: 10, Doc: "length"},
			{Name: "seed", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "seed"},
		},
		Outputs: vectorOutput,
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			v := make([]float64, job.Params.Int("n"))
			for i := range v {
				v[i] = job.RNG.NormFloat64()
			}
			return out(v), nil
		},
	}
}

func scaleType() *registry.Type {
	return &registry.Type{
		Name: "scale", Version: "1",
		Doc: "Emits factor·x + offset for its input vector x.",
		Params: []registry.Param{
			{Name: "factor", Type: registry.Float, Default: 1.0, Doc: "multiplier"},
			{Name: "offset", Type: registry.Float, Default: 0.0, Doc: "added after multiplying"},
		},
		Inputs:  []registry.Input{{Name: "in", Kind: KindVector, Doc: "the vector x"}},
		Outputs: vectorOutput,
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			x, err := input(job, "in")
			if err != nil {
				return nil, err
			}
			f, o := job.Params.Float("factor"), job.Params.Float("offset")
			y := make([]float64, len(x))
			for i, xi := range x {
				y[i] = f*xi + o
			}
			return out(y), nil
		},
	}
}

func sleepType() *registry.Type {
	return &registry.Type{
		Name: "sleep", Version: "1",
		Doc: "Waits ms milliseconds (stopping at once when canceled), then emits an empty vector.",
		Params: []registry.Param{
			{Name: "ms", Type: registry.Int, Range: registry.Between(0, 86400000), Default: 100, Doc: "milliseconds to wait"},
		},
		Outputs: vectorOutput,
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			ms := job.Params.Int("ms")
			t := time.NewTimer(time.Duration(ms) * time.Millisecond)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-t.C:
			}
			job.Progress.Report(ms, ms, "slept")
			return out([]float64{}), nil
		},
	}
}

func failType() *registry.Type {
	return &registry.Type{
		Name: "fail", Version: "1",
		Doc: "Always fails with its message.",
		Params: []registry.Param{
			{Name: "message", Type: registry.String, Default: "this stage always fails", Doc: "the error message"},
		},
		Outputs: vectorOutput,
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			return nil, errors.New(job.Params.String("message"))
		},
	}
}
