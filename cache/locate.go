package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DirName is the name of a cache directory found by Locate.
const DirName = ".hylaflow"

// How a Location was chosen.
const (
	FromFlag  = "flag"  // --cache DIR
	FromEnv   = "env"   // $HYLAFLOW_CACHE
	FromFound = "found" // an existing .hylaflow in the start directory or above it
	FromRepo  = "repo"  // none found: .hylaflow at the root of the repository holding start
	FromStart = "start" // none found, no repository: .hylaflow in the start directory
)

// Location is where the cache is, and why there.
type Location struct {
	// Dir is the cache directory: the flag or environment value as given,
	// otherwise an absolute path. It need not exist yet.
	Dir string
	// How is one of FromFlag, FromEnv, FromFound, FromRepo, FromStart.
	How string
}

// Locate finds the cache directory the way git finds its repository.
// flagDir (--cache) wins, then envDir ($HYLAFLOW_CACHE); otherwise Locate
// walks up from start (the directory of the pipeline file, or the working
// directory for commands without one) and takes the first directory that
// holds a .hylaflow directory. The walk stops at the root of a repository
// (a directory holding .git, a directory or a worktree's file): a cache
// above the project is never taken for it. When no .hylaflow is found the
// cache is new: at the repository root when start is inside a repository,
// else in start itself. So "hylaflow run pipelines/quickstart.hcl" from a
// clone's root and "cd pipelines && hylaflow run quickstart.hcl" share
// CLONE/.hylaflow, and "hylaflow report" anywhere in the clone reads it.
func Locate(flagDir, envDir, start string) (Location, error) {
	switch {
	case flagDir != "":
		return Location{Dir: flagDir, How: FromFlag}, nil
	case envDir != "":
		return Location{Dir: envDir, How: FromEnv}, nil
	}
	abs, err := filepath.Abs(start)
	if err != nil {
		return Location{}, fmt.Errorf("locate the cache from %s: %w", start, err)
	}
	for dir := abs; ; {
		cand := filepath.Join(dir, DirName)
		switch info, err := os.Stat(cand); {
		case err == nil && info.IsDir():
			return Location{Dir: cand, How: FromFound}, nil
		case err == nil:
			return Location{}, fmt.Errorf("locate the cache: %s is a file, want a directory (move it, or pass --cache DIR)", cand)
		case !errors.Is(err, fs.ErrNotExist):
			return Location{}, fmt.Errorf("locate the cache: %w", err)
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return Location{Dir: cand, How: FromRepo}, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return Location{Dir: filepath.Join(abs, DirName), How: FromStart}, nil
}
