package stages

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

type kernelNopProgress struct{ last, total *int }

func (p kernelNopProgress) Report(done, total int, msg string) {
	if p.last != nil {
		*p.last, *p.total = done, total
	}
}

func kernelTestJob(t *testing.T, workers int, overrides map[string]any) *registry.Job {
	t.Helper()
	typ := kernelStageType()
	params := registry.Values{}
	for _, p := range typ.Params {
		params[p.Name] = p.Default
	}
	for k, v := range overrides {
		params[k] = v
	}
	return &registry.Job{
		Address: "kernel.test", Key: "k", Params: params, Seed: 3,
		RNG: rand.New(rand.NewPCG(3, 3)), Progress: kernelNopProgress{},
		Logf: func(string, ...any) {}, Workers: workers,
	}
}

func TestKernelStage(t *testing.T) {
	small := map[string]any{
		"dim": 2, "points": 9, "max_distance": 4.0, "grid": 15, "features": 200,
		"sample_points": 50, "feature_counts": []int{10, 100},
	}
	job := kernelTestJob(t, 2, small)
	var last, total int
	job.Progress = kernelNopProgress{&last, &total}
	out, err := testBundles(kernelRun(context.Background(), job))
	if err != nil {
		t.Fatal(err)
	}
	if last != 4 || total != 4 {
		t.Errorf("last progress %d/%d, want 4/4", last, total)
	}
	a := out[kernelOutFigure]
	if a == nil || a.Kind() != schema.KindFigure {
		t.Fatalf("output %v", out)
	}
	for _, name := range []string{"curve.csv", "disk.csv", "error.csv", "kernel_distance.png", "kernel_distance.svg",
		"disk_kernel.png", "disk_estimate.svg", "error.png", "error.svg"} {
		b, err := a.File(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 {
			t.Errorf("%s is empty", name)
		}
	}
	png, _ := a.File("disk_kernel.png")
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("disk_kernel.png is not a PNG")
	}
	// curve.csv: 9 rows, k(0) = ½, normalised values ≤ 1, heat kernel (n = 2) present.
	b, _ := a.File("curve.csv")
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10 || rows[0][0] != "distance" {
		t.Fatalf("curve.csv has %d rows, header %v", len(rows), rows[0])
	}
	if rows[1][1] != "0.5" {
		t.Errorf("k(0) = %s, want 0.5", rows[1][1])
	}
	for _, r := range rows[1:] {
		kn, _ := strconv.ParseFloat(r[2], 64)
		hn, _ := strconv.ParseFloat(r[4], 64)
		if !(kn <= 1+1e-12) || !(hn > 0 && hn <= 1+1e-12) {
			t.Errorf("curve row %v", r)
		}
	}
	var summary kernelSummary
	if err := a.JSON("summary", &summary); err != nil {
		t.Fatal(err)
	}
	if summary.Config.Dim != 2 || len(summary.Errors) != 2 || !(summary.DiskMAE > 0) || math.Abs(summary.Kernel0-0.5) > 1e-15 {
		t.Errorf("summary %+v", summary)
	}
	raster, err := a.Dense("disk_kernel")
	if err != nil {
		t.Fatal(err)
	}
	if r, c := raster.Dims(); r != 15 || c != 15 {
		t.Errorf("raster is %d×%d", r, c)
	}
	// Deterministic: same job (other worker count) ⇒ same bytes.
	out2, err := testBundles(kernelRun(context.Background(), kernelTestJob(t, 1, small)))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"disk.csv", "error.csv", "disk_estimate.png", "error.svg"} {
		x, _ := a.File(name)
		y, _ := out2[kernelOutFigure].File(name)
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between runs", name)
		}
	}
}

func TestKernelStageRejects(t *testing.T) {
	for _, bad := range []map[string]any{{"dim": 1}, {"scale": -1.0}, {"grid": 0}, {"feature_counts": []int{}}} {
		if _, err := kernelRun(context.Background(), kernelTestJob(t, 1, bad)); err == nil {
			t.Errorf("parameters %v accepted", bad)
		}
	}
	r := registry.New()
	if err := registerKernel(r); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup("kernel"); !ok {
		t.Error("kernel stage not registered")
	}
}
