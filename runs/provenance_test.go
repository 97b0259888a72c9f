package runs

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/vec"
)

// sha256("abc") and sha256("x = 1\n").
const (
	shaABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	shaX1  = "9e26bf369911c45c243c684147b23fc9e1dcfcf257d299a1c632016a6fcd33f4"
)

// Collect takes the build from buildinfo.Read (what hylaflow version
// reports): with VCS information, without it, and with no build information.
func TestCollectBuild(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "p.hcl")
	if err := os.WriteFile(pipe, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := readBuildInfo
	defer func() { readBuildInfo = saved }()
	stamped := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "github.com/hylaflow/hylaflow", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-26T07:21:19Z"},
			{Key: "vcs.modified", Value: "true"}, {Key: "GOFLAGS", Value: "-trimpath"}}}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want Build
		goV  string
	}{
		{"stamped", stamped, true, Build{Module: "github.com/hylaflow/hylaflow", Version: "v1.2.3", Revision: "abc123", Time: "2026-11-26T07:21:19Z", Dirty: true}, "go1.99"},
		{"work tree without VCS", &debug.BuildInfo{GoVersion: "go1.98", Main: debug.Module{Path: "m", Version: "(devel)"}}, true, Build{Module: "m", Version: "(devel)"}, "go1.98"},
		{"no version", &debug.BuildInfo{GoVersion: "go1.98", Main: debug.Module{Path: "m"}}, true, Build{Module: "m", Version: "unknown"}, "go1.98"},
		{"no build info", nil, false, Build{Version: "unknown"}, runtime.Version()},
	} {
		readBuildInfo = func() (*debug.BuildInfo, bool) { return tc.bi, tc.ok }
		p, err := Collect(pipe, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Build != tc.want || p.Go != tc.goV {
			t.Errorf("%s: build %+v go %s, want %+v %s", tc.name, p.Build, p.Go, tc.want, tc.goV)
		}
	}
}

func TestCollect(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "p.hcl")
	vars := filepath.Join(dir, "v.hcl")
	if err := os.WriteFile(pipe, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vars, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := readBuildInfo
	defer func() { readBuildInfo = saved }()
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: runtime.Version(), Main: debug.Module{Path: "github.com/hylaflow/hylaflow", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "d2e209e"}, {Key: "vcs.modified", Value: "false"}}}, true
	}
	t.Setenv(vec.EnvVar, "")
	p, err := Collect(pipe, []string{vars}, map[string]string{"epochs": "50", "seeds": "[0, 1]"})
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	want := &Provenance{
		Build: Build{Module: "github.com/hylaflow/hylaflow", Version: "(devel)", Revision: "d2e209e"},
		Go:    runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Kernel: vec.Path(), BLAS: p.BLAS,
		Host: host, Cores: runtime.NumCPU(),
		Pipeline: File{pipe, shaABC}, VarFiles: []File{{vars, shaX1}},
		Vars: map[string]string{"epochs": "50", "seeds": "[0, 1]"},
	}
	if p.BLAS == "" {
		t.Error("no BLAS name")
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("Collect:\n%+v\nwant\n%+v", p, want)
	}

	doc, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(doc)
	if err != nil || !reflect.DeepEqual(back, p) {
		t.Errorf("Decode(Encode(p)) = %+v, %v", back, err)
	}

	if _, err := Collect(filepath.Join(dir, "missing.hcl"), nil, nil); err == nil || !strings.Contains(err.Error(), "missing.hcl") {
		t.Errorf("Collect of a missing pipeline: %v", err)
	}
	if _, err := Collect(pipe, []string{filepath.Join(dir, "nope.hcl")}, nil); err == nil || !strings.Contains(err.Error(), "nope.hcl") {
		t.Errorf("Collect of a missing var file: %v", err)
	}
}

func TestDecode(t *testing.T) {
	if p, err := Decode(nil); p != nil || err != nil {
		t.Errorf("Decode(nil) = %v, %v; want nil, nil (not recorded)", p, err)
	}
	if _, err := Decode([]byte(`{"cores": "two"}`)); err == nil || !strings.Contains(err.Error(), "provenance document") {
		t.Errorf("Decode of a bad document: %v", err)
	}
}

func TestWriteText(t *testing.T) {
	p := &Provenance{Build: Build{Version: "v1.2.3", Revision: "abc123", Time: "2026-11-26T07:21:19Z", Dirty: true},
		Go: "go1.99", OS: "linux", Arch: "amd64", Kernel: "avx2", KernelEnv: "avx2", BLAS: "gonum", Host: "h", Cores: 2,
		Pipeline: File{"p.hcl", shaABC}, VarFiles: []File{{"v.hcl", shaX1}}, Vars: map[string]string{"seeds": "[0]", "epochs": "5"}}
	for _, tc := range []struct {
		name string
		p    *Provenance
		want string
	}{
		{"full", p, `  hylaflow         v1.2.3
  revision         abc123 (2026-11-26T07:21:19Z), dirty
  go               go1.99 linux/amd64
  kernel           avx2 (HYLAFLOW_CPU=avx2)
  blas             gonum
  host             h
  cores            2
  pipeline         p.hcl
  pipeline sha256  ` + shaABC + `
  var file 1       v.hcl sha256 ` + shaX1 + `
  var epochs       5
  var seeds        [0]
`},
		{"defaults, no VCS", &Provenance{Build: Build{Version: "(devel)"}, Go: "go1.99", OS: "linux", Arch: "arm64", Kernel: "generic",
			BLAS: "gonum", Host: "h", Cores: 4, Pipeline: File{"p.hcl", shaABC}}, `  hylaflow         (devel)
  revision         unknown (built without VCS information)
  go               go1.99 linux/arm64
  kernel           generic
  blas             gonum
  host             h
  cores            4
  pipeline         p.hcl
  pipeline sha256  ` + shaABC + `
  vars             none given (the pipeline's defaults)
`},
		{"not recorded", nil, "  not recorded (the run is older than provenance records)\n"},
	} {
		var b bytes.Buffer
		if err := WriteText(&b, tc.p, "  "); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, b.String(), tc.want)
		}
	}
}
