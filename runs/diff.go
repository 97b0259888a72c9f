package runs

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/table"
)

// SpreadRule is the rule Compare applies to say whether the difference of
// a table cell's means is beyond the runs' spread.
const SpreadRule = "|Δ| > 2·sqrt(sA²/nA + sB²/nB), s the sample standard deviation (n−1) of a cell's n values"

// Verdicts of a CellDiff.
const (
	Beyond   = "beyond"       // |Δ| is more than twice the standard error of the difference
	Within   = "within"       // it is not
	TooFew   = "too few runs" // a side has fewer than two values: no spread to compare with
	OnlyA    = "only in A"
	OnlyB    = "only in B"
	NoValues = "no values" // a side's cell has no mean (no runs)
)

// Diff is the comparison of run A with run B.
type Diff struct {
	A          RunRef         `json:"a"`
	B          RunRef         `json:"b"`
	Provenance ProvenanceDiff `json:"provenance"`
	// SpreadRule states the rule of the cells' verdicts.
	SpreadRule string      `json:"spread_rule"`
	Tables     []TableDiff `json:"tables"`
	Stages     StagesDiff  `json:"stages"`
	// Notes say what could not be compared (outputs gc removed).
	Notes []string `json:"notes"`
}

// RunRef identifies a compared run.
type RunRef struct {
	ID       int64     `json:"id"`
	Pipeline string    `json:"pipeline"`
	Args     []string  `json:"args"`
	Start    time.Time `json:"start"`
	Status   string    `json:"status"`
}

// ProvenanceDiff lists the provenance fields (Provenance.Fields) whose
// values differ. A side whose provenance was not recorded has no fields:
// then nothing is compared and Recorded says which side lacks it.
type ProvenanceDiff struct {
	RecordedA bool          `json:"recorded_a"`
	RecordedB bool          `json:"recorded_b"`
	Changed   []FieldChange `json:"changed"`
	// Same names the fields with equal values.
	Same []string `json:"same"`
}

// FieldChange is one provenance field whose value differs; "" where a
// side lacks the field (a variable given in one run only).
type FieldChange struct {
	Name string `json:"name"`
	A    string `json:"a"`
	B    string `json:"b"`
}

// TableDiff compares the tables one stage made in the two runs.
type TableDiff struct {
	Stage  string     `json:"stage"`
	Title  string     `json:"title"`
	Metric string     `json:"metric"`
	Unit   string     `json:"unit,omitempty"`
	Only   string     `json:"only,omitempty"` // "A" or "B" when only one run has the table
	Cells  []CellDiff `json:"cells"`
}

// CellDiff compares one (dataset, model) cell.
type CellDiff struct {
	Dataset string    `json:"dataset"`
	Model   string    `json:"model"`
	A       *CellStat `json:"a"`
	B       *CellStat `json:"b"`
	// Delta is B's mean − A's mean; Bound is 2·sqrt(sA²/nA + sB²/nB), the
	// difference beyond which the verdict is Beyond. Both are nil when a
	// side has no mean (Bound also when a side has fewer than two values).
	Delta   *float64 `json:"delta"`
	Bound   *float64 `json:"bound"`
	Verdict string   `json:"verdict"`
}

// CellStat is one side of a CellDiff.
type CellStat struct {
	Runs int     `json:"runs"`
	Mean float64 `json:"mean"`
	// SD is the sample standard deviation (n−1) of the values; 0 for one value.
	SD float64 `json:"sd"`
}

// Spread returns s as package table formats it (no std for one value).
func (s *CellStat) Spread() table.Spread {
	sp := table.Spread{Mean: s.Mean, N: s.Runs}
	if s.Runs > 1 {
		sd := s.SD
		sp.Std = &sd
	}
	return sp
}

// StagesDiff compares the two runs' stage instances by address.
type StagesDiff struct {
	// Same counts the instances with the same cache key in both runs.
	Same    int           `json:"same"`
	Changed []StageChange `json:"changed"`
	// OnlyA and OnlyB are the addresses of the instances of one run only.
	OnlyA []string `json:"only_a"`
	OnlyB []string `json:"only_b"`
}

// StageChange is an instance whose cache key differs between the runs,
// with why (runner.KeyChanges: the parameters, inputs, version or outside
// data that differ).
type StageChange struct {
	Address string   `json:"address"`
	Block   string   `json:"block"` // TYPE.NAME of its stage block
	KeyA    string   `json:"key_a"`
	KeyB    string   `json:"key_b"`
	StatusA string   `json:"status_a"`
	StatusB string   `json:"status_b"`
	Why     []string `json:"why"`
}

// Compare compares run a with run b: their provenance, their tables cell
// by cell and their stages' cache keys.
func Compare(a, b *Run) *Diff {
	d := &Diff{A: ref(a), B: ref(b), SpreadRule: SpreadRule, Tables: []TableDiff{}, Notes: []string{}}
	d.Notes = append(append(d.Notes, a.Notes...), b.Notes...)
	d.Provenance = compareProvenance(a.Prov, b.Prov)
	d.Tables = compareTables(a.Tables, b.Tables)
	d.Stages = compareStages(a, b)
	return d
}

func ref(r *Run) RunRef {
	args := r.Args
	if args == nil {
		args = []string{}
	}
	return RunRef{ID: r.ID, Pipeline: r.Pipeline, Args: args, Start: r.Start, Status: r.Status}
}

func compareProvenance(a, b *Provenance) ProvenanceDiff {
	d := ProvenanceDiff{RecordedA: a != nil, RecordedB: b != nil, Changed: []FieldChange{}, Same: []string{}}
	if a == nil || b == nil {
		return d
	}
	av, bv := map[string]string{}, map[string]string{}
	var names []string
	for _, f := range a.Fields() {
		av[f.Name] = f.Value
		names = append(names, f.Name)
	}
	for _, f := range b.Fields() {
		bv[f.Name] = f.Value
		if _, ok := av[f.Name]; !ok {
			names = append(names, f.Name)
		}
	}
	for _, n := range names {
		if av[n] == bv[n] {
			d.Same = append(d.Same, n)
		} else {
			d.Changed = append(d.Changed, FieldChange{Name: n, A: av[n], B: bv[n]})
		}
	}
	return d
}

func compareTables(a, b []Table) []TableDiff {
	out := []TableDiff{}
	byStage := map[string]*Table{}
	for i := range b {
		byStage[b[i].Stage] = &b[i]
	}
	seen := map[string]bool{}
	for i := range a {
		ta := &a[i]
		tb := byStage[ta.Stage]
		seen[ta.Stage] = true
		out = append(out, compareTable(ta, tb))
	}
	for i := range b {
		if !seen[b[i].Stage] {
			out = append(out, compareTable(nil, &b[i]))
		}
	}
	slices.SortStableFunc(out, func(x, y TableDiff) int { return strings.Compare(x.Stage, y.Stage) })
	return out
}

type cellKey struct{ dataset, model string }

func compareTable(a, b *Table) TableDiff {
	head := a
	if head == nil {
		head = b
	}
	td := TableDiff{Stage: head.Stage, Title: head.Title, Metric: head.Metric, Unit: head.Unit, Cells: []CellDiff{}}
	switch {
	case a == nil:
		td.Only = "B"
	case b == nil:
		td.Only = "A"
	}
	cells := map[cellKey][2]*Cell{}
	var order []cellKey
	for side, t := range []*Table{a, b} {
		if t == nil {
			continue
		}
		for i := range t.Cells {
			c := &t.Cells[i]
			k := cellKey{c.Dataset, c.Model}
			pair, ok := cells[k]
			if !ok {
				order = append(order, k)
			}
			pair[side] = c
			cells[k] = pair
		}
	}
	for _, k := range order {
		pair := cells[k]
		td.Cells = append(td.Cells, compareCell(k, pair[0], pair[1]))
	}
	return td
}

func compareCell(k cellKey, a, b *Cell) CellDiff {
	cd := CellDiff{Dataset: k.dataset, Model: k.model, A: stat(a), B: stat(b)}
	switch {
	case a == nil:
		cd.Verdict = OnlyB
		return cd
	case b == nil:
		cd.Verdict = OnlyA
		return cd
	case cd.A == nil || cd.B == nil:
		cd.Verdict = NoValues
		return cd
	}
	delta := cd.B.Mean - cd.A.Mean
	cd.Delta = &delta
	if cd.A.Runs < 2 || cd.B.Runs < 2 {
		cd.Verdict = TooFew
		return cd
	}
	bound := 2 * math.Sqrt(cd.A.SD*cd.A.SD/float64(cd.A.Runs)+cd.B.SD*cd.B.SD/float64(cd.B.Runs))
	cd.Bound = &bound
	if math.Abs(delta) > bound {
		cd.Verdict = Beyond
	} else {
		cd.Verdict = Within
	}
	return cd
}

// stat summarises a cell: its mean and the sample standard deviation of
// its values (the table's std: table.Parse gives the sample std whatever
// version wrote the table). nil: no cell or no mean.
func stat(c *Cell) *CellStat {
	if c == nil {
		return nil
	}
	sp, ok := c.Spread()
	if !ok {
		return nil
	}
	return &CellStat{Runs: sp.N, Mean: sp.Mean, SD: sp.StdOr0()}
}

func compareStages(a, b *Run) StagesDiff {
	d := StagesDiff{Changed: []StageChange{}, OnlyA: []string{}, OnlyB: []string{}}
	inA := map[string]cache.StageRecord{}
	for _, s := range a.Stages {
		inA[s.Address] = s
	}
	inB := map[string]cache.StageRecord{}
	addrOfB := map[string]string{}
	for _, s := range b.Stages {
		inB[s.Address] = s
		addrOfB[s.Key] = s.Address
	}
	producer := func(ref string) string {
		if addr, ok := addrOfB[cache.ParseOutputRef(ref).Key]; ok {
			return addr + " changed"
		}
		return ""
	}
	for _, sa := range a.Stages {
		sb, ok := inB[sa.Address]
		switch {
		case !ok:
			d.OnlyA = append(d.OnlyA, sa.Address)
		case sa.Key == sb.Key:
			d.Same++
		default:
			c := StageChange{Address: sa.Address, Block: Block(sa.Address), KeyA: sa.Key, KeyB: sb.Key, StatusA: sa.Status, StatusB: sb.Status}
			ra, okA := a.Records[sa.Key]
			rb, okB := b.Records[sb.Key]
			switch {
			case !okA || !okB:
				c.Why = []string{"key record no longer in the cache (removed by gc)"}
			default:
				c.Why = runner.KeyChanges(ra, rb, producer)
				if len(c.Why) == 0 {
					c.Why = []string{"key changed"}
				}
			}
			d.Changed = append(d.Changed, c)
		}
	}
	for _, sb := range b.Stages {
		if _, ok := inA[sb.Address]; !ok {
			d.OnlyB = append(d.OnlyB, sb.Address)
		}
	}
	slices.SortFunc(d.Changed, func(x, y StageChange) int { return strings.Compare(x.Address, y.Address) })
	slices.Sort(d.OnlyA)
	slices.Sort(d.OnlyB)
	return d
}

// Block returns the stage block (TYPE.NAME) of an instance address
// (TYPE.NAME or TYPE.NAME["KEY"]).
func Block(address string) string {
	if i := strings.IndexByte(address, '['); i >= 0 {
		return address[:i]
	}
	return address
}
