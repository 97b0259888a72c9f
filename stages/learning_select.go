package stages

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
)

// Model selection on validation for the evaluate stage (select_on): runs
// whose model label is "FAMILY SETTING…" (e.g. "hyla-sgc K=2 s=0.1") are
// grouped by dataset and family; each family keeps the setting with the
// highest mean of the select_on metric over its runs (the first in label
// order on a tie), and only that setting's runs make the family's cell.

// learnSelection is what selection chose.
type learnSelection struct {
	chosen map[[2]string]string // (dataset, family) → setting
	notes  []string
}

// learnSplitLabel splits a model label into its family (the first word)
// and its setting (the rest).
func learnSplitLabel(model string) (family, setting string) {
	family, setting, _ = strings.Cut(strings.TrimSpace(model), " ")
	return strings.ToLower(family), strings.TrimSpace(setting)
}

// learnSelect chooses each (dataset, family)'s setting by the mean of
// metric on over the runs.
func learnSelect(runs []*bundle.Bundle, labels []string, on string) (*learnSelection, error) {
	type acc struct {
		sum float64
		n   int
	}
	scores := map[[3]string]*acc{}
	for i, a := range runs {
		var m map[string]any
		if err := a.JSON(schema.MemberMetrics, &m); err != nil {
			return nil, fmt.Errorf("evaluate: %s: %w", learnWhere(labels, i), err)
		}
		ds, _ := m["dataset"].(string)
		model, _ := m["model"].(string)
		v, ok := m[on].(float64)
		if ds == "" || model == "" || !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("evaluate: %s: selection needs dataset, model and a number %q (have %v)", learnWhere(labels, i), on, learnKeys(m))
		}
		fam, set := learnSplitLabel(model)
		k := [3]string{strings.ToLower(ds), fam, set}
		if scores[k] == nil {
			scores[k] = &acc{}
		}
		scores[k].sum += v
		scores[k].n++
	}
	keys := make([][3]string, 0, len(scores))
	for k := range scores {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [3]string) int {
		return strings.Compare(a[0]+"\x00"+a[1]+"\x00"+a[2], b[0]+"\x00"+b[1]+"\x00"+b[2])
	})
	sel := &learnSelection{chosen: map[[2]string]string{}}
	best := map[[2]string]float64{}
	count := map[[2]string]int{}
	for _, k := range keys {
		dm := [2]string{k[0], k[1]}
		count[dm]++
		mean := scores[k].sum / float64(scores[k].n)
		if b, ok := best[dm]; !ok || mean > b {
			best[dm], sel.chosen[dm] = mean, k[2]
		}
	}
	var fams [][2]string
	for dm := range sel.chosen {
		fams = append(fams, dm)
	}
	slices.SortFunc(fams, func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) })
	for _, dm := range fams {
		set := sel.chosen[dm]
		if set == "" {
			set = "(one setting)"
		}
		of := fmt.Sprintf("chosen from %d settings", count[dm])
		if count[dm] == 1 {
			of = "the only setting"
		}
		sel.notes = append(sel.notes, fmt.Sprintf("%s on %s: %s, %s, mean %s %.1f%%", dm[1], dm[0], set, of, on, 100*best[dm]))
	}
	return sel, nil
}

func learnWhere(labels []string, i int) string {
	if i < len(labels) {
		return labels[i]
	}
	return fmt.Sprintf("run %d", i)
}

// learnVerdict says, per dataset, which model has the best mean and
// whether it is best beyond the runs' spread: its mean − std above every
// other model's mean + std.
func learnVerdict(cells []table.Cell) []string {
	var notes []string
	var order []string
	by := map[string][]table.Cell{}
	for _, c := range cells {
		if c.Mean == nil {
			continue
		}
		if _, ok := by[c.Dataset]; !ok {
			order = append(order, c.Dataset)
		}
		by[c.Dataset] = append(by[c.Dataset], c)
	}
	for _, ds := range order {
		cs := by[ds]
		if len(cs) < 2 {
			continue
		}
		bi := 0
		for i, c := range cs {
			if *c.Mean > *cs[bi].Mean {
				bi = i
			}
		}
		b := cs[bi]
		if slices.ContainsFunc(cs, func(c table.Cell) bool { return c.Runs < 2 }) {
			notes = append(notes, fmt.Sprintf("%s: %s has the best mean, but a model with one run has no spread to judge by: run more seeds", ds, b.Model))
			continue
		}
		beyond := true
		second := -1
		for i, c := range cs {
			if i == bi {
				continue
			}
			if second < 0 || *c.Mean > *cs[second].Mean {
				second = i
			}
			bsp, _ := b.Spread()
			csp, _ := c.Spread()
			beyond = beyond && bsp.Mean-bsp.StdOr0() > csp.Mean+csp.StdOr0()
		}
		s := cs[second]
		bsp, _ := b.Spread()
		ssp, _ := s.Spread()
		if beyond {
			notes = append(notes, fmt.Sprintf("%s: %s is best beyond the seeds' spread (%s against %s's %s, the runner-up; mean ± %s)",
				ds, b.Model, bsp.Text(table.Decimals), s.Model, ssp.Text(table.Decimals), table.SpreadName))
		} else {
			notes = append(notes, fmt.Sprintf("%s: no model is best beyond the seeds' spread: %s leads with %s, %s has %s (the intervals mean ± %s overlap)",
				ds, b.Model, bsp.Text(table.Decimals), s.Model, ssp.Text(table.Decimals), table.SpreadName))
		}
	}
	return notes
}
