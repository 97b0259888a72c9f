// Package runs reads hylaflow's run history for people: the provenance of
// a run (what produced it: the build, the pipeline and variable files,
// the variables, the machine and its kernel path) and the comparison of
// two runs (their tables cell by cell, with whether each difference is
// beyond the runs' spread, and why their stages' cache keys differ).
//
// The runner records a Provenance document with every run (see Collect
// and runner.RunOptions.Provenance); the cache keeps it beside the run's
// record, and `hylaflow runs show` and `hylaflow runs diff` print it.
package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/internal/buildinfo"
	"github.com/hylaflow/hylaflow/internal/vec"
)

// NotRecorded is what runs that were recorded before hylaflow kept
// provenance show in its place.
const NotRecorded = "not recorded"

// Provenance is what produced a run. Its JSON form is what the cache
// stores with the run and `runs show --json` prints.
type Provenance struct {
	Build Build `json:"hylaflow"`
	// Go is the Go version the binary was built with; OS and Arch its target.
	Go   string `json:"go"`
	OS   string `json:"os"`
	Arch string `json:"arch"`
	// Kernel is the vector kernels' path: "avx512", "avx2" or "generic"
	// (the three give identical bits); KernelEnv the HYLAFLOW_CPU value
	// that forced it, if any.
	Kernel    string `json:"kernel"`
	KernelEnv string `json:"kernel_env,omitempty"`
	// BLAS names the BLAS implementation of this build.
	BLAS  string `json:"blas"`
	Host  string `json:"host"`
	Cores int    `json:"cores"`
	// Pipeline is the pipeline file, VarFiles the -var-file files in the
	// order given, each with the sha256 of its contents at the run's start.
	Pipeline File   `json:"pipeline"`
	VarFiles []File `json:"var_files"`
	// Vars are the -var NAME=VALUE settings, VALUE as given.
	Vars map[string]string `json:"vars"`
	// Data are the outside data the run's stages read (dataset files),
	// one per stage instance whose type fingerprints what it reads, in
	// the pipeline's order; empty for runs recorded before it was kept.
	Data []DataInput `json:"data,omitempty"`
}

// DataInput is the outside data one stage instance reads: where from (a
// data root) and the fingerprint of its contents, as its cache key has it.
type DataInput struct {
	Address     string `json:"address"`
	Origin      string `json:"origin,omitempty"`
	Fingerprint string `json:"fingerprint"`
}

// Build is the hylaflow binary's build information.
type Build struct {
	Module   string `json:"module,omitempty"`
	Version  string `json:"version"`            // module version; "(devel)" for a work-tree build
	Revision string `json:"revision,omitempty"` // VCS revision (vcs.revision); "" if not stamped
	Time     string `json:"time,omitempty"`     // commit time (vcs.time)
	Dirty    bool   `json:"dirty"`              // the work tree had uncommitted changes
}

// File is a file read by the run, with the hex sha256 of its contents.
type File struct {
	Path   string `json:"path"` // as given on the command line
	SHA256 string `json:"sha256"`
}

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// BuildFrom extracts Build from what `hylaflow version` reports.
func BuildFrom(v buildinfo.Info) Build {
	return Build{Module: v.Module, Version: v.Version, Revision: v.Revision, Time: v.Time, Dirty: v.Dirty}
}

// Collect gathers the provenance of a run of the pipeline file pipeline
// with the variable files varFiles and the -var settings vars, on this
// machine and binary. It reads the files to hash them; an unreadable one
// is an error naming it.
func Collect(pipeline string, varFiles []string, vars map[string]string) (*Provenance, error) {
	info := buildinfo.Read(readBuildInfo())
	p := &Provenance{
		Build:     BuildFrom(info),
		Go:        info.Go,
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		Kernel:    info.Kernels,
		KernelEnv: strings.TrimSpace(os.Getenv(vec.EnvVar)),
		BLAS:      info.BLAS,
		Cores:     runtime.NumCPU(),
		VarFiles:  []File{},
		Vars:      map[string]string{},
	}
	if h, err := os.Hostname(); err == nil {
		p.Host = h
	}
	var err error
	if p.Pipeline, err = hashFile(pipeline); err != nil {
		return nil, err
	}
	for _, f := range varFiles {
		vf, err := hashFile(f)
		if err != nil {
			return nil, err
		}
		p.VarFiles = append(p.VarFiles, vf)
	}
	for k, v := range vars {
		p.Vars[k] = v
	}
	return p, nil
}

func hashFile(path string) (File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return File{}, fmt.Errorf("provenance: %w", err)
	}
	sum := sha256.Sum256(b)
	return File{Path: path, SHA256: hex.EncodeToString(sum[:])}, nil
}

// Encode returns p's JSON document, as the cache stores it.
func (p *Provenance) Encode() ([]byte, error) {
	return json.Marshal(p)
}

// Decode reads a stored provenance document; an empty one (a run recorded
// before provenance existed) gives nil and no error.
func Decode(doc []byte) (*Provenance, error) {
	if len(doc) == 0 {
		return nil, nil
	}
	var p Provenance
	if err := json.Unmarshal(doc, &p); err != nil {
		return nil, fmt.Errorf("provenance document: %w", err)
	}
	return &p, nil
}

// Field is one named value of a provenance, as Fields lists them.
type Field struct {
	Name, Value string
}

// Fields lists p's values by name, in a fixed order, one per variable
// file and -var setting (sorted by name): what `runs show` prints and
// `runs diff` compares. A nil p has none.
func (p *Provenance) Fields() []Field {
	if p == nil {
		return nil
	}
	rev := p.Build.Revision
	if rev == "" {
		rev = "unknown (built without VCS information)"
	} else {
		if p.Build.Time != "" {
			rev += " (" + p.Build.Time + ")"
		}
		if p.Build.Dirty {
			rev += ", dirty"
		}
	}
	kernel := p.Kernel
	if p.KernelEnv != "" {
		kernel += " (" + vec.EnvVar + "=" + p.KernelEnv + ")"
	}
	fs := []Field{
		{"hylaflow", p.Build.Version},
		{"revision", rev},
		{"go", p.Go + " " + p.OS + "/" + p.Arch},
		{"kernel", kernel},
		{"blas", p.BLAS},
		{"host", p.Host},
		{"cores", strconv.Itoa(p.Cores)},
		{"pipeline", p.Pipeline.Path},
		{"pipeline sha256", p.Pipeline.SHA256},
	}
	for i, f := range p.VarFiles {
		fs = append(fs, Field{fmt.Sprintf("var file %d", i+1), f.Path + " sha256 " + f.SHA256})
	}
	names := make([]string, 0, len(p.Vars))
	for k := range p.Vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fs = append(fs, Field{"var " + k, p.Vars[k]})
	}
	for _, d := range p.Data {
		v := "fingerprint " + d.Fingerprint
		if d.Origin != "" {
			v = d.Origin + " " + v
		}
		fs = append(fs, Field{"data " + d.Address, v})
	}
	return fs
}

// WriteText prints p as aligned "name  value" lines, each indented by
// indent; a nil p prints that the provenance was not recorded.
func WriteText(w io.Writer, p *Provenance, indent string) error {
	if p == nil {
		_, err := fmt.Fprintf(w, "%s%s (the run is older than provenance records)\n", indent, NotRecorded)
		return err
	}
	fs := p.Fields()
	width := 0
	for _, f := range fs {
		width = max(width, len(f.Name))
	}
	for _, f := range fs {
		if _, err := fmt.Fprintf(w, "%s%-*s  %s\n", indent, width, f.Name, f.Value); err != nil {
			return err
		}
	}
	if len(p.VarFiles) == 0 && len(p.Vars) == 0 {
		_, err := fmt.Fprintf(w, "%s%-*s  %s\n", indent, width, "vars", "none given (the pipeline's defaults)")
		return err
	}
	return nil
}
