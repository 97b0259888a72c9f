package bundle

import (
	"archive/zip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
	"gonum.org/v1/gonum/mat"
)

func TestWriteFiles(t *testing.T) {
	a := New(KindFigure)
	a.SetFile("plot.png", []byte("\x89PNG fake"))
	a.SetFile("table.md", []byte("| a |\n"))
	if err := a.SetJSON("summary", map[string]any{"n": 3, "name": "x"}); err != nil {
		t.Fatal(err)
	}
	a.SetDense("coords", mat.NewDense(2, 2, []float64{1, 2, 3, 4}))
	a.SetInts("labels", []int{0, 1})

	cases := []struct {
		name   string
		opts   artifact.FilesOptions
		want   []string
		arrays bool
	}{
		{"with arrays", artifact.FilesOptions{Arrays: "figure"}, []string{"plot.png", "summary.json", "table.md", "figure.npz"}, true},
		{"files only", artifact.FilesOptions{}, []string{"plot.png", "summary.json", "table.md"}, false},
	}
	old := syscallUmask(0o077) // a restrictive umask must not make published files private
	defer syscallUmask(old)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out", "fig")
			files, err := a.WriteFiles(dir, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range files {
				got = append(got, filepath.Base(f))
				if filepath.Dir(f) != dir {
					t.Errorf("%s is not in %s", f, dir)
				}
				st, err := os.Stat(f)
				if err != nil {
					t.Fatal(err)
				}
				if runtime.GOOS != "windows" && st.Mode().Perm() != 0o644 {
					t.Errorf("%s has mode %v, want 0644", f, st.Mode().Perm())
				}
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("wrote %v, want %v", got, c.want)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != len(c.want) {
				t.Errorf("dir holds %d entries (temporary files left?), want %d", len(entries), len(c.want))
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "summary.json")); string(b) != "{\n  \"n\": 3,\n  \"name\": \"x\"\n}\n" {
				t.Errorf("summary.json = %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "table.md")); string(b) != "| a |\n" {
				t.Errorf("table.md = %q", b)
			}
			if c.arrays {
				z, err := zip.OpenReader(filepath.Join(dir, "figure.npz"))
				if err != nil {
					t.Fatal(err)
				}
				defer z.Close()
				var names []string
				for _, f := range z.File {
					names = append(names, f.Name)
				}
				if s := strings.Join(names, " "); !strings.Contains(s, "coords.npy") || !strings.Contains(s, "labels.npy") {
					t.Errorf("figure.npz holds %v", names)
				}
			}
		})
	}
}

func TestWriteFilesRejectsUnsafeNames(t *testing.T) {
	for _, name := range []string{"../escape.txt", "a/b.txt", "..", ".", `a\b`} {
		a := New(KindTable)
		a.SetFile(name, []byte("x"))
		root := t.TempDir()
		dir := filepath.Join(root, "d")
		if _, err := a.WriteFiles(dir, artifact.FilesOptions{}); err == nil || !strings.Contains(err.Error(), "not a plain file name") {
			t.Errorf("member %q: err = %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(root, "escape.txt")); err == nil {
			t.Errorf("member %q escaped the directory", name)
		}
	}
	a := New(KindTable)
	a.SetFloats("v", []float64{1})
	if _, err := a.WriteFiles(t.TempDir(), artifact.FilesOptions{Arrays: "../x"}); err == nil {
		t.Error("an arrays name with a separator was accepted")
	}
}
