package registry

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// Random streams follow common random numbers: a stage's draws depend only
// on the user's seed, the stage type and the name of the stream, never on
// the other parameters, the inputs, the block label or the cache key. Two
// runs that differ in one knob (lr, epochs, a scale, a renamed label) share
// every draw they can: the same seed gives the same Ω, Λ and B up to the
// scale parameter and the same initial Z, so an ablation compares the knob
// and not the knob plus fresh noise. Different seeds give independent
// streams, and so do different stage types and stream names.

// SeedFor returns the seed of a stage of type typeName whose "seed"
// parameter is seed (0 for a stage without one): the first 8 bytes,
// little-endian, of sha256("hylaflow-seed/2\x00" + seed + "\x00" + typeName).
func SeedFor(seed int, typeName string) uint64 {
	return hash64("hylaflow-seed/2\x00%d\x00%s", seed, typeName)
}

// NewRNG returns the PCG generator of a stage seed.
func NewRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// SeedParam returns a stage's "seed" parameter, 0 when it has none or it is
// not an int.
func SeedParam(params Values) int {
	seed, _ := params["seed"].(int)
	return seed
}

// Stream returns the named random stream of the job: a generator of its
// own, independent of the job's RNG and of every other name, that depends
// only on the job's Seed (so on the user's seed and the stage type) and
// name. A stage uses one stream per independent draw (say "init" for the
// initial weights and "dropout" for the masks) so that changing how many
// numbers one draw takes leaves the others unchanged.
func (j *Job) Stream(name string) *rand.Rand {
	return NewRNG(hash64("hylaflow-stream\x00%d\x00%s", j.Seed, name))
}

func hash64(format string, args ...any) uint64 {
	h := sha256.New()
	fmt.Fprintf(h, format, args...)
	return binary.LittleEndian.Uint64(h.Sum(nil)[:8])
}
