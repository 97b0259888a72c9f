package pipeline

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// scope says which roots an expression may name.
type scope struct {
	local     bool   // local.NAME
	each      bool   // each.key, each.value
	stage     bool   // stage.TYPE.NAME...
	what      string // where the expression is, for messages: "a local value"
	stageHint string // why stage references are not allowed here, appended to the message
}

// attrStep returns the name of t's i-th step when it is an attribute access.
func attrStep(t hcl.Traversal, i int) (string, bool) {
	if i >= len(t) {
		return "", false
	}
	switch s := t[i].(type) {
	case hcl.TraverseAttr:
		return s.Name, true
	case hcl.TraverseRoot:
		return s.Name, true
	}
	return "", false
}

// checkRefs reports every reference in expr that is not allowed in sc or
// names something undeclared. It returns false when expr must not be
// evaluated (because that would only repeat the problem less clearly).
func (l *loader) checkRefs(expr hcl.Expression, sc scope) bool {
	ok := true
	for _, t := range expr.Variables() {
		if !l.checkTraversal(t, sc) {
			ok = false
		}
	}
	return ok
}

func (l *loader) checkTraversal(t hcl.Traversal, sc scope) bool {
	rng := t.SourceRange()
	root := t.RootName()
	name, hasName := attrStep(t, 1)
	switch root {
	case "var":
		if !hasName {
			l.errorf(&rng, "Invalid reference", "var must be followed by a variable name, as in var.seeds.")
			return false
		}
		if _, ok := l.varDecls[name]; !ok {
			detail := fmt.Sprintf("No variable %q is declared; declare it with a variable %q block.", name, name)
			if s := registry.DidYouMean(name, sortedNames(l.varDecls)); s != "" {
				detail = fmt.Sprintf("No variable %q is declared. Did you mean %q?", name, s)
			}
			l.errorf(&rng, "Reference to undeclared variable", "%s", detail)
			return false
		}
	case "local":
		if !sc.local {
			l.errorf(&rng, "Local values are not available here", "%s cannot refer to local values.", capitalize(sc.what))
			return false
		}
		if !hasName {
			l.errorf(&rng, "Invalid reference", "local must be followed by a local value's name, as in local.datasets.")
			return false
		}
		if _, ok := l.localDefs[name]; !ok {
			detail := fmt.Sprintf("No local value %q is defined in a locals block.", name)
			if s := registry.DidYouMean(name, sortedNames(l.localDefs)); s != "" {
				detail += fmt.Sprintf(" Did you mean %q?", s)
			}
			l.errorf(&rng, "Reference to undeclared local value", "%s", detail)
			return false
		}
	case "each":
		if !sc.each {
			l.errorf(&rng, "each is not available here",
				"each.key and each.value exist only in the body of a stage with for_each or matrix, not in %s.", sc.what)
			return false
		}
		if name != "key" && name != "value" {
			l.errorf(&rng, "Invalid reference", "each has two attributes, each.key and each.value.")
			return false
		}
	case "stage":
		if !sc.stage {
			l.errorf(&rng, "Stage reference not allowed here", "%s cannot refer to stages.%s", capitalize(sc.what), sc.stageHint)
			return false
		}
		return l.checkStageRef(t)
	default:
		detail := fmt.Sprintf("There is no variable named %q. Expressions can use var.NAME, local.NAME, each.key, each.value and stage.TYPE.NAME.", root)
		if s := registry.DidYouMean(root, []string{"var", "local", "each", "stage"}); s != "" {
			detail += fmt.Sprintf(" Did you mean %q?", s)
		}
		l.errorf(&rng, "Unknown variable", "%s", detail)
		return false
	}
	return true
}

// checkStageRef checks stage.TYPE.NAME[KEY].OUTPUT against the declared
// stages, their instance keys and their types' outputs.
func (l *loader) checkStageRef(t hcl.Traversal) bool {
	rng := t.SourceRange()
	typeName, ok1 := attrStep(t, 1)
	name, ok2 := attrStep(t, 2)
	if !ok1 || !ok2 {
		l.errorf(&rng, "Invalid stage reference", "A stage reference has the form stage.TYPE.NAME, optionally followed by [\"KEY\"] and .OUTPUT.")
		return false
	}
	id := typeName + "." + name
	blk := l.byName[id]
	if blk == nil {
		detail := fmt.Sprintf("No stage %q is declared in this pipeline.", id)
		if s := registry.DidYouMean(id, sortedNames(l.byName)); s != "" {
			detail += fmt.Sprintf(" Did you mean stage.%s?", s)
		}
		l.errorf(&rng, "Reference to undeclared stage", "%s", detail)
		return false
	}
	if blk.typ == nil || blk.bad || blk.outputsBad {
		return false // already reported at the producer
	}
	rest := t[3:]
	if blk.isEach {
		if len(rest) > 0 {
			switch s := rest[0].(type) {
			case hcl.TraverseIndex:
				key, err := convert.Convert(s.Key, cty.String)
				if err != nil || !key.IsKnown() || key.IsNull() {
					l.errorf(&rng, "Invalid instance key", "Instances of stage.%s are selected by a string key.", id)
					return false
				}
				if _, ok := blk.keyIndex[key.AsString()]; !ok {
					detail := fmt.Sprintf("stage.%s has no instance %q. Its keys are: %s.", id, key.AsString(), registry.QuoteList(blk.keys, 12))
					if s := registry.DidYouMean(key.AsString(), blk.keys); s != "" {
						detail += fmt.Sprintf(" Did you mean %q?", s)
					}
					l.errorf(&rng, "Reference to a missing instance", "%s", detail)
					return false
				}
				rest = rest[1:]
			case hcl.TraverseAttr:
				l.errorf(&rng, "Missing instance key",
					"stage.%s has for_each or matrix: select an instance with stage.%s[\"KEY\"] before .%s, or give stage.%s whole to an input slot that takes many.",
					id, id, s.Name, id)
				return false
			}
		}
	} else if len(rest) > 0 {
		if _, isIndex := rest[0].(hcl.TraverseIndex); isIndex {
			l.errorf(&rng, "Invalid index", "stage.%s has no for_each or matrix, so it has no instances to index.", id)
			return false
		}
	}
	if len(rest) > 0 {
		out, ok := rest[0].(hcl.TraverseAttr)
		if !ok {
			l.errorf(&rng, "Invalid stage reference", "Expected an output name after the stage.")
			return false
		}
		if _, ok := blk.typ.Output(out.Name); !ok {
			var names []string
			for _, o := range blk.typ.Outputs {
				names = append(names, o.Name)
			}
			detail := fmt.Sprintf("Stage type %q has no output %q; its outputs are: %s.", blk.typ.Name, out.Name, strings.Join(names, ", "))
			if s := registry.DidYouMean(out.Name, names); s != "" {
				detail += fmt.Sprintf(" Did you mean %q?", s)
			}
			l.errorf(&rng, "Unknown output", "%s", detail)
			return false
		}
		if len(rest) > 1 {
			l.errorf(&rng, "Invalid stage reference", "Nothing may follow the output name %q.", out.Name)
			return false
		}
	}
	return true
}

func capitalize(s string) string {
	if s == "" {
		return "This expression"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// refVal is the value a stage reference evaluates to: one output of one
// instance. A whole instance (stage.TYPE.NAME without .OUTPUT) is an object
// of its outputs plus the attribute instanceAttr holding its first output
// with whole set.
type refVal struct {
	addr   string
	output string
	whole  bool
}

// errUnknown says that a value is unknown because of an error reported elsewhere.
var errUnknown = fmt.Errorf("unknown value")

// instanceAttr marks an object as a stage instance.
const instanceAttr = "__instance"

var refType = cty.Capsule("stage reference", reflect.TypeOf(refVal{}))

// collectRefs flattens an input slot's value into references: a single
// reference, an instance (its first output), a list/tuple/set of them in
// order, or a map/object of them (a for_each stage's instances) in
// declaration/expansion order.
func (l *loader) collectRefs(v cty.Value, out *[]refVal) error {
	if v.IsNull() {
		return nil
	}
	if !v.IsKnown() {
		return errUnknown
	}
	ty := v.Type()
	switch {
	case ty.Equals(refType):
		*out = append(*out, *v.EncapsulatedValue().(*refVal))
		return nil
	case ty.IsObjectType() && ty.HasAttribute(instanceAttr):
		r := *v.GetAttr(instanceAttr).EncapsulatedValue().(*refVal)
		*out = append(*out, r)
		return nil
	case ty.IsObjectType() || ty.IsMapType():
		var tmp []refVal
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if err := l.collectRefs(e, &tmp); err != nil {
				return err
			}
		}
		sort.SliceStable(tmp, func(i, j int) bool { return l.order[tmp[i].addr] < l.order[tmp[j].addr] })
		*out = append(*out, tmp...)
		return nil
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if err := l.collectRefs(e, out); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("got %s", ty.FriendlyName())
}
