package runreport

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hylaflow/hylaflow/table"
)

// PublishedFile is a file a publish block wrote, with the name of the
// artifact member it copies ("table.json", "table.md", …).
type PublishedFile struct {
	Path, Member string
}

// StampPublished adds the run's provenance to the tables a run published:
// every table.json gets prov as its "run" field (table.StampJSON) and
// every table.md prov's note under its title (table.StampMarkdown), so a
// published result says which run, revision, kernels and variables made
// it. Other files are left as they are. It returns the files it stamped.
func StampPublished(files []PublishedFile, prov table.Provenance) ([]string, error) {
	var stamped []string
	var errs []error
	for _, f := range files {
		var stamp func([]byte) ([]byte, error)
		switch f.Member {
		case table.MemberJSON:
			stamp = func(b []byte) ([]byte, error) { return table.StampJSON(b, prov) }
		case table.MemberMarkdown:
			stamp = func(b []byte) ([]byte, error) { return table.StampMarkdown(b, prov), nil }
		default:
			continue
		}
		b, err := os.ReadFile(f.Path)
		if err == nil {
			b, err = stamp(b)
		}
		if err == nil {
			err = os.WriteFile(f.Path, b, 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("stamp %s with run %d: %w", f.Path, prov.RunID, err))
			continue
		}
		stamped = append(stamped, f.Path)
	}
	return stamped, errors.Join(errs...)
}

// RepoPath returns path relative to the root of the repository that holds
// it (the first directory above it with a .git), slash-separated, as a
// published page names a pipeline ("pipelines/table1.hcl"); outside a
// repository, its base name. A page never records this machine's paths.
func RepoPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Base(path)
	}
	for dir := filepath.Dir(abs); ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			if rel, err := filepath.Rel(dir, abs); err == nil && !strings.HasPrefix(rel, "..") {
				return filepath.ToSlash(rel)
			}
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return filepath.Base(abs)
}
