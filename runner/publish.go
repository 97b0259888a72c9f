package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
)

// Published is what one publish block wrote.
type Published struct {
	Dir   string   // the block's absolute directory
	Label string   // the directory as the pipeline writes it
	Files []string // the files written, absolute, in item order
}

// ArtifactLoader reads a stored artifact; *cache.Cache implements it.
type ArtifactLoader interface {
	Load(ref cache.OutputRef) (artifact.Artifact, error)
}

// PublishOutputs carries out the enabled publish blocks of a successful run:
// each item's artifact is read from store and written into the block's
// directory (whole artifacts by Artifact.WriteFiles into DIR/NAME/, file
// items as DIR/NAME), mode 0644, never outside DIR. Stages that came from
// the cache publish like stages that ran. It refuses a run whose status is
// not RunOK: a failed run's outputs are incomplete.
func PublishOutputs(res *RunResult, store ArtifactLoader) ([]Published, error) {
	if res.Status != RunOK {
		return nil, fmt.Errorf("publish: the run did not succeed (%s); nothing published", res.Status)
	}
	var out []Published
	for _, pub := range res.Plan.Pipeline.Publish {
		if !pub.Enabled {
			continue
		}
		done := Published{Dir: pub.Dir, Label: pub.Label}
		for _, it := range pub.Items {
			files, err := publishItem(pub, it, res, store)
			done.Files = append(done.Files, files...)
			if err != nil {
				out = append(out, done)
				return out, fmt.Errorf("publish %s: %s: %w", pub.Label, it.Producer, err)
			}
		}
		out = append(out, done)
	}
	return out, nil
}

func publishItem(pub *pipeline.Publish, it pipeline.PublishItem, res *RunResult, store ArtifactLoader) ([]string, error) {
	sr, ok := res.ByAddress[it.Producer]
	if !ok || (sr.Status != StatusRan && sr.Status != StatusCached) {
		return nil, fmt.Errorf("the stage did not finish in this run")
	}
	ref, ok := findOutput(sr.Outputs, it.Output)
	if !ok {
		return nil, fmt.Errorf("no stored output %q", it.Output)
	}
	a, err := store.Load(ref)
	if err != nil {
		return nil, err
	}
	target := filepath.Join(pub.Dir, it.Name)
	if rel, err := filepath.Rel(pub.Dir, target); err != nil || rel != it.Name || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%q would leave %s", it.Name, pub.Dir) // the loader allows plain names only
	}
	if it.Member == "" {
		return a.WriteFiles(target, artifact.FilesOptions{Arrays: it.Output})
	}
	b, err := a.MemberFile(it.Member)
	if err != nil {
		return nil, fmt.Errorf("output %q: %w", it.Output, err)
	}
	if err := os.MkdirAll(pub.Dir, 0o755); err != nil {
		return nil, err
	}
	p, err := artifact.WriteFile(pub.Dir, it.Name, b)
	if err != nil {
		return nil, err
	}
	return []string{p}, nil
}
