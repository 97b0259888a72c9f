package pipeline

// Stage types whose schema a pipeline completes (the command stage):
// parameters declared by nested blocks (registry.Blocks), outputs those
// blocks declare (registry.Type.DeclaredOutputs) and Named input slots
// whose attributes name the inputs.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// blockParam returns the Blocks parameter of t declared by nested blocks
// of type blockType.
func blockParam(t *registry.Type, blockType string) (*registry.Param, bool) {
	if t == nil {
		return nil, false
	}
	for i := range t.Params {
		if p := &t.Params[i]; p.Type == registry.Blocks && p.Block == blockType {
			return p, true
		}
	}
	return nil, false
}

// decodeBlockParams reads the nested blocks of sb that declare Blocks
// parameters (the same for every instance: they may use variables and
// locals only) and, for a type with DeclaredOutputs, makes sb's type the
// one its instances have, with the declared outputs. A block in error is
// marks sb.outputsBad: the instances are still decoded and checked (every
// problem is reported at once), but references to the stage's outputs are
// not checked further.
func (l *loader) decodeBlockParams(sb *stageBlock) {
	t := sb.typ
	sb.blockParams = registry.Values{}
	sb.blockWhere = map[string]hcl.Range{}
	ok := true
	for _, p := range t.Params {
		if p.Type != registry.Blocks {
			continue
		}
		elems := []map[string]string{}
		seen := map[string]hcl.Range{}
		for _, b := range sb.nested {
			if b.Type != p.Block {
				continue
			}
			if len(b.Labels) != 1 {
				l.errorf(rangePtr(b.DefRange), "Missing name", "%s %s block takes one label, its name: %s \"NAME\" { … }.", article(p.Block, true), p.Block, p.Block)
				ok = false
				continue
			}
			name := b.Labels[0]
			if prev, dup := seen[name]; dup {
				l.errorf(rangePtr(b.LabelRanges[0]), "Duplicate "+p.Block, "%s %q was already declared at %s.", p.Block, name, prev)
				ok = false
				continue
			}
			seen[name] = b.DefRange
			// A block in error still declares its name (so that argv's
			// {outputs.NAME} is not also reported), not its outputs.
			elem, good := l.decodeNestedBlock(t, p, b)
			if !good {
				ok = false
			}
			elem["name"] = name
			elems = append(elems, elem)
			sb.blockWhere[p.Name+"."+name] = b.DefRange
		}
		if len(elems) > 0 {
			sb.blockParams[p.Name] = elems
		}
	}
	if !ok {
		sb.outputsBad = true
	}
	if t.DeclaredOutputs == nil {
		return
	}
	params := registry.Values{}
	for _, p := range t.Params {
		if p.Type == registry.Blocks {
			params[p.Name] = registry.CloneValue(p.Default)
			if v, set := sb.blockParams[p.Name]; set {
				params[p.Name] = v
			}
		}
	}
	it, err := t.ForInstance(params)
	if err != nil {
		if ok { // else the blocks' own errors say why
			l.errorf(rangePtr(sb.block.DefRange), "Invalid outputs", "%s: %v.", sb.id, err)
		}
		sb.outputsBad = true
		return
	}
	sb.typ = it
}

// decodeNestedBlock reads the string attributes of one nested block.
func (l *loader) decodeNestedBlock(t *registry.Type, p registry.Param, b *hcl.Block) (map[string]string, bool) {
	var names []string
	for _, a := range p.BlockAttrs {
		names = append(names, a.Name)
	}
	elem := map[string]string{}
	attrs, d := b.Body.JustAttributes()
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		return elem, false
	}
	ok := true
	for _, name := range sortedNames(attrs) {
		a := attrs[name]
		i := slices.IndexFunc(p.BlockAttrs, func(ba registry.BlockAttr) bool { return ba.Name == name })
		if i < 0 {
			detail := fmt.Sprintf("%s %s block of stage type %q takes %s; not %q.", article(p.Block, true), p.Block, t.Name, strings.Join(names, ", "), name)
			if s := registry.DidYouMean(name, names); s != "" {
				detail += fmt.Sprintf(" Did you mean %q?", s)
			}
			l.errorf(a.NameRange.Ptr(), "Unsupported argument", "%s", detail)
			ok = false
			continue
		}
		ba := p.BlockAttrs[i]
		sc := scope{local: true, what: fmt.Sprintf("%s %s block", article(p.Block, false), p.Block),
			stageHint: fmt.Sprintf(" %s %s block is the same for every instance of the stage.", article(p.Block, true), p.Block)}
		if !l.checkRefs(a.Expr, sc) {
			ok = false
			continue
		}
		val, d := a.Expr.Value(l.base)
		l.diags = append(l.diags, d...)
		if d.HasErrors() || !val.IsWhollyKnown() {
			ok = false
			continue
		}
		s, err := convert.Convert(val, cty.String)
		if err != nil || s.IsNull() {
			l.errorf(a.Expr.Range().Ptr(), "Incorrect value type", "%s of a %s block must be a string.", name, p.Block)
			ok = false
			continue
		}
		v := s.AsString()
		if len(ba.Enum) > 0 && !slices.Contains(ba.Enum, v) {
			detail := fmt.Sprintf("%s must be one of %s; got %q.", name, registry.QuoteList(ba.Enum, 50), v)
			if sug := registry.DidYouMean(v, ba.Enum); sug != "" {
				detail += fmt.Sprintf(" Did you mean %q?", sug)
			}
			l.errorf(a.Expr.Range().Ptr(), "Invalid value", "%s", detail)
			ok = false
			continue
		}
		elem[name] = v
	}
	for _, ba := range p.BlockAttrs {
		if _, set := elem[ba.Name]; !set && ba.Required && attrs[ba.Name] == nil {
			l.errorf(rangePtr(b.DefRange), "Missing required argument", "%s %s block needs %s: %s.", article(p.Block, true), p.Block, ba.Name, ba.Doc)
			ok = false
		}
	}
	return elem, ok
}

// resolveNamedInput turns the object of a Named input slot into one
// input slot per attribute ("SLOT.NAME"), each taking one stage output.
func (l *loader) resolveNamedInput(inst *Instance, in *registry.Input, val cty.Value, expr hcl.Expression) {
	rng := expr.Range()
	ty := val.Type()
	if val.IsNull() || !(ty.IsObjectType() || ty.IsMapType()) || ty.Equals(refType) || ty.IsObjectType() && ty.HasAttribute(instanceAttr) {
		l.errorf(&rng, "Invalid input",
			"Input %q of stage type %q takes an object of names and stage references, as in %s = { features = stage.precompute.cora }.",
			in.Name, inst.Type.Name, in.Name)
		return
	}
	// Locate each entry at its own value when the object is written out.
	where := map[string]hcl.Range{}
	if oc, ok := expr.(*hclsyntax.ObjectConsExpr); ok {
		for _, item := range oc.Items {
			if k, d := item.KeyExpr.Value(nil); !d.HasErrors() && k.Type() == cty.String && k.IsKnown() {
				where[k.AsString()] = item.ValueExpr.Range()
			}
		}
	}
	for it := val.ElementIterator(); it.Next(); {
		k, v := it.Element()
		name := k.AsString()
		r, ok := where[name]
		if !ok {
			r = rng
		}
		if !hclsyntax.ValidIdentifier(name) || strings.Contains(name, "-") {
			l.errorf(&r, "Invalid input name", "Input name %q: names are identifiers (letters, digits, underscores), as in {%s.NAME}.", name, in.Name)
			continue
		}
		one := registry.Input{Name: in.Name + "." + name, Kind: in.Kind, Doc: in.Doc}
		if refs := l.resolveInput(inst, &one, v, r); refs != nil {
			inst.Inputs[one.Name] = refs
		}
	}
}

// article is "a" or "an" before word ("A"/"An" when upper).
func article(word string, upper bool) string {
	a := "a"
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		a = "an"
	}
	if upper {
		return strings.ToUpper(a[:1]) + a[1:]
	}
	return a
}
