package datasets

import (
	"os"
	"path/filepath"
	"sync"
)

// How a candidate data root (Root) was found.
const (
	RootFromEnv   = "$HYLAFLOW_DATA"
	RootFromRepo  = "beside the pipeline's repository"
	RootFromWD    = "beside the working directory"
	RootFromCache = "user cache"
)

// Root is a directory searched for dataset files, and why it is searched.
type Root struct {
	Dir string // absolute, except $HYLAFLOW_DATA as given
	How string // RootFromEnv, RootFromRepo, RootFromWD or RootFromCache
}

var (
	startMu sync.Mutex
	start   string // SetStart's directory; "" = the working directory
)

// SetStart sets the directory the default data root is found from: the
// directory of the pipeline file being planned or run, as for the cache.
// The CLI calls it once per pipeline; "" means the working directory.
func SetStart(dir string) {
	startMu.Lock()
	start = dir
	startMu.Unlock()
}

func startDir() string {
	startMu.Lock()
	defer startMu.Unlock()
	if start == "" {
		return "."
	}
	return start
}

// RootCandidates returns the directories searched for dataset files, in
// order: $HYLAFLOW_DATA if set; otherwise shared/datasets beside the root
// of the repository holding the start directory (SetStart: the pipeline's
// directory — found the way the cache is, walking up to the directory
// holding .git), and ../shared/datasets from the working directory; then
// the user cache that `hylaflow datasets fetch` fills. Duplicates are
// left out; the candidates need not exist.
func RootCandidates() []Root {
	var out []Root
	add := func(dir, how string) {
		if dir == "" {
			return
		}
		if how != RootFromEnv {
			if abs, err := filepath.Abs(dir); err == nil {
				dir = abs
			}
		}
		for _, r := range out {
			if r.Dir == dir {
				return
			}
		}
		out = append(out, Root{Dir: dir, How: how})
	}
	if d := os.Getenv("HYLAFLOW_DATA"); d != "" {
		add(d, RootFromEnv)
	} else {
		if repo := repoRoot(startDir()); repo != "" {
			add(filepath.Join(filepath.Dir(repo), "shared", "datasets"), RootFromRepo)
		}
		add(filepath.Join("..", "shared", "datasets"), RootFromWD)
	}
	add(CacheRoot(), RootFromCache)
	return out
}

// repoRoot returns the nearest directory at or above dir that holds .git
// (a directory, or a work tree's file), or "" when there is none.
func repoRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// DefaultRoot returns the data root: the first of RootCandidates that is
// an existing directory, else CacheRoot() (where fetch puts downloaded
// files).
func DefaultRoot() string {
	for _, r := range RootCandidates() {
		if st, err := os.Stat(r.Dir); err == nil && st.IsDir() {
			return r.Dir
		}
	}
	return CacheRoot()
}

// CacheRoot returns the per-user directory for fetched datasets
// (os.UserCacheDir()/hylaflow/datasets).
func CacheRoot() string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "hylaflow", "datasets")
}

// Roots returns the directories of RootCandidates, in order.
func Roots() []string {
	var out []string
	for _, r := range RootCandidates() {
		out = append(out, r.Dir)
	}
	return out
}
