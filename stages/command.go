package stages

// The command stage: a user's own program (a PyTorch model, a
// scikit-learn baseline) run on declared inputs, its declared outputs
// checked and cached like any stage's. See docs/commands.md.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/internal/filedigest"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

const (
	// commandOutputBlock is the nested block that declares one output.
	commandOutputBlock = "output"
	// commandMaxCodeFiles bounds the files the code parameter may name
	// (directories expanded), commandMaxVersion the bytes version_argv
	// may print.
	commandMaxCodeFiles = 10000
	commandMaxVersion   = 4096
)

// commandKinds maps an output block's kind to the artifact kind stored.
var commandKinds = map[string]artifact.Kind{
	"metrics": schema.KindMetrics,
	"array":   schema.KindArray,
	"arrays":  schema.KindArrays,
	"table":   schema.KindTable,
	"figure":  schema.KindFigure,
	"file":    schema.KindFile,
}

func commandKindNames() []string {
	names := make([]string, 0, len(commandKinds))
	for k := range commandKinds {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func registerCommand(r *registry.Registry) error {
	return r.Register(commandType())
}

func commandType() *registry.Type {
	return &registry.Type{
		Name:    "command",
		Version: "1",
		Doc: "Runs a program of yours (argv, never through a shell) on the declared inputs and stores the outputs " +
			"it writes, checked, as artifacts other stages consume. `run` refuses a pipeline with command stages " +
			"unless --allow-commands (or HYLAFLOW_ALLOW_COMMANDS=1) is given. The program starts in a fresh work " +
			"directory with a scrubbed environment (PATH, HOME, LANG, the declared env, HYLAFLOW_SEED, " +
			"HYLAFLOW_INPUT_NAME and HYLAFLOW_OUTPUT_NAME paths); {inputs.NAME}, {outputs.NAME}, {dir}, {workdir}, " +
			"{seed} and {threads} in argv are replaced. Inputs are written as NAME.json (metrics) or NAME.npz " +
			"(numpy.load). Declare each output with a block output \"NAME\" { path = \"metrics.json\"  kind = \"metrics\" }. " +
			"The key holds argv, the content of every code file, the declared environment's values and " +
			"version_argv's output; see docs/commands.md.",
		Params: []registry.Param{
			{Name: "argv", Type: registry.Strings, Required: true,
				Doc: "the program and its arguments, e.g. [\"/usr/bin/python3\", \"{dir}/train.py\", \"{inputs.features}\"]; never given to a shell"},
			{Name: "code", Type: registry.Strings, Default: []string{},
				Doc: "files or directories (relative to dir) whose content goes into the key: the script and its modules; directories are read whole, except hidden names, __pycache__ and *.pyc"},
			{Name: "env", Type: registry.Strings, Default: []string{},
				Doc: "names of environment variables passed through to the program; their values (hashed) go into the key"},
			{Name: "version_argv", Type: registry.Strings, Default: []string{},
				Doc: "a program whose output goes into the key, e.g. [\"/usr/bin/python3\", \"-c\", \"import torch; print(torch.__version__)\"]; run when the stage is planned (which then needs --allow-commands too)"},
			{Name: "seed", Type: registry.Int, Default: 0, Range: registry.AtLeast(0), Doc: "passed as HYLAFLOW_SEED and {seed}"},
			{Name: "dir", Type: registry.Path, Default: ".", Doc: "directory of code and of {dir}; default: the pipeline file's directory"},
			{Name: "max_output_mb", Type: registry.Int, Default: 1024, Range: registry.Between(1, 1<<20), Doc: "largest output file accepted, in MiB"},
			{Name: "outputs", Type: registry.Blocks, Default: []map[string]string{}, Block: commandOutputBlock,
				BlockAttrs: []registry.BlockAttr{
					{Name: "path", Required: true, Doc: "the file the program writes, relative to its work directory"},
					{Name: "kind", Required: true, Enum: commandKindNames(),
						Doc: "metrics (a JSON object of numbers and strings), array (.npy), arrays (.npz), table (.csv/.md/.json), figure (.png/.svg) or file"},
				},
				Doc: "the files the program must write: one output \"NAME\" { path = … kind = … } block each"},
		},
		Inputs: []registry.Input{{Name: "inputs", Kind: artifact.KindAny, Named: true, Optional: true,
			Doc: "an object NAME = stage reference: each input is written into the work directory as NAME.npz or NAME.json"}},
		Outputs: []registry.Output{{Name: "NAME", Kind: artifact.KindAny,
			Doc: "one output per output block, of its kind (metrics, array, arrays, table, figure, file)"}},
		DeclaredOutputs: commandOutputs,
		Command: func(p registry.Values) registry.Command {
			return registry.Command{Argv: p.Strings("argv"), PlanArgv: p.Strings("version_argv")}
		},
		Check:       commandCheck,
		CheckInputs: commandCheckInputs,
		Fingerprint: commandFingerprint,
		Run:         commandRun,
	}
}

// commandOutput is one declared output.
type commandOutput struct {
	Name, Path, Kind string
}

func commandOutputList(p registry.Values) []commandOutput {
	var outs []commandOutput
	for _, m := range p["outputs"].([]map[string]string) {
		outs = append(outs, commandOutput{Name: m["name"], Path: m["path"], Kind: m["kind"]})
	}
	return outs
}

func commandOutputs(p registry.Values) ([]registry.Output, error) {
	var outs []registry.Output
	for _, o := range commandOutputList(p) {
		k, ok := commandKinds[o.Kind]
		if !ok {
			return nil, fmt.Errorf("output %q: kind %q is not one of %s", o.Name, o.Kind, strings.Join(commandKindNames(), ", "))
		}
		outs = append(outs, registry.Output{Name: o.Name, Kind: k, Doc: o.Path})
	}
	if len(outs) == 0 {
		return nil, errors.New(`a command stage declares its outputs with output "NAME" { path = "…"  kind = "…" } blocks; this one has none`)
	}
	return outs, nil
}

var (
	commandNameRE        = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	commandEnvRE         = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	commandPlaceholderRE = regexp.MustCompile(`\{(inputs|outputs)\.([^{}]*)\}`)
)

// commandReserved are the variables the stage sets itself.
var commandReserved = []string{"PATH", "HOME", "LANG", "HYLAFLOW_SEED", "HYLAFLOW_WORKDIR", "HYLAFLOW_THREADS"}

// commandCheck checks the declarations without running anything.
func commandCheck(p registry.Values) []registry.Problem {
	var probs []registry.Problem
	bad := func(param, summary, format string, args ...any) {
		probs = append(probs, registry.Problem{Param: param, Summary: summary, Detail: fmt.Sprintf(format, args...)})
	}
	argv := p.Strings("argv")
	if len(argv) == 0 || argv[0] == "" {
		bad("argv", "Empty command", "argv needs a program (argv[0]) and its arguments, e.g. [\"/usr/bin/python3\", \"{dir}/train.py\"].")
	}
	outs := commandOutputList(p)
	declared := map[string]bool{}
	for _, o := range outs {
		declared[o.Name] = true
		where := "outputs." + o.Name // the loader locates it at the output block
		if !commandNameRE.MatchString(o.Name) {
			bad(where, "Invalid output name", "Output %q: names are identifiers (letters, digits, underscores), as in stage.command.NAME.%s.", o.Name, o.Name)
		}
		if err := commandRelPath(o.Path); err != nil {
			bad(where, "Invalid output path", "Output %q: %v.", o.Name, err)
		}
		if err := commandPathKind(o.Path, o.Kind); err != nil {
			bad(where, "Invalid output path", "Output %q: %v.", o.Name, err)
		}
	}
	for _, a := range argv {
		for _, m := range commandPlaceholderRE.FindAllStringSubmatch(a, -1) {
			if m[1] == "outputs" && !declared[m[2]] {
				bad("argv", "Unknown output", "argv names {outputs.%s}, but the stage declares no output %q (declared: %s).", m[2], m[2], strings.Join(slices.Sorted(mapKeys(declared)), ", "))
			}
			if m[1] == "inputs" && !commandNameRE.MatchString(m[2]) {
				bad("argv", "Invalid input name", "argv names {inputs.%s}: input names are identifiers.", m[2])
			}
		}
	}
	for _, c := range p.Strings("code") {
		if c == "" || filepath.IsAbs(c) && filepath.Clean(c) == "/" {
			bad("code", "Invalid code path", "code lists %q: name the script and its modules.", c)
		}
	}
	seen := map[string]bool{}
	for _, e := range p.Strings("env") {
		switch {
		case !commandEnvRE.MatchString(e):
			bad("env", "Invalid variable name", "env lists %q: a variable name is letters, digits and underscores.", e)
		case slices.Contains(commandReserved, e) || strings.HasPrefix(e, "HYLAFLOW_INPUT_") || strings.HasPrefix(e, "HYLAFLOW_OUTPUT_"):
			bad("env", "Reserved variable", "env lists %s, which the stage sets itself.", e)
		case seen[e]:
			bad("env", "Duplicate variable", "env lists %s twice.", e)
		}
		seen[e] = true
	}
	return probs
}

// commandCheckInputs checks that argv's {inputs.NAME} placeholders name
// declared inputs.
func commandCheckInputs(p registry.Values, slots []string) []registry.Problem {
	var names []string
	for _, s := range slots {
		if n, ok := strings.CutPrefix(s, "inputs."); ok {
			names = append(names, n)
		}
	}
	var probs []registry.Problem
	for _, a := range p.Strings("argv") {
		for _, m := range commandPlaceholderRE.FindAllStringSubmatch(a, -1) {
			if m[1] != "inputs" || slices.Contains(names, m[2]) {
				continue
			}
			detail := fmt.Sprintf("argv names {inputs.%s}, but the stage's inputs have no %q", m[2], m[2])
			if len(names) == 0 {
				detail += "; declare it with inputs = { " + m[2] + " = stage.TYPE.NAME }."
			} else if d := registry.DidYouMean(m[2], names); d != "" {
				detail += fmt.Sprintf(". Did you mean {inputs.%s}?", d)
			} else {
				detail += fmt.Sprintf(" (declared: %s).", strings.Join(names, ", "))
			}
			probs = append(probs, registry.Problem{Param: "argv", Summary: "Unknown input", Detail: detail})
		}
	}
	return probs
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// commandRelPath checks that p names a file inside the work directory.
func commandRelPath(p string) error {
	if p == "" {
		return errors.New("path is empty")
	}
	if filepath.IsAbs(p) || strings.Contains(p, `\`) {
		return fmt.Errorf("path %q must be relative to the work directory (outputs are read from there only)", p)
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("path %q leads out of the work directory", p)
	}
	return nil
}

// commandPathKind checks that an output path's extension fits its kind.
func commandPathKind(p, kind string) error {
	ext := strings.ToLower(path.Ext(p))
	want := map[string][]string{
		"metrics": {".json"},
		"array":   {".npy"},
		"arrays":  {".npz"},
		"table":   {".csv", ".md", ".json"},
		"figure":  {".png", ".svg"},
	}[kind]
	if want != nil && !slices.Contains(want, ext) {
		a := "a"
		if strings.ContainsRune("aeiou", rune(kind[0])) {
			a = "an"
		}
		return fmt.Errorf("%s %s output is a %s file, not %q", a, kind, strings.Join(want, " or "), p)
	}
	return nil
}

// commandFingerprint is what the stage reads besides its inputs: the
// content of every code file, the declared environment's values and
// version_argv's output, as named parts plan can tell apart.
func commandFingerprint(p registry.Values) (string, error) {
	parts := map[string]string{}
	dir := p.String("dir")
	files, err := commandCodeFiles(dir, p.Strings("code"))
	if err != nil {
		return "", err
	}
	for _, f := range files {
		sum, err := filedigest.Sum(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return "", fmt.Errorf("code %s: %w", f, err)
		}
		parts["code "+f] = sum
	}
	for _, e := range p.Strings("env") {
		if v, ok := os.LookupEnv(e); ok {
			h := sha256.Sum256([]byte(v))
			parts["env "+e] = hex.EncodeToString(h[:])
		} else {
			parts["env "+e] = "unset"
		}
	}
	if va := p.Strings("version_argv"); len(va) > 0 {
		out, err := commandVersion(va, dir, p.Strings("env"))
		if err != nil {
			return "", err
		}
		parts["version"] = strconv.Quote(out)
	}
	return registry.JoinFingerprint(parts)
}

// commandCodeFiles expands the code list into files relative to dir
// (slash-separated, sorted): a file as given, a directory's regular files
// below it, leaving out hidden names, __pycache__ and *.pyc (which running
// Python writes beside the code). A missing path is an error: a key must
// never be computed from a file that is not there.
func commandCodeFiles(dir string, code []string) ([]string, error) {
	set := map[string]bool{}
	for _, c := range code {
		full := c
		if !filepath.IsAbs(c) {
			full = filepath.Join(dir, c)
		}
		st, err := os.Stat(full)
		if err != nil {
			return nil, fmt.Errorf("code %s: %w", c, err)
		}
		rel := func(p string) string {
			if r, err := filepath.Rel(dir, p); err == nil {
				return filepath.ToSlash(r)
			}
			return filepath.ToSlash(p)
		}
		if !st.IsDir() {
			set[rel(full)] = true
			continue
		}
		err = filepath.WalkDir(full, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if p != full && (strings.HasPrefix(name, ".") || name == "__pycache__") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || strings.HasSuffix(name, ".pyc") {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				if st, err := os.Stat(p); err != nil || st.IsDir() {
					return nil // a broken link or one to a directory: not read as code
				}
			} else if !d.Type().IsRegular() {
				return nil
			}
			set[rel(p)] = true
			if len(set) > commandMaxCodeFiles {
				return fmt.Errorf("more than %d files under code %s; name the program's own files", commandMaxCodeFiles, c)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("code %s: %w", c, err)
		}
	}
	return slices.Sorted(mapKeys(set)), nil
}
