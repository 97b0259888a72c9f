package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
)

// AllowCommandsEnv, set to 1 (or true), gives the consent that
// --allow-commands gives.
const AllowCommandsEnv = "HYLAFLOW_ALLOW_COMMANDS"

// AllowCommandsFromEnv reads AllowCommandsEnv's value: "1" or "true"
// consent, anything else does not.
func AllowCommandsFromEnv(v string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	return err == nil && b
}

// CommandStage is a stage instance that runs a program the pipeline
// names (its type has a registry.Type.Command hook).
type CommandStage struct {
	Address string
	// Argv is the program the stage runs; PlanArgv the one planning it
	// runs (version_argv), nil if none.
	Argv, PlanArgv []string
}

// Commands returns the instances of p that run programs the pipeline
// names, in p's order.
func Commands(p *pipeline.Pipeline) []CommandStage {
	var out []CommandStage
	for _, inst := range p.Instances {
		if inst.Type.Command == nil {
			continue
		}
		c := inst.Type.Command(inst.Params)
		out = append(out, CommandStage{Address: inst.Address, Argv: c.Argv, PlanArgv: c.PlanArgv})
	}
	return out
}

// ErrCommandsNotAllowed marks a refusal to plan or run a pipeline whose
// command stages the user did not allow (CommandsRefused).
var ErrCommandsNotAllowed = errors.New("command stages not allowed")

// CommandsRefused is the error of a run (or of a plan that would run
// version_argv) without the user's consent: it names every command.
type CommandsRefused struct {
	File   string
	Stages []CommandStage
	// Planning is true when the refusal is planning's (the stages'
	// version_argv), false when it is a run's.
	Planning bool
}

func (e *CommandsRefused) Error() string {
	var b strings.Builder
	if e.Planning {
		fmt.Fprintf(&b, "%s: planning runs the version_argv of %d command stage(s); pass --allow-commands (or %s=1) to allow it:", e.File, len(e.Stages), AllowCommandsEnv)
		for _, s := range e.Stages {
			fmt.Fprintf(&b, "\n  %s: %s", s.Address, QuoteArgv(s.PlanArgv))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%s runs programs of its own in %d command stage(s); pass --allow-commands (or %s=1) to allow them:", e.File, len(e.Stages), AllowCommandsEnv)
	for _, s := range e.Stages {
		fmt.Fprintf(&b, "\n  %s: %s", s.Address, QuoteArgv(s.Argv))
		if len(s.PlanArgv) > 0 {
			fmt.Fprintf(&b, "\n    (version: %s)", QuoteArgv(s.PlanArgv))
		}
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrCommandsNotAllowed) true.
func (e *CommandsRefused) Unwrap() error { return ErrCommandsNotAllowed }

// checkCommands refuses p when it has command stages and opts does not
// allow them: for a run every command stage, for a plan those with a
// version_argv (planning runs it to compute their keys).
func checkCommands(p *pipeline.Pipeline, opts PlanOptions, planning bool) error {
	if opts.AllowCommands {
		return nil
	}
	var refused []CommandStage
	for _, c := range Commands(p) {
		if !planning || len(c.PlanArgv) > 0 {
			refused = append(refused, c)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return &CommandsRefused{File: p.File, Stages: refused, Planning: planning}
}

// QuoteArgv shows an argv as a reader can paste it into a shell: each
// argument quoted when it holds anything but letters, digits and -_./=:,+@%{}.
func QuoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = shellQuote(a)
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%{}", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// CheckRecordCommand refuses, without consent, the key record of a stage
// whose type runs a program the pipeline names (exec-stage KEY or --task
// FILE runs one stage outside any pipeline: the same consent applies).
func CheckRecordCommand(reg *registry.Registry, rec *cache.KeyRecord, allow bool) error {
	t, ok := reg.Lookup(rec.StageType)
	if allow || !ok || t.Command == nil {
		return nil
	}
	params, err := registry.DecodeParams(t, rec.Params)
	if err != nil {
		return fmt.Errorf("%s (%s): %w", rec.Key, rec.Address, err)
	}
	c := t.Command(params)
	return &CommandsRefused{File: "key " + rec.Key, Stages: []CommandStage{{Address: rec.Address, Argv: c.Argv, PlanArgv: c.PlanArgv}}}
}

// TaskFileRecord reads the key record of a task file (TaskSpec's JSON).
func TaskFileRecord(file string) (*cache.KeyRecord, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var spec TaskSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, fmt.Errorf("%s: not a task spec: %w", file, err)
	}
	return &spec.Record, nil
}
