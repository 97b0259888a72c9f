// Package planview shows a runner.Plan: a line per stage instance for
// people, and the stable JSON schema of hylaflow plan --json for tools.
package planview

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/hylaflow/hylaflow/runner"
)

// Write prints one line per step of plan (RUN with its reason, or
// CACHED; with keys, the first 12 digits of its key) and a count.
func Write(w io.Writer, plan *runner.Plan, keys bool) { WriteMem(w, plan, keys, false) }

// WriteMem is Write with, when mem is set, a column of the memory the run's
// budget counts for each stage that runs (runner.MemEstimate): "mem ?"
// while an input is not stored yet (the run estimates it then).
func WriteMem(w io.Writer, plan *runner.Plan, keys, mem bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range plan.Steps {
		status, reason := "RUN", s.Reason
		if s.Cached {
			status = "CACHED" // Reason: "" or "cached from another pipeline"
		}
		line := status + "\t" + s.Instance.Address
		if keys {
			line += "\t" + s.Key()[:12]
		}
		if mem {
			switch {
			case s.Cached:
			case s.MemKnown:
				line += "\tmem " + showMiB(s.MemMB)
			default:
				line += "\tmem ?"
			}
		}
		if reason != "" {
			line += "\t" + reason
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	run, cached := plan.Counts()
	if run == 0 {
		fmt.Fprintf(w, "nothing to do: all %d stages cached\n", cached)
		return
	}
	fmt.Fprintf(w, "%d to run, %d cached\n", run, cached)
}

// Plan is the JSON form of a plan (hylaflow plan --json): a stable
// schema, whose fields are only ever added.
type Plan struct {
	Pipeline string `json:"pipeline"`
	Cache    string `json:"cache"`
	ToRun    int    `json:"to_run"`
	Cached   int    `json:"cached"`
	Stages   []Step `json:"stages"`
}

// Step is one stage instance of a Plan.
type Step struct {
	Address string `json:"address"`
	Block   string `json:"block"`
	Type    string `json:"type"`
	Version string `json:"version"`
	Key     string `json:"key"`
	Status  string `json:"status"` // "run" or "cached"
	Reason  string `json:"reason"` // why it runs; "" when cached
	// Params are the parameters in the key's canonical JSON encoding.
	Params map[string]json.RawMessage `json:"params"`
	// Inputs are, per input slot, the producers' "KEY/OUTPUT" references.
	Inputs map[string][]string `json:"inputs"`
	// MemMB is the memory in MiB the run's budget counts for a stage that
	// runs (the larger of resources { mem } and its type's estimate from
	// its inputs); null while an input is not stored, and when cached.
	MemMB *int64 `json:"mem_mb"`
}

// showMiB formats MiB as "812 MiB" or "5.3 GiB".
func showMiB(mb int64) string {
	if mb < 1024 {
		return fmt.Sprintf("%d MiB", mb)
	}
	return fmt.Sprintf("%.1f GiB", float64(mb)/1024)
}

// JSON returns the JSON form of plan, for pipeline file and cache
// directory cacheDir, stages in run order.
func JSON(file, cacheDir string, plan *runner.Plan) Plan {
	run, cached := plan.Counts()
	out := Plan{Pipeline: file, Cache: cacheDir, ToRun: run, Cached: cached, Stages: []Step{}}
	for _, s := range plan.Steps {
		st := Step{Address: s.Instance.Address, Block: s.Instance.Block, Type: s.Record.StageType,
			Version: s.Record.Version, Key: s.Key(), Status: "run", Reason: s.Reason,
			Params: map[string]json.RawMessage{}, Inputs: map[string][]string{}}
		if s.Cached {
			st.Status = "cached"
		} else if s.MemKnown {
			mb := s.MemMB
			st.MemMB = &mb
		}
		for name, v := range s.Record.Params {
			st.Params[name] = json.RawMessage(v)
		}
		for slot, refs := range s.Record.Inputs {
			st.Inputs[slot] = append([]string{}, refs...)
		}
		out.Stages = append(out.Stages, st)
	}
	return out
}

// WriteCommands lists the programs the plan's command stages would run
// (those that are not cached) with why, and says whether the user allowed
// them (run --allow-commands); nothing when the pipeline has none.
func WriteCommands(w io.Writer, plan *runner.Plan, allowed bool) {
	cmds := runner.Commands(plan.Pipeline)
	if len(cmds) == 0 {
		return
	}
	n := 0
	for _, c := range cmds {
		s := plan.ByAddress[c.Address]
		if s == nil || s.Cached {
			continue
		}
		if n == 0 {
			fmt.Fprintln(w, "commands a run would start:")
		}
		n++
		fmt.Fprintf(w, "  %s: %s\n", c.Address, runner.QuoteArgv(c.Argv))
		fmt.Fprintf(w, "    because: %s\n", s.Reason)
	}
	switch {
	case n == 0:
		fmt.Fprintf(w, "commands: all %d command stages cached, no program would run\n", len(cmds))
	case !allowed:
		fmt.Fprintf(w, "run refuses them without --allow-commands (or %s=1)\n", runner.AllowCommandsEnv)
	}
}
