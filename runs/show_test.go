package runs

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/cache"
)

func TestOneLine(t *testing.T) {
	long := strings.Repeat("x", 200)
	for _, tc := range []struct{ in, want string }{
		{"short", "short"},
		{"first\nsecond", "first ..."},
		{long, long[:157] + "..."},
		{long + "\nmore", long[:157] + "..."},
	} {
		if got := oneLine(tc.in); got != tc.want {
			t.Errorf("oneLine(%.20q…) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// WriteList and WriteShow on a cache with one failed run: the text and
// JSON forms carry the same run, its stages, their errors on one line and
// the metrics recorded.
func TestWriteListShow(t *testing.T) {
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var b bytes.Buffer
	if err := WriteList(&b, c, 0, false, time.Now()); err != nil || b.String() != "no runs recorded in "+c.Dir()+"\n" {
		t.Fatalf("empty cache: %q, %v", b.String(), err)
	}
	id, err := c.BeginRun("p.hcl", []string{"run", "p.hcl"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []cache.StageRecord{
		{Address: "train.a", Key: strings.Repeat("ab", 32), Status: "ran", Metrics: map[string]float64{"acc": 0.8125, "loss": 1.5}},
		{Address: "train.b", Key: strings.Repeat("cd", 32), Status: "failed", Error: "diverged\nat epoch 3"},
	} {
		if err := c.RecordStage(id, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.FinishRun(id, "failed"); err != nil {
		t.Fatal(err)
	}

	b.Reset()
	if err := WriteList(&b, c, 0, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID  STARTED") || !strings.Contains(lines[1], "failed") || !strings.HasSuffix(lines[1], "p.hcl") {
		t.Errorf("list:\n%s", b.String())
	}

	b.Reset()
	if err := WriteShow(&b, c, id, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"run 1: p.hcl\n", "  command  hylaflow run p.hcl\n", "status   failed: 2 stages",
		"error: diverged ...", "ababababab", "\nmetrics:\n  train.a  acc=0.8125  loss=1.5\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, b.String())
		}
	}

	b.Reset()
	if err := WriteShow(&b, c, id, true, time.Now()); err != nil {
		t.Fatal(err)
	}
	var d DetailJSON
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.ID != id || d.Status != "failed" || len(d.StageList) != 2 || d.StageList[1].Error != "diverged\nat epoch 3" ||
		d.StageList[0].Metrics["acc"] != 0.8125 || d.Provenance != nil {
		t.Errorf("show --json = %+v", d)
	}
	if err := WriteShow(&b, c, 99, false, time.Now()); err == nil || !strings.Contains(err.Error(), "no run 99") {
		t.Errorf("unknown run: %v", err)
	}
}

// A failed stage's error is shown whole under the stages, each line
// wrapped at a word boundary, however long its hint (runs show cut it at
// 160 bytes, the hint's end first). Golden testdata/show_failed.golden,
// from the stages table on (the rest holds dates).
func TestWriteShowFailureWhole(t *testing.T) {
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.BeginRun("p.hcl", []string{"run", "p.hcl"})
	if err != nil {
		t.Fatal(err)
	}
	diverged := `train hyla/features on cora: training diverged at epoch 12: the training loss is 137265, ` +
		`more than 100 times its first epoch's 1.94 (lower the learning rate?); nothing is stored: ` +
		`lower lr_classifier (1e+06) or lr_embedding (1e+06)`
	located := "dataset: cora: open ../shared/datasets/planetoid/ind.cora.x: no such file or directory\n" +
		"hint: hylaflow datasets fetch cora downloads it, or set root = \"DIR\" (hylaflow datasets info cora lists the files it needs, with their sizes and sha256)"
	for _, s := range []cache.StageRecord{
		{Address: "dataset.cora", Key: strings.Repeat("ef", 32), Status: "failed", Error: located},
		{Address: `train.hyla["0"]`, Key: strings.Repeat("ab", 32), Status: "failed", Error: diverged},
		{Address: "train.sgc", Key: strings.Repeat("cd", 32), Status: "canceled", Reason: "never run"},
	} {
		if err := c.RecordStage(id, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.FinishRun(id, "failed"); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteShow(&b, c, id, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	i := strings.Index(out, "STATUS")
	if i < 0 {
		t.Fatalf("no stages table:\n%s", out)
	}
	golden(t, "show_failed.golden", []byte(out[i:]))
	// Every word of each error is there, in order.
	for _, msg := range []string{diverged, located} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(msg), " ")) {
			t.Errorf("show lacks the whole error %q:\n%s", msg, out)
		}
	}
}
