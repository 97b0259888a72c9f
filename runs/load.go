package runs

import (
	"fmt"
	"sort"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
)

// Run is a recorded run with what a comparison needs; Load reads it.
type Run struct {
	cache.RunDetail
	// Prov is the run's provenance; nil when it was not recorded.
	Prov *Provenance
	// Tables are the tables the run's stages made (evaluate stages'
	// table.json), by stage address.
	Tables []Table
	// Records are the key records of the run's stages, by key, for the
	// keys still in the cache (gc removes those of old runs).
	Records map[string]*cache.KeyRecord
	// Notes say what could not be read, e.g. a table whose key gc removed.
	Notes []string
}

// Table is one table a run made: its cells, each a mean over runs.
type Table struct {
	Stage  string `json:"stage"` // address of the stage that made it
	Title  string `json:"title"`
	Metric string `json:"metric"`
	// Protocol is which epoch's model the metric is of (table.Doc.Protocol).
	Protocol string `json:"protocol,omitempty"`
	Unit     string `json:"unit,omitempty"`
	Cells    []Cell `json:"cells"`
}

// Cell is one (dataset, model) entry of a table: the table.json layout
// of package table. Its Std is the sample standard deviation (nil for
// fewer than two runs), whichever evaluate version wrote the table.
type Cell = table.Cell

// Reader is what Load reads from: *cache.Cache.
type Reader interface {
	Run(id int64) (*cache.RunDetail, error)
	Record(key string) (*cache.KeyRecord, bool, error)
	Lookup(key string) ([]cache.OutputRef, bool, error)
	Load(ref cache.OutputRef) (artifact.Artifact, error)
}

// Load reads run id from c with its provenance, its tables and its
// stages' key records. An unknown run is an error wrapping
// cache.ErrNotFound; what gc has removed since the run is noted in
// Run.Notes, not an error.
func Load(c Reader, id int64) (*Run, error) {
	d, err := c.Run(id)
	if err != nil {
		return nil, err
	}
	r := &Run{RunDetail: *d, Records: map[string]*cache.KeyRecord{}}
	if r.Prov, err = Decode(d.Provenance); err != nil {
		return nil, fmt.Errorf("run %d: %w", id, err)
	}
	gone := 0 // finished stages whose outputs are no longer stored
	for _, s := range d.Stages {
		if s.Key == "" {
			continue
		}
		rec, ok, err := c.Record(s.Key)
		if err != nil {
			return nil, fmt.Errorf("run %d: %s: %w", id, s.Address, err)
		}
		if ok {
			r.Records[s.Key] = rec
		}
		if s.Status != "ran" && s.Status != "cached" {
			continue
		}
		refs, ok, err := c.Lookup(s.Key)
		if err != nil {
			return nil, fmt.Errorf("run %d: %s: %w", id, s.Address, err)
		}
		if !ok {
			gone++
			continue
		}
		for _, ref := range refs {
			if ref.Kind != schema.KindTable {
				continue
			}
			t, err := loadTable(c, ref)
			if err != nil {
				r.Notes = append(r.Notes, fmt.Sprintf("run %d: %s: %v", id, s.Address, err))
				continue
			}
			t.Stage = s.Address
			r.Tables = append(r.Tables, *t)
		}
	}
	if gone > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("run %d: the outputs of %d of its stages are no longer in the cache (removed by gc); their tables cannot be compared", id, gone))
	}
	sort.SliceStable(r.Tables, func(i, j int) bool { return r.Tables[i].Stage < r.Tables[j].Stage })
	return r, nil
}

// loadTable reads the table.json member of a stored table artifact.
func loadTable(c Reader, ref cache.OutputRef) (*Table, error) {
	a, err := c.Load(ref)
	if err != nil {
		return nil, err
	}
	doc, err := a.MemberFile(table.MemberJSON)
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", ref.Name, err)
	}
	d, err := table.Parse(doc)
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", ref.Name, err)
	}
	return &Table{Title: d.Title, Metric: d.Metric, Protocol: d.Protocol, Unit: d.Unit, Cells: d.Cells}, nil
}
