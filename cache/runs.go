package cache

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// RunInterrupted is the status Runs and Run report for a run whose process
// died before FinishRun (killed, crashed); its recorded status stays "running".
const RunInterrupted = "interrupted"

// ErrRunLost marks a run whose record was removed from the index while it
// ran (by Clear from another process): FinishRun cannot record its end.
// Its stages' outputs are stored all the same.
var ErrRunLost = errors.New("cache: the run record was removed")

// BeginRun records the start of a run and returns its id.
func (c *Cache) BeginRun(pipeline string, args []string) (int64, error) {
	if args == nil {
		args = []string{}
	}
	b, _ := json.Marshal(args)
	var id int64
	err := c.withTx(func(tx *sql.Tx) error {
		res, err := tx.Exec(`INSERT INTO runs (pipeline, args, start, duration, status, host, pid, pstart)
			VALUES (?, ?, ?, 0, 'running', ?, ?, ?)`, pipeline, string(b), time.Now().UnixNano(), c.self.host, c.self.pid, c.self.start)
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("cache %s: begin run of %s: %w", c.dir, pipeline, err)
	}
	c.bufMu.Lock()
	c.knownRuns[id] = true
	c.bufMu.Unlock()
	return id, nil
}

// SetRunProvenance stores doc with run runID: a JSON document saying what
// produced the run (the build, the pipeline and variable files, the
// machine; package runs defines it). The cache keeps it as given and
// returns it in RunDetail.Provenance.
func (c *Cache) SetRunProvenance(runID int64, doc []byte) error {
	if err := c.writable(); err != nil {
		return err
	}
	if !json.Valid(doc) {
		return fmt.Errorf("cache %s: provenance of run %d: not a JSON document", c.dir, runID)
	}
	var n int64
	err := c.withTx(func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE runs SET provenance = ? WHERE id = ?`, string(doc), runID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("cache %s: provenance of run %d: %w", c.dir, runID, err)
	}
	if n == 0 {
		return fmt.Errorf("cache %s: provenance of run %d: no run %d: %w", c.dir, runID, runID, ErrNotFound)
	}
	return nil
}

// RecordStage appends a stage's outcome to a run. Records are buffered and
// written with the next flush (FinishRun, Close, or when the buffer is full
// or a second old).
func (c *Cache) RecordStage(runID int64, s StageRecord) error {
	if err := c.writable(); err != nil {
		return err
	}
	c.bufMu.Lock()
	known := c.knownRuns[runID]
	c.bufMu.Unlock()
	if !known {
		var one int
		err := c.db.QueryRow(`SELECT 1 FROM runs WHERE id = ?`, runID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("cache %s: record stage %s: no run %d: %w", c.dir, s.Address, runID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("cache %s: record stage %s: %w", c.dir, s.Address, err)
		}
	}
	if s.Metrics != nil {
		m := make(map[string]float64, len(s.Metrics))
		for k, v := range s.Metrics {
			m[k] = v
		}
		s.Metrics = m
	}
	c.bufMu.Lock()
	defer c.bufMu.Unlock()
	c.knownRuns[runID] = true
	c.stages = append(c.stages, bufferedStage{run: runID, s: s})
	return c.maybeFlushLocked()
}

// FinishRun sets a run's final status and duration, and writes every
// buffered update.
func (c *Cache) FinishRun(runID int64, status string) error {
	if err := c.writable(); err != nil {
		return err
	}
	c.bufMu.Lock()
	defer c.bufMu.Unlock()
	lost := false
	err := c.flushLocked(func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE runs SET status = ?, duration = max(0, ? - start) WHERE id = ?`, status, time.Now().UnixNano(), runID)
		if err != nil {
			return err
		}
		// No row: the record was cleared meanwhile. The uses buffered with
		// it are still written (stage records of a missing run are not).
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			lost = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cache %s: finish run %d: %w", c.dir, runID, err)
	}
	if lost {
		return fmt.Errorf("cache %s: finish run %d: no run %d: %w", c.dir, runID, runID, ErrRunLost)
	}
	return nil
}

// Pin marks keys as used now, in one transaction written at once (Touch
// is buffered). gc keeps what live runs use (everything used since the
// oldest of them started), so a run that pins its planned keys after
// BeginRun and before looking them up never has them removed under it.
// Unknown keys are ignored.
func (c *Cache) Pin(keys []string) error {
	if err := c.writable(); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	now := time.Now().UnixNano()
	list, err := json.Marshal(keys)
	if err != nil {
		return fmt.Errorf("cache %s: pin %d keys: %w", c.dir, len(keys), err)
	}
	err = c.withTx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE keys SET last_used = max(last_used, ?) WHERE key IN (SELECT value FROM json_each(?))`, now, string(list))
		return err
	})
	if err != nil {
		return fmt.Errorf("cache %s: pin %d keys: %w", c.dir, len(keys), err)
	}
	return nil
}

const runSummaryQuery = `SELECT r.id, r.pipeline, r.args, r.start, r.duration, r.status, r.host, r.pid, r.pstart,
	count(s.seq), coalesce(sum(s.status = 'cached'), 0), coalesce(sum(s.status = 'ran'), 0), coalesce(sum(s.status = 'failed'), 0)
	FROM runs r LEFT JOIN run_stages s ON s.run_id = r.id`

func (c *Cache) scanRun(sc interface{ Scan(...any) error }) (RunSummary, error) {
	var r RunSummary
	var args string
	var start, dur int64
	var holder procID
	if err := sc.Scan(&r.ID, &r.Pipeline, &args, &start, &dur, &r.Status, &holder.host, &holder.pid, &holder.start,
		&r.Stages, &r.Cached, &r.Ran, &r.Fail); err != nil {
		return r, err
	}
	if err := json.Unmarshal([]byte(args), &r.Args); err != nil {
		return r, fmt.Errorf("run %d: args column: %w", r.ID, err)
	}
	r.Start, r.Duration = fromUnixNano(start), time.Duration(dur)
	if r.Status == "running" && c.self.state(holder) == procDead {
		r.Status = RunInterrupted
	}
	return r, nil
}

// Runs lists the most recent runs, newest first (limit ≤ 0: all).
func (c *Cache) Runs(limit int) ([]RunSummary, error) {
	if c.db == nil {
		return nil, nil
	}
	if err := c.flushIfWritable(); err != nil {
		return nil, err
	}
	q := runSummaryQuery + ` GROUP BY r.id ORDER BY r.id DESC`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := c.db.Query(q)
	if err != nil {
		return nil, fmt.Errorf("cache %s: list runs: %w", c.dir, err)
	}
	defer rows.Close()
	var out []RunSummary
	for rows.Next() {
		r, err := c.scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("cache %s: list runs: %w", c.dir, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cache %s: list runs: %w", c.dir, err)
	}
	return out, nil
}

// Run returns one run with its stages, in the order they finished. An
// unknown id is an error wrapping ErrNotFound.
func (c *Cache) Run(id int64) (*RunDetail, error) {
	if c.db == nil {
		return nil, fmt.Errorf("cache %s: no run %d: %w", c.dir, id, ErrNotFound)
	}
	if err := c.flushIfWritable(); err != nil {
		return nil, err
	}
	sum, err := c.scanRun(c.db.QueryRow(runSummaryQuery+` WHERE r.id = ? GROUP BY r.id`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("cache %s: no run %d: %w", c.dir, id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cache %s: run %d: %w", c.dir, id, err)
	}
	d := &RunDetail{RunSummary: sum}
	if c.schema >= 2 { // schema 1 (read-only) has no provenance column
		var prov string
		if err := c.db.QueryRow(`SELECT provenance FROM runs WHERE id = ?`, id).Scan(&prov); err != nil {
			return nil, fmt.Errorf("cache %s: run %d: %w", c.dir, id, err)
		}
		if prov != "" {
			d.Provenance = json.RawMessage(prov)
		}
	}
	rows, err := c.db.Query(`SELECT address, key, status, reason, start, duration, error, metrics
		FROM run_stages WHERE run_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("cache %s: run %d: %w", c.dir, id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var s StageRecord
		var start, dur int64
		var metrics string
		if err := rows.Scan(&s.Address, &s.Key, &s.Status, &s.Reason, &start, &dur, &s.Error, &metrics); err != nil {
			return nil, fmt.Errorf("cache %s: run %d: %w", c.dir, id, err)
		}
		s.Start, s.Duration = fromUnixNano(start), time.Duration(dur)
		if strings.TrimSpace(metrics) != "" {
			if err := json.Unmarshal([]byte(metrics), &s.Metrics); err != nil {
				return nil, fmt.Errorf("cache %s: run %d: stage %s: metrics column: %w", c.dir, id, s.Address, err)
			}
		}
		d.Stages = append(d.Stages, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cache %s: run %d: %w", c.dir, id, err)
	}
	return d, nil
}

// flushIfWritable writes this process's buffered updates before a query
// that should see them.
func (c *Cache) flushIfWritable() error {
	if c.readOnly {
		return nil
	}
	return c.flush()
}
