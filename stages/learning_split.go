package stages

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// The official HyLa code (hype/hyla_utils.py split_data, copied from HGCN)
// splits Disease and Airport with
//
//	pos_idx = labels.nonzero()[0]
//	neg_idx = (1. - labels).nonzero()[0]
//
// which is the intended "label != 0 / label == 0" rule only for binary
// labels. For Airport's four classes, neg_idx is "label != 1": nodes of
// classes 2 and 3 are in both lists, so they can land twice in a set and in
// two sets at once (measured here: about 230 of Airport's 524 test entries
// are also training entries). The paper's Airport numbers were obtained with
// that split. The hgcn_split stage offers both: variant "code" reproduces the
// official code's lists (duplicates included; the shuffles use this
// project's seeded generator, not numpy's), variant "disjoint" is the
// intended rule (the same as the split stage's rule hgcn).

func learnHGCNSplitType() *registry.Type {
	return &registry.Type{
		Name:    "hgcn_split",
		Version: "1",
		Doc: "HGCN's train/validation/test rule for Disease and Airport as the official HyLa code applies it. " +
			"variant code: positives = label != 0, negatives = label != 1 (the code's (1 − labels).nonzero(): " +
			"for more than two classes, nodes of classes ≥ 2 are in both lists, so sets may hold a node twice and " +
			"test may overlap train — the protocol behind the paper's Airport numbers); variant disjoint: " +
			"negatives = label == 0 (the intended rule; the same as the split stage's rule hgcn). Each list is " +
			"shuffled with the seed, m = min of the two counts, val = the first round(p_val·m) of each, test = the " +
			"next round(p_test·m) of each, train = the rest of both. For binary labels both variants agree. " +
			"p_val/p_test < 0 take the official values (disease 0.10/0.60, airport 0.15/0.15).",
		Params: []registry.Param{
			{Name: "variant", Type: registry.String, Default: "code", Enum: []string{"code", "disjoint"}, Doc: "the official code's lists (code) or disjoint sets"},
			{Name: "seed", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "seed of the shuffles"},
			{Name: "p_val", Type: registry.Float, Range: registry.Range{}.Below(1), Default: -1.0, Doc: "validation proportion (negative: the dataset's official value)"},
			{Name: "p_test", Type: registry.Float, Range: registry.Range{}.Below(1), Default: -1.0, Doc: "test proportion (negative: the dataset's official value)"},
		},
		Inputs:  []registry.Input{{Name: "graph", Kind: schema.KindGraph, Doc: "graph whose labels are split"}},
		Outputs: []registry.Output{{Name: dataOutSplit, Kind: schema.KindSplit, Doc: "train, val, test node indices (variant code: possibly repeated)"}},
		Run:     learnRunHGCNSplit,
	}
}

func learnRunHGCNSplit(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	in, err := dataOneInput(job, "graph")
	if err != nil {
		return nil, fmt.Errorf("hgcn_split: %w", err)
	}
	info, err := dataInfo(in)
	if err != nil {
		return nil, fmt.Errorf("hgcn_split: %w", err)
	}
	labels, err := in.Ints(schema.MemberLabels)
	if err != nil {
		return nil, fmt.Errorf("hgcn_split: graph %s: %w", info.Name, err)
	}
	p := job.Params
	pv, pt := p.Float("p_val"), p.Float("p_test")
	if pv < 0 || pt < 0 {
		def, ok := dataOfficialSplit(info)
		if !ok {
			return nil, fmt.Errorf("hgcn_split: no official proportions for %s; set p_val and p_test", info.Name)
		}
		if pv < 0 {
			pv = def[0]
		}
		if pt < 0 {
			pt = def[1]
		}
	}
	seed := p.Int("seed")
	var train, val, test []int
	if p.String("variant") == "disjoint" {
		train, val, test, err = datasets.HGCNSplit(labels, pv, pt, uint64(seed))
	} else {
		train, val, test, err = learnHGCNCodeSplit(labels, pv, pt, uint64(seed))
	}
	if err != nil {
		return nil, fmt.Errorf("hgcn_split: %s: %w", info.Name, err)
	}
	out := bundle.New(schema.KindSplit)
	out.SetInts(schema.MemberTrain, dataNonNil(train))
	out.SetInts(schema.MemberVal, dataNonNil(val))
	out.SetInts(schema.MemberTest, dataNonNil(test))
	if err := out.SetJSON(schema.MemberInfo, schema.SplitInfo{Rule: "hgcn-" + p.String("variant"), Seed: seed}); err != nil {
		return nil, err
	}
	job.Logf("hgcn_split %s seed %d: %d train, %d val, %d test entries", p.String("variant"), seed, len(train), len(val), len(test))
	return map[string]artifact.Artifact{dataOutSplit: out}, ctx.Err()
}

// learnHGCNCodeSplit is split_data of the official code: positives are the
// nodes with label != 0, negatives those with label != 1 (unlabelled nodes,
// label < 0, are left out of both).
func learnHGCNCodeSplit(labels []int, pVal, pTest float64, seed uint64) (train, val, test []int, err error) {
	if !(pVal >= 0) || !(pTest >= 0) || pVal+pTest > 1 {
		return nil, nil, nil, fmt.Errorf("split proportions val=%v test=%v must be non-negative and sum to at most 1", pVal, pTest)
	}
	var pos, neg []int
	for i, l := range labels {
		if l < 0 {
			continue
		}
		if l != 0 {
			pos = append(pos, i)
		}
		if l != 1 {
			neg = append(neg, i)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6867636e)) // "hgcn", as datasets.HGCNSplit
	rng.Shuffle(len(pos), func(i, j int) { pos[i], pos[j] = pos[j], pos[i] })
	rng.Shuffle(len(neg), func(i, j int) { neg[i], neg[j] = neg[j], neg[i] })
	m := min(len(pos), len(neg))
	nv := int(math.RoundToEven(pVal * float64(m)))
	nt := min(int(math.RoundToEven(pTest*float64(m))), m-nv)
	val = append(slices.Clone(pos[:nv]), neg[:nv]...)
	test = append(slices.Clone(pos[nv:nv+nt]), neg[nv:nv+nt]...)
	train = append(slices.Clone(pos[nv+nt:]), neg[nv+nt:]...)
	return train, val, test, nil
}
