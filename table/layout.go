package table

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Member names of the evaluate stage's table artifact.
const (
	MemberMarkdown = "table.md"
	MemberCSV      = "table.csv"
	MemberJSON     = "table.json"
	MemberChart    = "chart.png"
)

// SampleDDOF is the delta degrees of freedom of every Std of a Doc written
// now: 1, the sample standard deviation (see the package doc).
const SampleDDOF = 1

// Doc is the table.json document: one evaluate table.
type Doc struct {
	Title  string `json:"title"`
	Metric string `json:"metric"` // e.g. "test accuracy"
	Unit   string `json:"unit"`   // "percent"
	// Protocol says which epoch's model the metric is of: "last epoch",
	// "best validation epoch", ProtocolMixed (the evaluate stage's
	// mix_protocols; each cell's Protocol then says) or "unknown".
	// Documents written before it was recorded lack it.
	Protocol string `json:"protocol,omitempty"`
	// StdDDOF is the delta degrees of freedom of the cells' Std: 1 (the
	// sample std) in every document written now. Documents of evaluate
	// versions before 4 lack it (0: the population std); Parse converts
	// those to the sample std.
	StdDDOF int `json:"std_ddof"`
	// Datasets and Models are the column and row order of the table.
	// Documents written before they were recorded lack them: Parse then
	// takes the order in which the cells first name them.
	Datasets []string `json:"datasets"`
	Models   []string `json:"models"`
	// Paper says whether the table compares with the paper (the evaluate
	// stage's compare_to): table.md then has the paper's values and Δ.
	// Documents written before it was recorded lack it: Parse then sets it
	// when some cell has a paper value.
	Paper bool   `json:"paper"`
	Cells []Cell `json:"cells"`
	// Notes are the table's remarks (the settings evaluate's select_on
	// chose, which model is best beyond the seeds' spread), printed under
	// the wide table.
	Notes []string `json:"notes,omitempty"`
	// Run is the provenance of the run that published the document
	// (Stamp); the stored artifact never has it, as its bytes must not
	// depend on which run made or reused it.
	Run *Provenance `json:"run,omitempty"`
}

// Cell is one dataset × model cell, in percent.
type Cell struct {
	Dataset string `json:"dataset"`
	Model   string `json:"model"`
	// Runs is the number of values (seeds) the mean is over.
	Runs   int       `json:"runs"`
	Values []float64 `json:"values,omitempty"`
	// Mean is nil for a cell without runs; Std is the sample standard
	// deviation of the values, nil for fewer than two.
	Mean      *float64 `json:"mean"`
	Std       *float64 `json:"std"`
	Min       *float64 `json:"min"`
	Max       *float64 `json:"max"`
	PaperMean *float64 `json:"paper_mean"`
	PaperStd  *float64 `json:"paper_std"`
	PaperRef  string   `json:"paper_table,omitempty"`
	// Diff is Mean − PaperMean; Within says whether the cell is within
	// the paper's tolerance (ToleranceNote) or above it.
	Diff   *float64 `json:"diff"`
	Within *bool    `json:"within_tolerance"`
	// Status is StatusOK, StatusBelow, StatusMissing or StatusNoPaper.
	Status string `json:"status"`
	// Protocol is the cell's runs' protocol when the table's is
	// ProtocolMixed, "" otherwise.
	Protocol string `json:"protocol,omitempty"`
}

// ProtocolMixed is the Protocol of a table whose cells follow different
// protocols.
const ProtocolMixed = "mixed"

// Cell statuses.
const (
	StatusOK      = "ok"
	StatusBelow   = "below paper"
	StatusMissing = "missing (no runs)"
	StatusNoPaper = "no paper value"
)

// Spread returns the cell's mean and std over its runs; ok is false for
// a cell without runs.
func (c *Cell) Spread() (s Spread, ok bool) {
	if c.Mean == nil {
		return Spread{}, false
	}
	return Spread{Mean: *c.Mean, Std: c.Std, N: c.Runs}, true
}

// PaperSpread returns the paper's value of the cell (N unknown: 0).
func (c *Cell) PaperSpread() (s Spread, ok bool) {
	if c.PaperMean == nil {
		return Spread{}, false
	}
	return Spread{Mean: *c.PaperMean, Std: c.PaperStd}, true
}

// Marshal encodes d as the table.json member: indented, ending in a
// newline, StdDDOF set to SampleDDOF.
func Marshal(d *Doc) ([]byte, error) {
	out := *d
	out.StdDDOF = SampleDDOF
	if out.Datasets == nil {
		out.Datasets = []string{}
	}
	if out.Models == nil {
		out.Models = []string{}
	}
	if out.Cells == nil {
		out.Cells = []Cell{}
	}
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("table.json: %w", err)
	}
	return append(b, '\n'), nil
}

// Parse reads a table.json member. Whatever version wrote it, the result
// has the sample std in every cell (nil for fewer than two runs) and its
// Datasets and Models set.
func Parse(doc []byte) (*Doc, error) {
	var d Doc
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("table.json: %w", err)
	}
	var probe struct {
		Paper *bool `json:"paper"`
	}
	if err := json.Unmarshal(doc, &probe); err != nil {
		return nil, fmt.Errorf("table.json: %w", err)
	}
	if probe.Paper == nil {
		d.Paper = d.HasPaper()
	}
	if d.StdDDOF != 0 && d.StdDDOF != SampleDDOF {
		return nil, fmt.Errorf("table.json: std_ddof %d, want %d (the sample std) or absent", d.StdDDOF, SampleDDOF)
	}
	for i := range d.Cells {
		c := &d.Cells[i]
		if c.Runs < 0 {
			return nil, fmt.Errorf("table.json: cell %d (%s, %s): runs %d", i, c.Dataset, c.Model, c.Runs)
		}
		switch {
		case c.Runs < 2:
			c.Std = nil
		case d.StdDDOF == 0 && c.Std != nil:
			s := *c.Std * math.Sqrt(float64(c.Runs)/float64(c.Runs-1))
			c.Std = &s
		}
	}
	d.StdDDOF = SampleDDOF
	if len(d.Datasets) == 0 && len(d.Models) == 0 {
		d.Datasets, d.Models = d.firstSeen()
	}
	return &d, nil
}

// firstSeen lists the datasets and models in the order the cells first
// name them.
func (d *Doc) firstSeen() (datasets, models []string) {
	datasets, models = []string{}, []string{}
	for _, c := range d.Cells {
		if !slices.Contains(datasets, c.Dataset) {
			datasets = append(datasets, c.Dataset)
		}
		if !slices.Contains(models, c.Model) {
			models = append(models, c.Model)
		}
	}
	return datasets, models
}

// Cell returns the cell of dataset ds and model m, nil when the table has
// none.
func (d *Doc) Cell(ds, m string) *Cell {
	for i := range d.Cells {
		if d.Cells[i].Dataset == ds && d.Cells[i].Model == m {
			return &d.Cells[i]
		}
	}
	return nil
}

// HasPaper reports whether some cell has a paper value.
func (d *Doc) HasPaper() bool {
	for _, c := range d.Cells {
		if c.PaperMean != nil {
			return true
		}
	}
	return false
}

// RunCounts returns the smallest and the largest number of runs of the
// cells that have any (0, 0 when none has).
func (d *Doc) RunCounts() (lo, hi int) {
	for _, c := range d.Cells {
		if c.Runs == 0 {
			continue
		}
		if lo == 0 || c.Runs < lo {
			lo = c.Runs
		}
		hi = max(hi, c.Runs)
	}
	return lo, hi
}
