package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/bench"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/vec"
	"github.com/hylaflow/hylaflow/openblas"
)

type benchTestOutput struct {
	Rows    []bench.Result `json:"rows"`
	Wall    float64        `json:"wall_s"`
	PeakRSS int64          `json:"peak_rss_bytes"`
	BLAS    string         `json:"blas"`
	Kernels string         `json:"kernels"`
}

// bench --json prints the rows, the machine's BLAS and kernels; the old
// dataset names still work, with a note on stderr.
func TestBenchJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := app.Dispatch([]string{"bench", "--json", "--dataset", "disease-synth", "--seeds", "1", "--epochs", "2", "-j", "2"}, &stdout, &stderr)
	if code != cli.ExitOK || stderr.String() != "hylaflow bench: note: dataset \"disease-synth\" is now called \"synthetic_disease\" (as in hylaflow datasets list)\n" {
		t.Fatalf("bench: exit %d, stderr:\n%s", code, stderr.String())
	}
	var out benchTestOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(out.Rows) != 1 || out.Rows[0].Dataset != "synthetic_disease" || out.Rows[0].Seeds != 1 || out.Rows[0].Epochs != 2 {
		t.Errorf("rows %+v", out.Rows)
	}
	if out.BLAS != openblas.Name() || out.Kernels != vec.Path() || out.Wall <= 0 || out.PeakRSS < 0 {
		t.Errorf("blas %q, kernels %q, wall %v, peak %d", out.BLAS, out.Kernels, out.Wall, out.PeakRSS)
	}
}

func TestBenchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--dataset", "nope"},
		{"--model", "gcn"},
		{"--seeds", "0"},
		{"--split", "random"},
		{"extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := app.Dispatch(append([]string{"bench"}, args...), &stdout, &stderr); code != cli.ExitUsage {
			t.Errorf("bench %v: exit %d, want %d", args, code, cli.ExitUsage)
		}
		if stderr.Len() == 0 {
			t.Errorf("bench %v: no message", args)
		}
	}
	var stdout, stderr bytes.Buffer
	app.Dispatch([]string{"bench", "--dataset", "nope"}, &stdout, &stderr)
	if !strings.Contains(stderr.String(), `unknown dataset "nope" (want cora, citeseer, pubmed, airport, disease_nc, synthetic_disease, synthetic_sbm)`) {
		t.Errorf("message %q", stderr.String())
	}
}
