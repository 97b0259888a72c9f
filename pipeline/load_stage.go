package pipeline

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// maxInstances bounds the expansion of one stage block.
const maxInstances = 100000

var stageSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "for_each"}, {Name: "matrix"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "resources"}},
}

var resourcesSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "cpus"}, {Name: "mem"}, {Name: "time"}, {Name: "gpus"}},
}

// stageBlock is one `stage "TYPE" "NAME"` block and its expansion.
type stageBlock struct {
	typeName, name string
	id             string // TYPE.NAME
	typ            *registry.Type
	block          *hcl.Block
	forEach        *hcl.Attribute
	matrix         *hcl.Attribute
	attrs          hcl.Attributes
	resources      *hcl.Block
	isEach         bool
	bad            bool // the expansion failed; references to it are not checked further
	keys           []string
	eachVals       []cty.Value
	keyIndex       map[string]int
	addrs          []string
	// nested are the blocks declaring Blocks parameters (load_declared.go),
	// blockParams their values, blockWhere each element's block range by
	// "PARAM.LABEL".
	nested      []*hcl.Block
	blockParams registry.Values
	blockWhere  map[string]hcl.Range
	outputsBad  bool // a nested block is in error (see decodeBlockParams)
}

func (l *loader) decodeStages(blocks []*hcl.Block) {
	l.byName = map[string]*stageBlock{}
	l.order = map[string]int{}
	limit, err := maxInstancesFrom(l.opts.MaxInstances)
	if err != nil {
		l.errorf(nil, "Invalid instance limit", "%v.", err)
		limit = DefaultMaxInstances
	}
	total := 0
	for _, b := range blocks {
		typeName, name := b.Labels[0], b.Labels[1]
		okNames := true
		for i, label := range b.Labels {
			if !hclsyntax.ValidIdentifier(label) {
				l.errorf(rangePtr(b.LabelRanges[i]), "Invalid stage label",
					"%q is not a valid name: stage types and names are identifiers (letters, digits, underscores, dashes), as they appear in stage.TYPE.NAME.", label)
				okNames = false
			}
		}
		if !okNames {
			continue
		}
		sb := &stageBlock{typeName: typeName, name: name, id: typeName + "." + name, block: b}
		if prev, dup := l.byName[sb.id]; dup {
			l.errorf(rangePtr(b.DefRange), "Duplicate stage", "Stage %q was already declared at %s.", sb.id, prev.block.DefRange)
			continue
		}
		l.byName[sb.id] = sb
		l.blocks = append(l.blocks, sb)
		if t, ok := l.reg.Lookup(typeName); ok {
			sb.typ = t
		} else {
			l.unknownType(typeName, b.LabelRanges[0])
		}
		l.splitStageBody(sb)
		if sb.typ != nil {
			l.decodeBlockParams(sb)
		}
		if total > limit {
			sb.bad = true // past the instance limit: not expanded
			continue
		}
		l.expand(sb)
		if n := len(sb.keys); total+n > limit && !sb.bad {
			// One error, at the block that crosses the limit; the blocks
			// after it are not expanded.
			if total <= limit {
				rng := b.DefRange
				if a := sb.forEach; a != nil {
					rng = a.Expr.Range()
				} else if a := sb.matrix; a != nil {
					rng = a.Expr.Range()
				}
				l.errorf(&rng, "Too many stage instances",
					"With the %d instances of %s the pipeline has %d, more than the limit of %d for all blocks together; set %s to raise it (planning costs about 140 µs and 4 KB per instance).",
					n, sb.id, total+n, limit, MaxInstancesEnv)
			}
			sb.keys, sb.eachVals, sb.bad = nil, nil, true
			total = limit + 1
		} else {
			total += n
		}
		for i, key := range sb.keys {
			addr := sb.id
			if sb.isEach {
				addr = fmt.Sprintf("%s[%s]", sb.id, strconv.Quote(key))
			}
			sb.addrs = append(sb.addrs, addr)
			sb.keyIndex[key] = i
			l.order[addr] = len(l.order)
		}
	}
	l.stageVal = l.buildStageValue()
	for _, sb := range l.blocks {
		if total > limit {
			break // the instances are not worth decoding
		}
		if sb.typ != nil && !sb.bad {
			l.decodeInstances(sb)
		}
	}
}

// splitStageBody separates a stage body into for_each/matrix, the
// resources block and the parameter/input attributes. (hclsyntax's
// JustAttributes rejects a body holding any block, even one already
// decoded by PartialContent, so the native body is read directly.)
func (l *loader) splitStageBody(sb *stageBlock) {
	body, ok := sb.block.Body.(*hclsyntax.Body)
	if !ok {
		content, remain, d := sb.block.Body.PartialContent(stageSchema)
		l.diags = append(l.diags, d...)
		sb.forEach, sb.matrix = content.Attributes["for_each"], content.Attributes["matrix"]
		if len(content.Blocks) > 0 {
			sb.resources = content.Blocks[0]
		}
		attrs, d := remain.JustAttributes()
		l.diags = append(l.diags, d...)
		sb.attrs = attrs
		return
	}
	sb.attrs = hcl.Attributes{}
	for name, a := range body.Attributes {
		switch name {
		case "for_each":
			sb.forEach = a.AsHCLAttribute()
		case "matrix":
			sb.matrix = a.AsHCLAttribute()
		default:
			sb.attrs[name] = a.AsHCLAttribute()
		}
	}
	for _, blk := range body.Blocks {
		rb := blk.AsHCLBlock()
		if _, ok := blockParam(sb.typ, blk.Type); ok {
			sb.nested = append(sb.nested, rb)
			continue
		}
		switch {
		case blk.Type != "resources" && sb.typ == nil:
			// an unknown stage type, reported already
		case blk.Type != "resources":
			detail := fmt.Sprintf("A stage body holds parameters, inputs, for_each or matrix, and one resources block; not a %q block.", blk.Type)
			if s := registry.DidYouMean(blk.Type, []string{"resources"}); s != "" {
				detail += fmt.Sprintf(" Did you mean %q?", s)
			}
			l.errorf(rangePtr(rb.TypeRange), "Unsupported block type", "%s", detail)
		case len(blk.Labels) > 0:
			l.errorf(rangePtr(rb.LabelRanges[0]), "Extraneous label", "A resources block takes no labels.")
		case sb.resources != nil:
			l.errorf(rangePtr(rb.DefRange), "Duplicate resources block", "A stage takes one resources block; the first is at %s.", sb.resources.DefRange)
		default:
			sb.resources = rb
		}
	}
}

// expand evaluates for_each or matrix into the block's instance keys and each.value values.
func (l *loader) expand(sb *stageBlock) {
	sb.keyIndex = map[string]int{}
	switch {
	case sb.forEach != nil && sb.matrix != nil:
		l.errorf(sb.matrix.NameRange.Ptr(), "Conflicting expansion", "A stage takes for_each or matrix, not both.")
		sb.isEach, sb.bad = true, true
		return
	case sb.forEach == nil && sb.matrix == nil:
		sb.keys = []string{""}
		sb.eachVals = []cty.Value{cty.NilVal}
		return
	}
	sb.isEach = true
	a, what := sb.forEach, "for_each"
	if a == nil {
		a, what = sb.matrix, "matrix"
	}
	sc := scope{local: true, what: "the " + what + " argument", stageHint: " The instances of every stage must be known before anything runs."}
	if !l.checkRefs(a.Expr, sc) {
		sb.bad = true
		return
	}
	val, d := a.Expr.Value(l.base)
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		sb.bad = true
		return
	}
	rng := a.Expr.Range()
	// An unknown value stands for an error reported elsewhere. A set's
	// elements are checked as expandForEach reads them: each reading of a
	// set sorts it, which for a few hundred keys costs more than the rest
	// of the expansion.
	if !val.IsKnown() || (!val.Type().IsSetType() && !val.IsWhollyKnown()) {
		sb.bad = true
		return
	}
	if val.IsNull() {
		l.errorf(&rng, "Invalid "+what+" argument", "%s must not be null.", what)
		sb.bad = true
		return
	}
	var err error
	if what == "for_each" {
		sb.keys, sb.eachVals, err = expandForEach(val)
	} else {
		sb.keys, sb.eachVals, err = expandMatrix(val)
	}
	if errors.Is(err, errUnknownElement) {
		sb.keys, sb.eachVals, sb.bad = nil, nil, true
	} else if err != nil {
		l.errorf(&rng, "Invalid "+what+" argument", "%v.", err)
		sb.keys, sb.eachVals, sb.bad = nil, nil, true
	}
}

// errUnknownElement is expandForEach's report of an element whose value is
// unknown: it stands for an error reported elsewhere.
var errUnknownElement = errors.New("an element of for_each is unknown")

// expandForEach turns a map/object (key = attribute name), a set or a list
// (key = the element's string form) into keys and values.
func expandForEach(val cty.Value) ([]string, []cty.Value, error) {
	ty := val.Type()
	var keys []string
	var vals []cty.Value
	switch {
	case ty.IsMapType() || ty.IsObjectType():
		for it := val.ElementIterator(); it.Next(); {
			k, v := it.Element()
			keys, vals = append(keys, k.AsString()), append(vals, v)
		}
	case ty.IsSetType() || ty.IsListType() || ty.IsTupleType():
		seen := map[string]bool{}
		for it := val.ElementIterator(); it.Next(); {
			_, v := it.Element()
			if !v.IsWhollyKnown() {
				return nil, nil, errUnknownElement
			}
			k, err := keyString(v)
			if err != nil {
				return nil, nil, fmt.Errorf("for_each over a %s: %w; use a map to give such elements keys", collectionName(ty), err)
			}
			if seen[k] {
				return nil, nil, fmt.Errorf("for_each gives the key %q twice; instance keys must be unique", k)
			}
			seen[k] = true
			keys, vals = append(keys, k), append(vals, v)
		}
	default:
		return nil, nil, fmt.Errorf("for_each must be a map, an object, a set or a list; got %s", ty.FriendlyName())
	}
	if len(keys) > maxInstances {
		return nil, nil, fmt.Errorf("for_each expands to %d instances, more than the limit of %d", len(keys), maxInstances)
	}
	return keys, vals, nil
}

// expandMatrix turns an object of lists into their cross product: keys
// "a=1,b=x" (dimensions in name order, the first varying slowest) and
// each.value objects {a = 1, b = "x"}. An empty dimension gives no
// instances, as an empty for_each does: that is how a pipeline switches a
// sweep off (matrix = { dataset = var.on ? local.all : [], seed = var.seeds }).
// Every dimension is checked all the same.
func expandMatrix(val cty.Value) ([]string, []cty.Value, error) {
	ty := val.Type()
	if !ty.IsObjectType() && !ty.IsMapType() {
		return nil, nil, fmt.Errorf("matrix must be an object of lists, as in { dataset = [\"cora\"], seed = [0, 1] }; got %s", ty.FriendlyName())
	}
	type dim struct {
		name string
		keys []string
		vals []cty.Value
	}
	var dims []dim
	total := 1
	for it := val.ElementIterator(); it.Next(); {
		k, v := it.Element()
		name := k.AsString()
		vt := v.Type()
		if !vt.IsListType() && !vt.IsTupleType() && !vt.IsSetType() {
			return nil, nil, fmt.Errorf("matrix dimension %q must be a list; got %s", name, vt.FriendlyName())
		}
		if v.IsNull() {
			return nil, nil, fmt.Errorf("matrix dimension %q is null; an empty list [] gives no instances", name)
		}
		dm := dim{name: name}
		seen := map[string]bool{}
		for e := v.ElementIterator(); e.Next(); {
			_, ev := e.Element()
			ks, err := keyString(ev)
			if err != nil {
				return nil, nil, fmt.Errorf("matrix dimension %q: %w", name, err)
			}
			if seen[ks] {
				return nil, nil, fmt.Errorf("matrix dimension %q lists %q twice", name, ks)
			}
			seen[ks] = true
			dm.keys, dm.vals = append(dm.keys, ks), append(dm.vals, ev)
		}
		total = min(total*len(dm.keys), maxInstances+1) // saturated: an empty dimension after a large one still gives 0
		dims = append(dims, dm)
	}
	if len(dims) == 0 {
		return nil, nil, fmt.Errorf("matrix has no dimensions")
	}
	switch {
	case total == 0:
		return nil, nil, nil
	case total > maxInstances:
		return nil, nil, fmt.Errorf("matrix expands to more than %d instances", maxInstances)
	}
	keys := make([]string, 0, total)
	vals := make([]cty.Value, 0, total)
	idx := make([]int, len(dims))
	for {
		parts := make([]string, len(dims))
		obj := make(map[string]cty.Value, len(dims))
		for i, dm := range dims {
			parts[i] = dm.name + "=" + dm.keys[idx[i]]
			obj[dm.name] = dm.vals[idx[i]]
		}
		keys, vals = append(keys, strings.Join(parts, ",")), append(vals, cty.ObjectVal(obj))
		i := len(dims) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(dims[i].keys) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return keys, vals, nil
		}
	}
}

func collectionName(ty cty.Type) string {
	switch {
	case ty.IsSetType():
		return "set"
	default:
		return "list"
	}
}

// keyString is an element's string form as an instance key.
func keyString(v cty.Value) (string, error) {
	if v.IsNull() {
		return "", fmt.Errorf("a null element has no key")
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), nil
	case cty.Number:
		bf := v.AsBigFloat()
		if bf.IsInt() {
			if i, acc := bf.Int64(); acc == 0 {
				return strconv.FormatInt(i, 10), nil
			}
		}
		return bf.Text('f', -1), nil
	case cty.Bool:
		if v.True() {
			return "true", nil
		}
		return "false", nil
	}
	return "", fmt.Errorf("elements must be strings, numbers or bools to serve as keys, not %s", v.Type().FriendlyName())
}

// buildStageValue makes the `stage` object: stage.TYPE.NAME is an instance
// object for a plain stage and an object of instance objects by key for a
// for_each/matrix stage.
func (l *loader) buildStageValue() cty.Value {
	byType := map[string]map[string]cty.Value{}
	for _, sb := range l.blocks {
		if sb.typ == nil || sb.bad {
			continue
		}
		if byType[sb.typeName] == nil {
			byType[sb.typeName] = map[string]cty.Value{}
		}
		inst := func(addr string) cty.Value {
			attrs := map[string]cty.Value{
				instanceAttr: cty.CapsuleVal(refType, &refVal{addr: addr, output: sb.typ.Outputs[0].Name, whole: true}),
			}
			for _, o := range sb.typ.Outputs {
				attrs[o.Name] = cty.CapsuleVal(refType, &refVal{addr: addr, output: o.Name})
			}
			return cty.ObjectVal(attrs)
		}
		if !sb.isEach {
			byType[sb.typeName][sb.name] = inst(sb.addrs[0])
			continue
		}
		m := map[string]cty.Value{}
		for i, key := range sb.keys {
			m[key] = inst(sb.addrs[i])
		}
		byType[sb.typeName][sb.name] = objectOf(m)
	}
	out := map[string]cty.Value{}
	for t, m := range byType {
		out[t] = cty.ObjectVal(m)
	}
	return objectOf(out)
}

// decodeInstances evaluates the body of sb once per instance and adds the instances to the pipeline.
func (l *loader) decodeInstances(sb *stageBlock) {
	t := sb.typ
	var inputNames []string
	for _, in := range t.Inputs {
		inputNames = append(inputNames, in.Name)
	}
	hint := " Stage references go into input slots"
	if len(inputNames) > 0 {
		hint += " (" + strings.Join(inputNames, ", ") + ")."
	} else {
		hint = fmt.Sprintf(" Stage type %q has no input slots.", t.Name)
	}
	// Check every attribute once per block, not once per instance.
	type attrPlan struct {
		a     *hcl.Attribute
		param *registry.Param
		input *registry.Input
	}
	var plans []attrPlan
	failed := map[string]bool{} // reported already: not also "missing"
	for _, name := range sortedNames(sb.attrs) {
		a := sb.attrs[name]
		pl := attrPlan{a: a}
		if p, ok := t.Param(name); ok {
			pl.param = p
		} else if in, ok := t.Input(name); ok {
			pl.input = in
		} else {
			l.unknownParam(t, name, a.NameRange)
			continue
		}
		sc := scope{local: true, each: sb.isEach, stage: pl.input != nil,
			what: fmt.Sprintf("parameter %q", name), stageHint: hint}
		if l.checkRefs(a.Expr, sc) {
			plans = append(plans, pl)
		} else {
			failed[name] = true
		}
	}
	var resOK bool
	if sb.resources != nil {
		resOK = l.checkRefs(resourcesExprs(sb.resources), scope{local: true, each: sb.isEach, what: "a resources block"})
	}
	// One context serves every instance; only each changes (evaluation keeps no reference to it).
	vars := map[string]cty.Value{"var": objectOf(l.vars), "local": objectOf(l.locals), "stage": l.stageVal}
	ctx := &hcl.EvalContext{Variables: vars, Functions: l.funcs}
	set := map[string]bool{}
	// Where each parameter and input is set, for the problems Check and
	// CheckConnections report (the block's header for the rest): the
	// same for every instance, so one map serves them all.
	where := make(map[string]hcl.Range, len(plans)+1)
	for _, pl := range plans {
		where[pl.a.Name] = pl.a.Expr.Range()
	}
	for name, rng := range sb.blockWhere {
		where[name] = rng
	}
	where[""] = sb.block.DefRange
	for i, addr := range sb.addrs {
		if sb.isEach {
			vars["each"] = cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(sb.keys[i]), "value": sb.eachVals[i]})
		}
		inst := &Instance{
			Address: addr, Block: sb.id, EachKey: sb.keys[i], Type: t,
			Params: registry.Values{}, Inputs: map[string][]InputRef{},
			Range: sb.block.DefRange, Resources: l.pipeRes,
		}
		if !sb.isEach {
			inst.EachKey = ""
		}
		clear(set)
		for name := range failed {
			set[name] = true
		}
		bad := false // a parameter was reported: Check sees complete parameters only
		for _, pl := range plans {
			val, d := pl.a.Expr.Value(ctx)
			l.diags = append(l.diags, d...)
			if d.HasErrors() {
				set[pl.a.Name] = true // reported; don't also call it missing
				bad = true
				continue
			}
			if val.IsNull() {
				continue // null means "not set": the default applies
			}
			set[pl.a.Name] = true
			if pl.param != nil {
				if v, ok := l.convertParam(t, pl.param, val, pl.a.Expr.Range()); ok {
					inst.Params[pl.param.Name] = v
				} else {
					bad = true
				}
				continue
			}
			if pl.input.Named {
				l.resolveNamedInput(inst, pl.input, val, pl.a.Expr)
				continue
			}
			inst.Inputs[pl.input.Name] = l.resolveInput(inst, pl.input, val, pl.a.Expr.Range())
		}
		for _, p := range t.Params {
			if set[p.Name] {
				continue
			}
			if v, ok := sb.blockParams[p.Name]; ok {
				inst.Params[p.Name] = registry.CloneValue(v)
				continue
			}
			if dv, ok := l.defaults[t.Name][p.Name]; ok {
				inst.Params[p.Name] = registry.CloneValue(dv.value)
				if _, ok := where[p.Name]; !ok { // an attribute that is null in this instance stays
					where[p.Name] = dv.rng
				}
				continue
			}
			if p.Required {
				bad = true
				detail := fmt.Sprintf("Stage type %q requires parameter %q (%s)", t.Name, p.Name, p.Type)
				if p.Doc != "" {
					detail += ": " + p.Doc
				}
				l.errorf(rangePtr(sb.block.DefRange), "Missing required argument", "%s.", detail)
				continue
			}
			v := p.Default
			if p.Type == registry.Path {
				v = l.resolvePath(v.(string))
			}
			inst.Params[p.Name] = registry.CloneValue(v)
		}
		for _, in := range t.Inputs {
			if !set[in.Name] && !in.Optional {
				detail := fmt.Sprintf("Stage type %q requires input %q (kind %s)", t.Name, in.Name, in.Kind)
				if in.Doc != "" {
					detail += ": " + in.Doc
				}
				l.errorf(rangePtr(sb.block.DefRange), "Missing required input", "%s; give it a stage reference such as stage.TYPE.NAME.", detail)
			}
		}
		if !bad && len(failed) == 0 && len(inst.Params) == len(t.Params) {
			var probs []registry.Problem
			if t.Check != nil {
				probs = t.Check(inst.Params)
			}
			if t.CheckInputs != nil && len(probs) == 0 {
				probs = t.CheckInputs(inst.Params, sortedNames(inst.Inputs))
			}
			for _, pr := range probs {
				rng, ok := where[pr.Param]
				if !ok {
					rng = sb.block.DefRange
				}
				l.diags = append(l.diags, problemDiag(pr, rng))
			}
		}
		if l.attrs == nil {
			l.attrs = map[string]map[string]hcl.Range{}
		}
		l.attrs[addr] = where
		if sb.resources != nil && resOK {
			inst.Resources = l.decodeResources(sb.resources, ctx, scope{local: true, each: sb.isEach, what: "a resources block"}, l.pipeRes)
		}
		l.p.Instances = append(l.p.Instances, inst)
		l.p.ByAddress[addr] = inst
	}
}

// resolveInput turns an input slot's value into references and checks
// their number and kinds.
func (l *loader) resolveInput(inst *Instance, in *registry.Input, val cty.Value, rng hcl.Range) []InputRef {
	var refs []refVal
	if err := l.collectRefs(val, &refs); err == errUnknown {
		return nil
	} else if err != nil {
		l.errorf(&rng, "Invalid input",
			"Input slot %q of stage type %q takes stage references (stage.TYPE.NAME, stage.TYPE.NAME.OUTPUT, or a list of them): %v.",
			in.Name, inst.Type.Name, err)
		return nil
	}
	if !in.Many && len(refs) != 1 {
		l.errorf(&rng, "Wrong number of inputs",
			"Input slot %q of stage type %q takes exactly one stage output, got %d. Only slots that take many accept lists or for_each stages.",
			in.Name, inst.Type.Name, len(refs))
		return nil
	}
	if in.Many && len(refs) == 0 && !in.Optional {
		l.errorf(&rng, "No inputs", "Input slot %q of stage type %q needs at least one stage output; this value holds none.", in.Name, inst.Type.Name)
		return nil
	}
	var out []InputRef
	for _, r := range refs {
		if r.addr == inst.Address {
			l.errorf(&rng, "Stage refers to itself", "%s cannot consume its own output %q.", inst.Address, r.output)
			continue
		}
		pb := l.byName[blockOf(r.addr)]
		o, _ := pb.typ.Output(r.output)
		if !in.Kind.Accepts(o.Kind) {
			l.errorf(&rng, "Incompatible input kind",
				"Input slot %q of stage type %q accepts %s artifacts, but output %q of %s is %s.",
				in.Name, inst.Type.Name, in.Kind, r.output, r.addr, o.Kind)
			continue
		}
		out = append(out, InputRef{Producer: r.addr, Output: r.output})
	}
	return out
}

// blockOf returns TYPE.NAME of an instance address TYPE.NAME or TYPE.NAME["KEY"].
func blockOf(addr string) string {
	if i := strings.IndexByte(addr, '['); i >= 0 {
		return addr[:i]
	}
	return addr
}

func (l *loader) resolvePath(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(l.dir, p)
}

// convertParam converts an HCL value to the Go value of a parameter,
// reporting (and returning false) when it does not fit. The type-specific
// part (cty type, enums, ranges, whole numbers) is registry's codec.
func (l *loader) convertParam(t *registry.Type, p *registry.Param, val cty.Value, rng hcl.Range) (any, bool) {
	bad := func(format string, args ...any) (any, bool) {
		msg := fmt.Sprintf("Parameter %q of stage type %q %s", p.Name, t.Name, fmt.Sprintf(format, args...))
		if !strings.HasSuffix(msg, "?") {
			msg += "."
		}
		l.errorf(&rng, "Invalid value for parameter", "%s", msg)
		return nil, false
	}
	if !val.IsWhollyKnown() {
		return nil, false // an unknown value stands for an error reported elsewhere
	}
	if val.Type().Equals(refType) || (val.Type().IsObjectType() && val.Type().HasAttribute(instanceAttr)) {
		return bad("takes a value, not a stage reference")
	}
	if !p.Type.Known() {
		return bad("has an unsupported type %q", p.Type)
	}
	want := p.Type.CtyType()
	cv, err := convert.Convert(val, want)
	if err != nil {
		if want.IsListType() && (val.Type().IsTupleType() || val.Type().IsListType() || val.Type().IsSetType()) {
			return bad("must be %s: %v", p.Type.Friendly(), err)
		}
		return bad("must be %s, got %s", p.Type.Friendly(), friendlyType(val.Type()))
	}
	if n := longString(cv); n > 0 {
		return bad("holds a string of %d bytes, more than the limit of %d (1 MiB); pipelines pass names, paths and short texts, and read data from files", n, MaxStringBytes)
	}
	elems := []cty.Value{cv}
	if want.IsListType() {
		elems = cv.AsValueSlice()
	}
	for i, e := range elems {
		if e.IsNull() {
			if want.IsListType() {
				return bad("must not hold null (element %d)", i)
			}
			return bad("must not be null")
		}
	}
	v, err := p.FromCty(cv)
	if err != nil {
		return bad("%v", err)
	}
	if p.Type == registry.Path {
		v = l.resolvePath(v.(string))
	}
	return v, true
}

// friendlyType names a value's type as a pipeline author sees it.
func friendlyType(t cty.Type) string {
	switch {
	case t.IsTupleType() || t.IsListType():
		return "a list"
	case t.IsSetType():
		return "a set"
	case t.IsObjectType() || t.IsMapType():
		return "an object"
	case t == cty.String:
		return "a string"
	case t == cty.Number:
		return "a number"
	case t == cty.Bool:
		return "a bool"
	}
	return t.FriendlyName()
}

// resourcesExprs bundles a resources block's attribute expressions for checkRefs.
func resourcesExprs(b *hcl.Block) hcl.Expression {
	attrs, _ := b.Body.JustAttributes()
	var exprs []hcl.Expression
	for _, name := range sortedNames(attrs) {
		exprs = append(exprs, attrs[name].Expr)
	}
	return multiExpr(exprs)
}

// multiExpr exposes the variables of several expressions at once.
type multiExpr []hcl.Expression

func (m multiExpr) Value(*hcl.EvalContext) (cty.Value, hcl.Diagnostics) { return cty.NilVal, nil }
func (m multiExpr) Range() hcl.Range                                    { return hcl.Range{} }
func (m multiExpr) StartRange() hcl.Range                               { return hcl.Range{} }
func (m multiExpr) Variables() []hcl.Traversal {
	var ts []hcl.Traversal
	for _, e := range m {
		ts = append(ts, e.Variables()...)
	}
	return ts
}

var memRE = regexp.MustCompile(`^(?i)\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)(?:I?B)?\s*$`)

// parseMem reads "4G", "512M", "1.5GB", "2048" (MiB, as in Slurm) into MiB, rounding up.
func parseMem(s string) (int64, error) {
	m := memRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a memory size such as \"4G\", \"512M\" or \"2048\" (MiB)", s)
	}
	x, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, err)
	}
	factor := map[string]float64{"": 1, "K": 1.0 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}[strings.ToUpper(m[2])]
	mb := math.Ceil(x * factor)
	if mb <= 0 || mb > 1<<40 {
		return 0, fmt.Errorf("%q is not a positive memory size", s)
	}
	return int64(mb), nil
}

var daysRE = regexp.MustCompile(`^([0-9]+)d(.*)$`)

// parseTime reads a Go duration ("1h30m"), optionally led by days ("2d", "1d12h").
func parseTime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if m := daysRE.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > 365 {
			return 0, fmt.Errorf("%q: too many days", s)
		}
		d = time.Duration(n) * 24 * time.Hour
		s = m[2]
	}
	if s != "" {
		x, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration such as \"90m\", \"1h30m\" or \"2d\"", s)
		}
		d += x
	}
	if d <= 0 {
		return 0, fmt.Errorf("a time limit must be positive")
	}
	return d, nil
}

// decodeResources reads a resources block over base.
func (l *loader) decodeResources(b *hcl.Block, ctx *hcl.EvalContext, sc scope, base Resources) Resources {
	r := base
	content, d := b.Body.Content(resourcesSchema)
	l.diags = append(l.diags, d...)
	for _, name := range sortedNames(content.Attributes) {
		a := content.Attributes[name]
		if !l.checkRefs(a.Expr, sc) {
			continue
		}
		val, d := a.Expr.Value(ctx)
		l.diags = append(l.diags, d...)
		// An unknown value stands for an error reported elsewhere (a
		// variable or local in error).
		if d.HasErrors() || val.IsNull() || !val.IsWhollyKnown() {
			continue
		}
		rng := a.Expr.Range()
		bad := func(format string, args ...any) {
			l.errorf(&rng, "Invalid resource request", "%s %s.", name, fmt.Sprintf(format, args...))
		}
		switch name {
		case "cpus", "gpus":
			n, err := convert.Convert(val, cty.Number)
			if err != nil || !n.IsKnown() {
				bad("must be a whole number")
				continue
			}
			bf := n.AsBigFloat()
			i, acc := bf.Int64()
			min := int64(0)
			if name == "cpus" {
				min = 1
			}
			if !bf.IsInt() || acc != 0 || i < min || i > 1<<20 {
				bad("must be a whole number ≥ %d, got %s", min, bf.Text('g', -1))
				continue
			}
			if name == "cpus" {
				r.CPUs = int(i)
			} else {
				r.GPUs = int(i)
			}
		case "mem", "time":
			s, err := convert.Convert(val, cty.String)
			if err != nil {
				bad("must be a string such as %s", map[string]string{"mem": `"4G"`, "time": `"1h"`}[name])
				continue
			}
			if name == "mem" {
				mb, err := parseMem(s.AsString())
				if err != nil {
					bad("%v", err)
					continue
				}
				r.MemMB = mb
			} else {
				dur := time.Duration(0)
				if val.Type() == cty.Number { // minutes, as in Slurm
					f, _ := val.AsBigFloat().Float64()
					dur = time.Duration(f * float64(time.Minute))
					if dur <= 0 {
						err = fmt.Errorf("a time limit must be positive")
					}
				} else {
					dur, err = parseTime(s.AsString())
				}
				if err != nil {
					bad("%v", err)
					continue
				}
				r.Time = dur
			}
		}
	}
	return r
}

// problemDiag turns a stage type's Problem into a diagnostic at rng.
func problemDiag(pr registry.Problem, rng hcl.Range) *hcl.Diagnostic {
	sev := hcl.DiagError
	if pr.Warning {
		sev = hcl.DiagWarning
	}
	return &hcl.Diagnostic{Severity: sev, Summary: pr.Summary, Detail: pr.Detail, Subject: rng.Ptr()}
}

// checkConnections runs the CheckConnections hook of every instance whose type has
// one, once the whole pipeline is valid (a problem reported before would
// only repeat), with its producers' parameters; each problem is reported
// at the attribute it names.
func (l *loader) checkConnections() {
	if l.diags.HasErrors() {
		return
	}
	for _, inst := range l.p.Instances {
		if inst.Type.CheckConnections == nil {
			continue
		}
		inputs := map[string][]registry.InputInfo{}
		for slot, refs := range inst.Inputs {
			for _, r := range refs {
				prod, ok := l.p.ByAddress[r.Producer]
				if !ok {
					continue
				}
				inputs[slot] = append(inputs[slot], registry.InputInfo{Address: prod.Address, Type: prod.Type.Name, Output: r.Output, Params: prod.Params})
			}
		}
		where := l.attrs[inst.Address]
		for _, pr := range inst.Type.CheckConnections(inst.Params, inputs) {
			rng, ok := where[pr.Param]
			if !ok {
				rng = where[""]
			}
			l.diags = append(l.diags, problemDiag(pr, rng))
		}
	}
}
