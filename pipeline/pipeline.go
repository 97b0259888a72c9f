package pipeline

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/registry"
)

// Pipeline is a parsed, expanded and validated pipeline: every stage
// instance with its parameters resolved and its inputs named.
type Pipeline struct {
	File        string // path of the pipeline file as given
	Dir         string // absolute directory of the pipeline file
	Name        string // from the pipeline block, or the file's base name
	Description string
	// Instances in a stable topological order (producers before consumers,
	// ties broken by address), which plans and golden files rely on.
	Instances []*Instance
	ByAddress map[string]*Instance
	// Publish are the publish blocks, in file order (see Publish).
	Publish []*Publish
}

// Instance is one vertex of the DAG: a stage block, or one element of a
// for_each/matrix expansion of it.
type Instance struct {
	// Address is TYPE.NAME for a plain stage and TYPE.NAME["KEY"] for an
	// element of a for_each/matrix expansion, e.g. `train.cora["seed-3"]`.
	Address string
	Block   string // TYPE.NAME of the stage block
	EachKey string // the for_each key, "" for a plain stage
	Type    *registry.Type
	// Params holds every declared parameter of Type, defaults filled in,
	// Path values resolved to absolute paths.
	Params registry.Values
	// Inputs lists, per input slot of Type, the outputs it consumes, in order.
	Inputs map[string][]InputRef
	// Resources are the instance's resource requests: the stage block's
	// resources block over the pipeline block's, field by field. Locally
	// CPUs caps Job.Workers; the Slurm executor turns them into sbatch options.
	Resources Resources
	// Range is the stage block's declaration range, for diagnostics.
	Range hcl.Range
}

// Resources are the compute resources a stage instance asks for. A zero
// field means "not set" (the executor's default applies).
type Resources struct {
	CPUs  int           // cores, ≥ 1 when set
	MemMB int64         // memory in MiB, from mem = "4G" / "512M" / "2048" (MiB)
	Time  time.Duration // wall-time limit, from time = "1h30m" / "90m" / "2d"
	GPUs  int           // GPUs, ≥ 0
}

// InputRef names one output of a producer instance.
type InputRef struct {
	Producer string // producer instance address
	Output   string // output name of the producer's type
}

// ParseMem reads a memory size as resources { mem } does ("8G", "512M",
// "1.5GB", "2048" = MiB) into MiB, rounding up.
func ParseMem(s string) (int64, error) { return parseMem(s) }
