package remote

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The files beside the store (the Slurm executor's records and logs):
// written whole and replaced, read whole or by their tail, absent files
// are not errors; gc removes those older than SlurmAge and keeps the rest.
func TestFilesAndSlurmGC(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r, err := Open(ctx, "file://"+dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok, err := r.ReadFile(ctx, "slurm/done/x.json", 100); ok || err != nil {
		t.Fatalf("absent file: ok=%v err=%v", ok, err)
	}
	for _, tt := range []struct{ name, data string }{
		{"slurm/done/x.json", "first"},
		{"slurm/done/x.json", "second, longer"},
		{"slurm/logs/x.1.out", "line 1\nline 2\nthe end\n"},
	} {
		if err := r.WriteFile(ctx, tt.name, "text/plain", []byte(tt.data)); err != nil {
			t.Fatal(err)
		}
		b, ok, err := r.ReadFile(ctx, tt.name, 100)
		if err != nil || !ok || string(b) != tt.data {
			t.Errorf("%s: read %q %v %v, want %q", tt.name, b, ok, err, tt.data)
		}
	}
	if _, _, err := r.ReadFile(ctx, "slurm/done/x.json", 4); err == nil {
		t.Error("a file over the limit was read")
	}
	if b, ok, err := r.ReadTail(ctx, "slurm/logs/x.1.out", 8); err != nil || !ok || string(b) != "the end\n" {
		t.Errorf("tail %q %v %v", b, ok, err)
	}
	if b, ok, err := r.ReadTail(ctx, "slurm/logs/x.1.out", 1000); err != nil || !ok || len(b) != 22 {
		t.Errorf("whole tail %q %v %v", b, ok, err)
	}
	old := time.Now().Add(-8 * 24 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "slurm", "logs", "x.1.out"), old, old); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		rep, err := r.GC(ctx, GCOptions{DryRun: dry})
		if err != nil || rep.Slurm != 1 {
			t.Fatalf("gc (dry run %v): %+v, %v; want 1 Slurm file", dry, rep, err)
		}
	}
	if _, ok, _ := r.ReadFile(ctx, "slurm/logs/x.1.out", 100); ok {
		t.Error("gc kept the 8-day-old log")
	}
	if _, ok, _ := r.ReadFile(ctx, "slurm/done/x.json", 100); !ok {
		t.Error("gc removed the new done-record")
	}
}
