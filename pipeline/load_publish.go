package pipeline

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Publish is a `publish "DIR" { … }` block: outputs a successful run copies,
// in forms a user opens directly, into DIR (relative to the pipeline file),
// cached or not. See docs/pipeline-language.md, "Publishing results".
type Publish struct {
	// Label is DIR as written; Dir is its absolute path.
	Label, Dir string
	// Enabled is the block's `enabled` value (true when absent).
	Enabled bool
	// Items are the outputs to publish, in the order written.
	Items []PublishItem
	Range hcl.Range
}

// PublishItem is one output to publish: a whole artifact (from = […]),
// written into Dir/Name/ by Artifact.WriteFiles, or one file member of it
// (a file "NAME" block), written as Dir/Name.
type PublishItem struct {
	InputRef
	// Name is the directory (whole artifact) or file (Member set) written
	// inside Dir; always a plain name, never a path.
	Name string
	// Member names the file member (or JSON member, written indented) to
	// copy; "" publishes the whole artifact.
	Member string
	Range  hcl.Range
}

var publishSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "from"}, {Name: "enabled"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "file", LabelNames: []string{"name"}}},
}

var publishFileSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "from", Required: true}, {Name: "member", Required: true}},
}

var publishUnsafe = regexp.MustCompile(`[^A-Za-z0-9._=,-]+`)

// publishDirName turns an instance address (and an output other than the
// type's first) into a directory name: evaluate.reddit["synthetic"] →
// evaluate.reddit-synthetic; kernel.figure1 output extra → kernel.figure1.extra.
func publishDirName(addr, output, first string) string {
	s := strings.Trim(publishUnsafe.ReplaceAllString(addr, "-"), "-.")
	if s == "" {
		s = "output"
	}
	if output != first {
		s += "." + publishUnsafe.ReplaceAllString(output, "-")
	}
	return s
}

// decodePublish reads the publish blocks; it runs after the stages are decoded.
func (l *loader) decodePublish(blocks []*hcl.Block) {
	dirs := map[string]*Publish{}
	vars := map[string]cty.Value{"var": objectOf(l.vars), "local": objectOf(l.locals), "stage": l.stageVal}
	ctx := &hcl.EvalContext{Variables: vars, Functions: l.funcs}
	sc := scope{local: true, stage: true, what: "a publish block"}
	for _, b := range blocks {
		label := b.Labels[0]
		rng := b.LabelRanges[0]
		if strings.TrimSpace(label) == "" || filepath.Clean(label) == "." {
			l.errorf(&rng, "Invalid publish directory",
				"A publish block names a directory of its own, relative to the pipeline file, such as \"../results/%s\".", l.p.Name)
			continue
		}
		dir := label
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(l.dir, dir)
		}
		dir = filepath.Clean(dir)
		if prev, dup := dirs[dir]; dup {
			l.errorf(rangePtr(b.DefRange), "Duplicate publish block", "Directory %q is already published by the block at %s.", label, prev.Range)
			continue
		}
		pub := &Publish{Label: label, Dir: dir, Enabled: true, Range: b.DefRange}
		dirs[dir] = pub
		content, d := b.Body.Content(publishSchema)
		l.diags = append(l.diags, d...)
		if a, ok := content.Attributes["enabled"]; ok && l.checkRefs(a.Expr, scope{local: true, what: "a publish block's enabled"}) {
			val, d := a.Expr.Value(l.base)
			l.diags = append(l.diags, d...)
			switch {
			case d.HasErrors() || !val.IsWhollyKnown():
			case val.IsNull() || val.Type() != cty.Bool:
				l.errorf(a.Expr.Range().Ptr(), "Invalid enabled value", "enabled must be true or false, got %s.", friendlyType(val.Type()))
			default:
				pub.Enabled = val.True()
			}
		}
		names := map[string]hcl.Range{}
		add := func(it PublishItem) {
			if prev, dup := names[it.Name]; dup {
				l.errorf(&it.Range, "Duplicate published name",
					"%s would write %q in %q, which the item at %s writes already.", it.Producer, it.Name, label, prev)
				return
			}
			names[it.Name] = it.Range
			pub.Items = append(pub.Items, it)
		}
		if a, ok := content.Attributes["from"]; ok {
			refs, _ := l.publishRefs(a, ctx, sc)
			for _, r := range refs {
				pb := l.byName[blockOf(r.addr)]
				add(PublishItem{InputRef: InputRef{Producer: r.addr, Output: r.output},
					Name: publishDirName(r.addr, r.output, pb.typ.Outputs[0].Name), Range: a.Expr.Range()})
			}
		}
		for _, fb := range content.Blocks {
			name := fb.Labels[0]
			frng := fb.LabelRanges[0]
			if !plainName(name) {
				l.errorf(&frng, "Invalid file name", "%q is not a plain file name: a published file lies directly in the publish directory (no / or ..).", name)
				continue
			}
			fc, d := fb.Body.Content(publishFileSchema)
			l.diags = append(l.diags, d...)
			if d.HasErrors() {
				continue
			}
			member, ok := l.evalString(fc.Attributes["member"], l.base, scope{local: true, what: "a file block's member"})
			if !ok {
				continue
			}
			refs, ok := l.publishRefs(fc.Attributes["from"], ctx, sc)
			if !ok {
				continue
			}
			if len(refs) != 1 {
				l.errorf(fc.Attributes["from"].Expr.Range().Ptr(), "Wrong number of outputs",
					"A file block copies a member of one stage output, got %d.", len(refs))
				continue
			}
			add(PublishItem{InputRef: InputRef{Producer: refs[0].addr, Output: refs[0].output},
				Name: name, Member: member, Range: fb.DefRange})
		}
		if content.Attributes["from"] == nil && len(content.Blocks) == 0 {
			l.errorf(rangePtr(b.DefRange), "Nothing to publish",
				"A publish block takes from = [stage.TYPE.NAME, …] and/or file \"NAME\" { from = stage.TYPE.NAME  member = \"MEMBER\" } blocks.")
			continue
		}
		l.p.Publish = append(l.p.Publish, pub)
	}
}

// publishRefs evaluates a publish block's from attribute into references.
// ok is false when a problem was reported (or stands behind an unknown value).
func (l *loader) publishRefs(a *hcl.Attribute, ctx *hcl.EvalContext, sc scope) (refs []refVal, ok bool) {
	if !l.checkRefs(a.Expr, sc) {
		return nil, false
	}
	val, d := a.Expr.Value(ctx)
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		return nil, false
	}
	if err := l.collectRefs(val, &refs); err == errUnknown {
		return nil, false
	} else if err != nil {
		l.errorf(a.Expr.Range().Ptr(), "Invalid publish source",
			"from takes stage references (stage.TYPE.NAME, stage.TYPE.NAME.OUTPUT, or a list of them): %v.", err)
		return nil, false
	}
	return refs, true // none: a for_each stage without instances publishes nothing
}

// plainName reports whether name is a file name without any path in it.
func plainName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00") && name == filepath.Base(name)
}

// PublishSummary describes the publish blocks for plan: one line per
// block, "DIR: evaluate.quickstart/, kernel_disk.png (kernel.figure1
// disk_kernel.png)", with DIR the block's directory as show renders it.
func (p *Pipeline) PublishSummary(show func(dir string) string) []string {
	var out []string
	for _, pub := range p.Publish {
		var items []string
		for _, it := range pub.Items {
			if it.Member == "" {
				items = append(items, it.Name+"/")
			} else {
				items = append(items, fmt.Sprintf("%s (%s %s)", it.Name, it.Producer, it.Member))
			}
		}
		line := show(pub.Dir) + "/: " + strings.Join(items, ", ")
		if !pub.Enabled {
			line += " (disabled)"
		}
		out = append(out, line)
	}
	return out
}
