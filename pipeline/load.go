package pipeline

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// LoadOptions are the caller's overrides of pipeline variables.
type LoadOptions struct {
	// Vars are -var NAME=VALUE overrides; VALUE is parsed as an HCL
	// expression when it parses, else taken as a string (like terraform).
	// A variable declared with type = string always takes VALUE literally.
	Vars map[string]string
	// VarFiles are .hcl files of NAME = VALUE assignments, applied in order before Vars.
	VarFiles []string
	// MaxInstances bounds the pipeline's stage instances, all blocks
	// together; 0 takes $HYLAFLOW_MAX_INSTANCES, else DefaultMaxInstances.
	MaxInstances int
}

// The top level of a pipeline file. docs/pipeline-language.md describes
// the language.
var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "pipeline", LabelNames: []string{"name"}},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "stage", LabelNames: []string{"type", "name"}},
		{Type: "publish", LabelNames: []string{"dir"}},
	},
}

var pipelineSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "resources"},
		{Type: "defaults", LabelNames: []string{"type"}},
	},
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type"}, {Name: "default"}, {Name: "description"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}},
}

// loader holds the state of one Load call.
type loader struct {
	reg    *registry.Registry
	opts   LoadOptions
	file   string
	dir    string
	parser *hclparse.Parser
	diags  hcl.Diagnostics
	funcs  map[string]function.Function

	varDecls  map[string]*varDecl
	vars      map[string]cty.Value
	localDefs map[string]*hcl.Attribute
	locals    map[string]cty.Value
	base      *hcl.EvalContext // var, local and the functions

	p        *Pipeline
	pipeRes  Resources
	defaults map[string]map[string]defaultValue // stage type → parameter → value

	blocks   []*stageBlock
	byName   map[string]*stageBlock // "TYPE.NAME"
	stageVal cty.Value
	order    map[string]int // instance address → position in declaration/expansion order
	// attrs holds, per instance address, the ranges of the parameters and
	// inputs its block sets, and "" for the block's own, for the problems
	// CheckConnections reports.
	attrs map[string]map[string]hcl.Range
}

type varDecl struct {
	name  string
	typ   cty.Type
	value cty.Value // the default, then overridden; cty.NilVal when unset
	bad   bool      // a problem with it was reported already
	block *hcl.Block
	// origin says where value came from ("its default", "-var x=1", "the
	// variables file f.hcl"), at valueRange when that is in a file.
	origin     string
	valueRange *hcl.Range
	rules      []*validationRule
}

// validationRule is one `validation { condition = … error_message = … }`
// block of a variable.
type validationRule struct {
	condition, message *hcl.Attribute
	block              *hcl.Block
}

type defaultValue struct {
	value any
	rng   hcl.Range
}

// Load parses, expands and validates a pipeline file against the stage
// types in reg. It reports every problem it finds as diagnostics with
// source ranges; the Pipeline is nil when diags has errors.
func Load(reg *registry.Registry, file string, opts LoadOptions) (*Pipeline, hcl.Diagnostics) {
	l := &loader{reg: reg, opts: opts, file: file, parser: hclparse.NewParser()}
	return l.load()
}

// LoadSource is Load for a pipeline held in memory; filename names it in
// diagnostics and its directory anchors relative paths.
func LoadSource(reg *registry.Registry, filename string, src []byte, opts LoadOptions) (*Pipeline, hcl.Diagnostics) {
	l := &loader{reg: reg, opts: opts, file: filename, parser: hclparse.NewParser()}
	return l.loadSource(src)
}

func (l *loader) load() (*Pipeline, hcl.Diagnostics) {
	f, diags := parseFile(l.parser, l.file, "pipeline")
	return l.loadFile(f, diags)
}

func (l *loader) loadSource(src []byte) (*Pipeline, hcl.Diagnostics) {
	if d := CheckNesting(src, l.file); d.HasErrors() {
		return nil, d
	}
	f, diags := l.parser.ParseHCL(src, l.file)
	return l.loadFile(f, diags)
}

func (l *loader) loadFile(f *hcl.File, diags hcl.Diagnostics) (*Pipeline, hcl.Diagnostics) {
	l.diags = diags
	if f == nil || f.Body == nil {
		return nil, l.finish()
	}
	abs, err := filepath.Abs(filepath.Dir(l.file))
	if err != nil {
		l.errorf(nil, "Invalid pipeline path", "%s: %v", l.file, err)
		return nil, l.finish()
	}
	l.dir = abs
	l.funcs = pipelineFunctions(abs)
	for _, f := range l.reg.Functions() {
		if _, clash := l.funcs[f.Name]; clash {
			l.errorf(nil, "Function name clash", "the stage library's function %s has the name of a built-in function", f.Name)
			continue
		}
		l.funcs[f.Name] = f.Make(abs)
	}
	base := strings.TrimSuffix(filepath.Base(l.file), filepath.Ext(l.file))
	l.p = &Pipeline{File: l.file, Dir: abs, Name: base, ByAddress: map[string]*Instance{}}

	content, d := f.Body.Content(rootSchema)
	l.diags = append(l.diags, d...)
	var pipelines, variables, locals, stages, publish []*hcl.Block
	for _, b := range content.Blocks {
		switch b.Type {
		case "pipeline":
			pipelines = append(pipelines, b)
		case "variable":
			variables = append(variables, b)
		case "locals":
			locals = append(locals, b)
		case "stage":
			stages = append(stages, b)
		case "publish":
			publish = append(publish, b)
		}
	}
	l.decodeVariables(variables)
	l.applyVarOverrides()
	l.decodeLocals(locals)
	l.base = &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": objectOf(l.vars), "local": objectOf(l.locals)},
		Functions: l.funcs,
	}
	l.decodePipeline(pipelines)
	l.decodeStages(stages)
	l.decodePublish(publish)
	l.buildDAG()
	l.checkConnections()
	diags = l.finish()
	if diags.HasErrors() {
		return nil, diags
	}
	return l.p, diags
}

// finish removes duplicate diagnostics (a for_each stage reports a problem
// of its body once, not once per instance) and sorts them by position.
func (l *loader) finish() hcl.Diagnostics {
	type dkey struct {
		sev             hcl.DiagnosticSeverity
		summary, detail string
		rng             hcl.Range
	}
	seen := map[dkey]bool{}
	var out hcl.Diagnostics
	for _, d := range l.diags {
		k := dkey{d.Severity, d.Summary, d.Detail, hcl.Range{}}
		if d.Subject != nil {
			k.rng = *d.Subject
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Subject, out[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		default:
			return a.Start.Byte < b.Start.Byte
		}
	})
	return out
}

func (l *loader) errorf(subject *hcl.Range, summary, format string, args ...any) {
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  subject,
	})
}

func objectOf(m map[string]cty.Value) cty.Value {
	if len(m) == 0 {
		return cty.EmptyObjectVal
	}
	return cty.ObjectVal(m)
}

func rangePtr(r hcl.Range) *hcl.Range { return &r }

// ---- variables ----

func (l *loader) decodeVariables(blocks []*hcl.Block) {
	l.varDecls = map[string]*varDecl{}
	l.vars = map[string]cty.Value{}
	for _, b := range blocks {
		name := b.Labels[0]
		if !hclsyntax.ValidIdentifier(name) {
			l.errorf(rangePtr(b.LabelRanges[0]), "Invalid variable name",
				"%q is not a valid name: use letters, digits, underscores and dashes, starting with a letter.", name)
			continue
		}
		if prev, dup := l.varDecls[name]; dup {
			l.errorf(rangePtr(b.DefRange), "Duplicate variable",
				"Variable %q was already declared at %s.", name, prev.block.DefRange)
			continue
		}
		v := &varDecl{name: name, typ: cty.DynamicPseudoType, block: b}
		l.varDecls[name] = v
		content, d := b.Body.Content(variableSchema)
		l.diags = append(l.diags, d...)
		if a, ok := content.Attributes["type"]; ok {
			ty, d := typeexpr.TypeConstraint(a.Expr)
			l.diags = append(l.diags, d...)
			if !d.HasErrors() {
				v.typ = ty
			} else {
				v.bad = true
			}
		}
		if a, ok := content.Attributes["description"]; ok {
			if l.checkRefs(a.Expr, scope{what: "a variable's description"}) {
				val, d := a.Expr.Value(&hcl.EvalContext{Functions: l.funcs})
				l.diags = append(l.diags, d...)
				if !d.HasErrors() && !val.IsNull() && val.Type() != cty.String {
					l.errorf(a.Expr.Range().Ptr(), "Invalid description", "A description must be a string.")
				}
			}
		}
		if a, ok := content.Attributes["default"]; ok {
			v.bad = true
			if l.checkRefs(a.Expr, scope{what: "a variable's default"}) {
				val, d := a.Expr.Value(&hcl.EvalContext{Functions: l.funcs})
				l.diags = append(l.diags, d...)
				if !d.HasErrors() {
					v.value = l.convertVar(v, val, a.Expr.Range().Ptr(), "default")
					v.bad = v.value == cty.NilVal
					v.origin, v.valueRange = "its default", a.Expr.Range().Ptr()
				}
			}
		}
		for _, vb := range content.Blocks {
			l.decodeValidation(v, vb)
		}
	}
}

// convertVar converts val to the variable's declared type, reporting a
// diagnostic (and returning cty.NilVal) when it does not fit.
func (l *loader) convertVar(v *varDecl, val cty.Value, subject *hcl.Range, what string) cty.Value {
	if !val.IsWhollyKnown() {
		return cty.NilVal // an unknown value stands for an error reported elsewhere
	}
	out, err := convert.Convert(val, v.typ)
	if err != nil {
		l.errorf(subject, "Invalid value for variable",
			"The %s of variable %q is not a %s: %v.", what, v.name, typeexpr.TypeString(v.typ), err)
		return cty.NilVal
	}
	if n := longString(out); n > 0 {
		l.errorf(subject, "String too long", "%s", stringTooLong(fmt.Sprintf("The %s of variable %q", what, v.name), n))
		return cty.NilVal
	}
	return out
}

// applyVarOverrides applies -var-file files, then -var flags, and reports
// variables left without a value.
func (l *loader) applyVarOverrides() {
	known := func(name string, subject *hcl.Range, source string) *varDecl {
		v, ok := l.varDecls[name]
		if !ok {
			detail := fmt.Sprintf("%s sets %q, but %s declares no variable of that name.", source, name, l.file)
			names := sortedNames(l.varDecls)
			if s := registry.DidYouMean(name, names); s != "" {
				detail += fmt.Sprintf(" Did you mean %q?", s)
			}
			if len(names) == 0 {
				detail += " It declares no variables."
			} else {
				detail += fmt.Sprintf(" Its variables: %s.", strings.Join(names, ", "))
			}
			l.errorf(subject, "Undeclared variable", "%s", detail)
		}
		return v
	}
	for _, path := range l.opts.VarFiles {
		f, d := parseFile(l.parser, path, "variables")
		l.diags = append(l.diags, d...)
		if f == nil || f.Body == nil {
			continue
		}
		attrs, d := f.Body.JustAttributes()
		l.diags = append(l.diags, d...)
		for _, name := range sortedNames(attrs) {
			a := attrs[name]
			v := known(name, a.NameRange.Ptr(), "The variables file "+path)
			if v == nil || !l.checkRefs(a.Expr, scope{what: "a variables file"}) {
				continue
			}
			val, d := a.Expr.Value(&hcl.EvalContext{Functions: l.funcs})
			l.diags = append(l.diags, d...)
			if !d.HasErrors() {
				if c := l.convertVar(v, val, a.Expr.Range().Ptr(), "value from "+path); c != cty.NilVal {
					v.value = c
					v.origin, v.valueRange = "the variables file "+path, a.Expr.Range().Ptr()
				}
			}
		}
	}
	for _, name := range sortedNames(l.opts.Vars) {
		raw := l.opts.Vars[name]
		v := known(name, nil, fmt.Sprintf("-var %s=%s", name, raw))
		if v == nil {
			continue
		}
		if len(raw) > MaxStringBytes {
			l.errorf(nil, "String too long", "%s", stringTooLong("-var "+name, len(raw)))
			v.bad = true
			continue
		}
		val := cty.StringVal(raw)
		if d := CheckNesting([]byte(raw), "-var "+name); d.HasErrors() {
			l.diags = append(l.diags, d...)
			continue
		}
		if v.typ != cty.String {
			expr, d := hclsyntax.ParseExpression([]byte(raw), "-var "+name, hcl.InitialPos)
			if !d.HasErrors() && len(expr.Variables()) == 0 {
				if ev, d := expr.Value(&hcl.EvalContext{Functions: l.funcs}); !d.HasErrors() {
					val = ev
				}
			}
		}
		if c := l.convertVar(v, val, nil, fmt.Sprintf("value of -var %s=%s", name, raw)); c != cty.NilVal {
			v.value = c
			v.origin, v.valueRange = fmt.Sprintf("-var %s=%s", name, raw), nil
		}
	}
	for _, name := range sortedNames(l.varDecls) {
		v := l.varDecls[name]
		if v.value == cty.NilVal && v.bad {
			l.vars[name] = cty.DynamicVal
			continue
		}
		if v.value == cty.NilVal {
			l.errorf(rangePtr(v.block.DefRange), "No value for required variable",
				"Variable %q has no default; set it with -var %s=VALUE or in a -var-file.", name, name)
			l.vars[name] = cty.DynamicVal
			continue
		}
		if !l.validateVar(v) {
			// Unknown: what uses the variable is not checked further, so
			// the rule's message is the only error about the value.
			l.vars[name] = cty.DynamicVal
			continue
		}
		l.vars[name] = v.value
	}
}

// decodeValidation reads one validation block of variable v. The condition
// and the message may refer to the variable itself only, as in Terraform.
func (l *loader) decodeValidation(v *varDecl, b *hcl.Block) {
	content, d := b.Body.Content(validationSchema)
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		v.bad = true
		return
	}
	r := &validationRule{condition: content.Attributes["condition"], message: content.Attributes["error_message"], block: b}
	ok := true
	for _, a := range []*hcl.Attribute{r.condition, r.message} {
		for _, t := range a.Expr.Variables() {
			if name, has := attrStep(t, 1); t.RootName() != "var" || !has || name != v.name {
				l.errorf(t.SourceRange().Ptr(), "Invalid reference in variable validation",
					"The %s of a validation rule of variable %q can refer only to var.%s.", a.Name, v.name, v.name)
				ok = false
			}
		}
	}
	if ok {
		v.rules = append(v.rules, r)
	} else {
		v.bad = true
	}
}

// validateVar evaluates v's validation rules on its value and reports each
// rule that fails, with the rule's message, where the value came from and
// the rule's position. It returns false when a rule failed or could not be
// evaluated.
func (l *loader) validateVar(v *varDecl) bool {
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{v.name: v.value})},
		Functions: l.funcs,
	}
	ok := true
	for _, r := range v.rules {
		val, d := r.condition.Expr.Value(ctx)
		l.diags = append(l.diags, d...)
		if d.HasErrors() {
			ok = false
			continue
		}
		if val.IsNull() || !val.IsWhollyKnown() || val.Type() != cty.Bool {
			l.errorf(r.condition.Expr.Range().Ptr(), "Invalid validation condition",
				"The condition of a validation rule of variable %q must be true or false, got %s.", v.name, friendlyType(val.Type()))
			ok = false
			continue
		}
		if val.True() {
			continue
		}
		ok = false
		msg, d := r.message.Expr.Value(ctx)
		l.diags = append(l.diags, d...)
		if d.HasErrors() {
			continue
		}
		if msg, err := convert.Convert(msg, cty.String); err != nil || msg.IsNull() || !msg.IsKnown() {
			l.errorf(r.message.Expr.Range().Ptr(), "Invalid error message", "The error_message of a validation rule must be a string.")
			continue
		}
		text, _ := convert.Convert(msg, cty.String)
		subject := v.valueRange
		if subject == nil {
			subject = rangePtr(v.block.DefRange)
		}
		l.errorf(subject, "Invalid value for variable", "%s\n\nVariable %q is %s (from %s); the rule is on line %d.",
			strings.TrimSpace(text.AsString()), v.name, showValue(v.value), v.origin, r.block.DefRange.Start.Line)
	}
	return ok
}

// showValue renders a variable's value briefly, as HCL would write it.
func showValue(v cty.Value) string {
	s := strings.Join(strings.Fields(string(hclwrite.TokensForValue(v).Bytes())), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "…"
	}
	return s
}

// ---- locals ----

func (l *loader) decodeLocals(blocks []*hcl.Block) {
	l.localDefs = map[string]*hcl.Attribute{}
	l.locals = map[string]cty.Value{}
	for _, b := range blocks {
		attrs, d := b.Body.JustAttributes()
		l.diags = append(l.diags, d...)
		for _, name := range sortedNames(attrs) {
			a := attrs[name]
			if prev, dup := l.localDefs[name]; dup {
				l.errorf(a.NameRange.Ptr(), "Duplicate local value",
					"Local value %q was already defined at %s.", name, prev.NameRange)
				continue
			}
			l.localDefs[name] = a
		}
	}
	// Evaluate in dependency order: a local is ready when every local it
	// names has a value. What is never ready is part of a cycle.
	deps := map[string][]string{}
	valid := map[string]bool{}
	for name, a := range l.localDefs {
		valid[name] = l.checkRefs(a.Expr, scope{local: true, what: "a local value"})
		for _, t := range a.Expr.Variables() {
			if t.RootName() == "local" && len(t) > 1 {
				if at, ok := t[1].(hcl.TraverseAttr); ok {
					deps[name] = append(deps[name], at.Name)
				}
			}
		}
	}
	done := map[string]bool{}
	for progress := true; progress; {
		progress = false
		for _, name := range sortedNames(l.localDefs) {
			if done[name] {
				continue
			}
			ready := true
			for _, dep := range deps[name] {
				if !done[dep] && l.localDefs[dep] != nil {
					ready = false
				}
			}
			if !ready {
				continue
			}
			done[name], progress = true, true
			if !valid[name] {
				l.locals[name] = cty.DynamicVal
				continue
			}
			a := l.localDefs[name]
			ctx := &hcl.EvalContext{
				Variables: map[string]cty.Value{"var": objectOf(l.vars), "local": objectOf(l.locals)},
				Functions: l.funcs,
			}
			val, d := a.Expr.Value(ctx)
			l.diags = append(l.diags, d...)
			if d.HasErrors() {
				val = cty.DynamicVal
			} else if n := longString(val); n > 0 {
				l.errorf(a.Expr.Range().Ptr(), "String too long", "%s", stringTooLong(fmt.Sprintf("Local value %q", name), n))
				val = cty.DynamicVal
			}
			l.locals[name] = val
		}
	}
	var cycle []string
	for _, name := range sortedNames(l.localDefs) {
		if !done[name] {
			cycle = append(cycle, name)
			l.locals[name] = cty.DynamicVal
		}
	}
	if len(cycle) > 0 {
		a := l.localDefs[cycle[0]]
		l.errorf(a.NameRange.Ptr(), "Cycle in local values",
			"These local values depend on each other: %s.", strings.Join(cycle, ", "))
	}
}

// ---- pipeline block ----

func (l *loader) decodePipeline(blocks []*hcl.Block) {
	l.defaults = map[string]map[string]defaultValue{}
	for i, b := range blocks {
		if i > 0 {
			l.errorf(rangePtr(b.DefRange), "Duplicate pipeline block",
				"A file declares one pipeline; the first pipeline block is at %s.", blocks[0].DefRange)
			continue
		}
		l.p.Name = b.Labels[0]
		content, d := b.Body.Content(pipelineSchema)
		l.diags = append(l.diags, d...)
		if a, ok := content.Attributes["description"]; ok {
			if s, ok := l.evalString(a, l.base, scope{local: true, what: "the pipeline's description"}); ok {
				l.p.Description = s
			}
		}
		seenRes := false
		for _, rb := range content.Blocks {
			switch rb.Type {
			case "resources":
				if seenRes {
					l.errorf(rangePtr(rb.DefRange), "Duplicate resources block", "The pipeline block takes one resources block.")
					continue
				}
				seenRes = true
				l.pipeRes = l.decodeResources(rb, l.base, scope{local: true, what: "pipeline resources"}, Resources{})
			case "defaults":
				l.decodeDefaults(rb)
			}
		}
	}
}

func (l *loader) evalString(a *hcl.Attribute, ctx *hcl.EvalContext, sc scope) (string, bool) {
	if !l.checkRefs(a.Expr, sc) {
		return "", false
	}
	val, d := a.Expr.Value(ctx)
	l.diags = append(l.diags, d...)
	if d.HasErrors() || !val.IsWhollyKnown() { // unknown: an error reported elsewhere
		return "", false
	}
	s, err := convert.Convert(val, cty.String)
	if err != nil || s.IsNull() {
		l.errorf(a.Expr.Range().Ptr(), "Incorrect value type", "%s must be a string.", a.Name)
		return "", false
	}
	return s.AsString(), true
}

// decodeDefaults reads `defaults "TYPE" { PARAM = VALUE ... }`: values that
// replace the stage type's own defaults for every stage of that type.
func (l *loader) decodeDefaults(b *hcl.Block) {
	typeName := b.Labels[0]
	t, ok := l.reg.Lookup(typeName)
	if !ok {
		l.unknownType(typeName, b.LabelRanges[0])
		return
	}
	if _, dup := l.defaults[typeName]; dup {
		l.errorf(rangePtr(b.DefRange), "Duplicate defaults block", "Defaults for stage type %q are already set above.", typeName)
		return
	}
	m := map[string]defaultValue{}
	l.defaults[typeName] = m
	attrs, d := b.Body.JustAttributes()
	l.diags = append(l.diags, d...)
	for _, name := range sortedNames(attrs) {
		a := attrs[name]
		p, ok := t.Param(name)
		if !ok {
			if _, isInput := t.Input(name); isInput {
				l.errorf(a.NameRange.Ptr(), "Invalid default", "%q is an input slot of stage type %q; defaults set parameters only.", name, typeName)
			} else {
				l.unknownParam(t, name, a.NameRange)
			}
			continue
		}
		if !l.checkRefs(a.Expr, scope{local: true, what: "a defaults block"}) {
			continue
		}
		val, d := a.Expr.Value(l.base)
		l.diags = append(l.diags, d...)
		if d.HasErrors() {
			continue
		}
		if v, ok := l.convertParam(t, p, val, a.Expr.Range()); ok {
			m[name] = defaultValue{value: v, rng: a.Expr.Range()}
		}
	}
}

func (l *loader) unknownType(name string, rng hcl.Range) {
	detail := fmt.Sprintf("There is no stage type %q.", name)
	if s := registry.DidYouMean(name, l.reg.Names()); s != "" {
		detail += fmt.Sprintf(" Did you mean %q?", s)
	}
	detail += " Registered types: " + strings.Join(l.reg.Names(), ", ") + " (see `hylaflow stages`)."
	l.errorf(&rng, "Unknown stage type", "%s", detail)
}

func (l *loader) unknownParam(t *registry.Type, name string, rng hcl.Range) {
	var names []string
	for _, p := range t.Params {
		names = append(names, p.Name)
	}
	for _, in := range t.Inputs {
		names = append(names, in.Name)
	}
	detail := fmt.Sprintf("Stage type %q has no parameter or input %q.", t.Name, name)
	if s := registry.DidYouMean(name, names); s != "" {
		detail += fmt.Sprintf(" Did you mean %q?", s)
	} else if len(names) > 0 {
		detail += " It takes: " + strings.Join(names, ", ") + "."
	}
	l.errorf(&rng, "Unsupported argument", "%s", detail)
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
