package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
)

func TestKernelCmd(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		// want maps a distance to the expected k (n = 3 closed forms).
		want map[float64]float64
	}{
		{[]string{"--dim", "3", "--lambda", "2", "--distances", "0,1,3"}, cli.ExitOK, map[float64]float64{
			0: 0.5, 1: 0.5 * math.Sin(2) / (2 * math.Sinh(1)), 3: 0.5 * math.Sin(6) / (2 * math.Sinh(3)),
		}},
		{[]string{"--dim", "3", "--lambda", "2", "--method", "quadrature", "--distances", "1"}, cli.ExitOK, map[float64]float64{
			1: 0.5 * math.Sin(2) / (2 * math.Sinh(1)),
		}},
		{[]string{"--dim", "3", "--scale", "1", "--distances", "2"}, cli.ExitOK, map[float64]float64{
			2: 0.5 * math.Sqrt(math.Pi/2) * math.Erf(2/math.Sqrt2) / math.Sinh(2),
		}},
		{[]string{"--lambda", "1", "--scale", "1"}, cli.ExitUsage, nil},
		{[]string{"--dim", "1"}, cli.ExitUsage, nil},
		{[]string{"--distances", "1,x"}, cli.ExitUsage, nil},
		{[]string{"--lambda", "1", "--method", "series"}, cli.ExitUsage, nil},
	} {
		var out, errb bytes.Buffer
		code := app.Dispatch(append([]string{"kernel"}, tc.args...), &out, &errb)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, errb.String())
			continue
		}
		if tc.want == nil {
			if errb.Len() == 0 {
				t.Errorf("%v: no error message", tc.args)
			}
			continue
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if lines[0] != "distance,k" || len(lines)-1 != len(tc.want) {
			t.Fatalf("%v: output %q", tc.args, out.String())
		}
		for _, l := range lines[1:] {
			f := strings.Split(l, ",")
			d, _ := strconv.ParseFloat(f[0], 64)
			k, _ := strconv.ParseFloat(f[1], 64)
			if math.Abs(k-tc.want[d]) > 1e-10 {
				t.Errorf("%v: k(%g) = %g, want %g", tc.args, d, k, tc.want[d])
			}
		}
	}
}

func TestKernelCmdFigure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fig")
	var out, errb bytes.Buffer
	if code := app.Dispatch([]string{"kernel", "--figure", dir, "--features", "200"}, &out, &errb); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, name := range []string{"curve.csv", "disk.csv", "error.csv", "summary.json", "kernel_distance.png", "disk_kernel.svg", "error.png"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
