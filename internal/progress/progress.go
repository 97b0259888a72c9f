package progress

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hylaflow/hylaflow/internal/textfmt"
	"github.com/hylaflow/hylaflow/runner"
)

// Verbosity selects how much a progress display prints.
type Verbosity int

// The verbosity levels.
const (
	Quiet   Verbosity = -1 // only the summary and errors
	Normal  Verbosity = 0  // one line per finished stage
	Verbose Verbosity = 1  // also the stages' log lines
)

// LogProgress prints plain timestamped lines for non-terminals (CI logs,
// pipes, TERM=dumb): one when a stage starts and one when it finishes, so a
// long stage is never silence:
//
//	12:00:01 cached   dataset.cora
//	12:00:01 start    train.cora["3"]
//	12:00:02 ran      train.cora["3"]  1.2s
//
// A stage whose key another process is computing gets a waiting line after
// its start line, and later its cached line (the other process's outputs):
//
//	12:00:01 start    train.cora["4"]
//	12:00:01 waiting  train.cora["4"]  (another process is computing it; …)
//	12:00:09 cached   train.cora["4"]
//
// Stages canceled by Ctrl-C get no line each: the run's summary counts them.
type LogProgress struct {
	mu    sync.Mutex
	w     io.Writer
	level Verbosity
	// Clock formats event times; nil uses the event's local time as 15:04:05.
	Clock func(time.Time) string
}

// NewLogProgress returns a line-oriented display writing to w.
func NewLogProgress(w io.Writer, level Verbosity) *LogProgress {
	return &LogProgress{w: w, level: level}
}

func (p *LogProgress) stamp(t time.Time) string {
	if p.Clock != nil {
		return p.Clock(t)
	}
	return t.Format("15:04:05")
}

// Event implements Observer.
func (p *LogProgress) Event(e runner.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case runner.EventLog:
		if p.level >= Verbose {
			fmt.Fprintf(p.w, "%s          %s: %s\n", p.stamp(e.Time), e.Address, e.Msg)
		}
	case runner.EventStart:
		if p.level >= Verbose && e.Reason != "" {
			fmt.Fprintf(p.w, "%s start    %s  (%s)\n", p.stamp(e.Time), e.Address, e.Reason)
		} else if p.level >= Normal {
			fmt.Fprintf(p.w, "%s start    %s\n", p.stamp(e.Time), e.Address)
		}
	case runner.EventWait:
		if p.level >= Normal {
			fmt.Fprintf(p.w, "%s waiting  %s  (%s)\n", p.stamp(e.Time), e.Address, e.Msg)
		}
	case runner.EventDone:
		if e.Status == runner.StatusCanceled || p.level < Normal && e.Status != runner.StatusFailed {
			return
		}
		fmt.Fprintln(p.w, formatDone(p.stamp(e.Time), e, p.level >= Verbose))
	}
}

// formatDone formats a finished stage's line.
func formatDone(stamp string, e runner.Event, verbose bool) string {
	line := fmt.Sprintf("%s %-8s %s", stamp, e.Status, e.Address)
	switch e.Status {
	case runner.StatusRan:
		line += "  " + FormatDuration(e.Duration)
		if verbose && e.Reason != "" {
			line += "  (" + e.Reason + ")"
		}
	case runner.StatusFailed:
		line += "  " + FormatDuration(e.Duration)
		if e.Err != nil {
			line += ": " + e.Err.Error()
		}
	case runner.StatusSkipped, runner.StatusCanceled:
		if e.Reason != "" {
			line += "  (" + e.Reason + ")"
		}
	}
	return line
}

// FormatDuration prints a duration compactly: 850ms, 1.2s, 3m04s, 1h02m
// (textfmt.Duration, which the reports use too).
func FormatDuration(d time.Duration) string {
	return textfmt.Duration(d)
}

// TermProgress is the live display for terminals: finished stages scroll
// above a block with one line per running stage (address, elapsed time and
// the stage's own progress) and a status line (stages finished of the
// run's total, running, elapsed, an estimate of the time left), redrawn at
// most 10 times a second. It moves the cursor with ANSI escapes, so it is
// for terminals that understand them (not TERM=dumb).
type TermProgress struct {
	mu      sync.Mutex
	w       io.Writer
	level   Verbosity
	width   int
	running map[string]*termLine
	drawn   int // lines of the live block currently on screen
	last    time.Time
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
	now     func() time.Time

	total    int       // stages in the run (runner.EventPlan; 0 = unknown)
	finished int       // stages finished (any status)
	ran      int       // stages that ran and finished (ran or failed)
	first    time.Time // the first stage start
}

type termLine struct {
	start       time.Time
	done, total int
	msg         string
}

// NewTermProgress returns a live display writing to w, a terminal of the
// given width (≤ 0: 100 columns). Close stops it.
func NewTermProgress(w io.Writer, level Verbosity, width int) *TermProgress {
	if width <= 0 {
		width = 100
	}
	p := &TermProgress{w: w, level: level, width: width, running: map[string]*termLine{},
		stop: make(chan struct{}), stopped: make(chan struct{}), now: time.Now}
	go p.tick()
	return p
}

// tick redraws the block while stages run, so elapsed times advance.
func (p *TermProgress) tick() {
	defer close(p.stopped)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if len(p.running) > 0 {
				p.redraw(true)
			}
			p.mu.Unlock()
		}
	}
}

// Close stops redrawing and erases the live block. It may be called more than once.
func (p *TermProgress) Close() {
	p.once.Do(func() {
		close(p.stop)
		<-p.stopped
		p.mu.Lock()
		p.erase()
		p.mu.Unlock()
	})
}

// Event implements Observer.
func (p *TermProgress) Event(e runner.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case runner.EventPlan:
		p.total = e.Total
	case runner.EventStart:
		if p.first.IsZero() {
			p.first = e.Time
		}
		p.running[e.Address] = &termLine{start: e.Time}
		p.redraw(false)
	case runner.EventProgress, runner.EventWait:
		if l, ok := p.running[e.Address]; ok {
			l.done, l.total, l.msg = e.Done, e.Total, e.Msg
		}
		p.redraw(false)
	case runner.EventLog:
		if p.level >= Verbose {
			p.erase()
			fmt.Fprintf(p.w, "%s          %s: %s\n", e.Time.Format("15:04:05"), e.Address, e.Msg)
			p.redraw(true)
		}
	case runner.EventDone:
		delete(p.running, e.Address)
		p.finished++
		if e.Status == runner.StatusRan || e.Status == runner.StatusFailed {
			p.ran++
		}
		if e.Status == runner.StatusCanceled {
			p.redraw(true) // the run's summary counts the canceled stages
			return
		}
		if p.level >= Normal || e.Status == runner.StatusFailed {
			p.erase()
			fmt.Fprintln(p.w, p.fit(formatDone(e.Time.Format("15:04:05"), e, p.level >= Verbose)))
		}
		p.redraw(true)
	}
}

// erase moves the cursor up over the live block and clears it.
func (p *TermProgress) erase() {
	if p.drawn > 0 {
		fmt.Fprintf(p.w, "\x1b[%dA\x1b[J", p.drawn)
		p.drawn = 0
	}
}

// redraw repaints the live block, at most 10 times a second unless forced.
func (p *TermProgress) redraw(force bool) {
	now := p.now()
	if !force && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	p.erase()
	addrs := make([]string, 0, len(p.running))
	for a := range p.running {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool {
		ai, aj := p.running[addrs[i]], p.running[addrs[j]]
		if !ai.start.Equal(aj.start) {
			return ai.start.Before(aj.start)
		}
		return addrs[i] < addrs[j]
	})
	const maxLines = 20
	var b strings.Builder
	n := 0
	for i, a := range addrs {
		if i == maxLines-1 && len(addrs) > maxLines {
			fmt.Fprintf(&b, "  … and %d more running\n", len(addrs)-i)
			n++
			break
		}
		l := p.running[a]
		line := fmt.Sprintf("  %s  %s", a, FormatDuration(now.Sub(l.start)))
		if l.total > 0 {
			line += fmt.Sprintf("  %d/%d", l.done, l.total)
		} else if l.done > 0 {
			line += fmt.Sprintf("  %d", l.done)
		}
		if l.msg != "" {
			line += "  " + l.msg
		}
		b.WriteString(p.fit(line))
		b.WriteByte('\n')
		n++
	}
	if status := p.status(now); status != "" {
		b.WriteString(p.fit(status))
		b.WriteByte('\n')
		n++
	}
	io.WriteString(p.w, b.String())
	p.drawn = n
}

// status is the live block's last line while stages run:
//
//	[12/357 stages] 2 running, 1m04s elapsed, about 2m10s left
//
// The estimate assumes the stages still to run take as long on average as
// those that ran so far (it needs at least one finished stage).
func (p *TermProgress) status(now time.Time) string {
	if len(p.running) == 0 || p.total == 0 {
		return ""
	}
	line := fmt.Sprintf("[%d/%d stages] %d running", p.finished, p.total, len(p.running))
	if p.first.IsZero() {
		return line
	}
	elapsed := now.Sub(p.first)
	line += ", " + FormatDuration(elapsed) + " elapsed"
	if left := p.total - p.finished; p.ran > 0 && left > 0 && elapsed > 0 {
		eta := time.Duration(float64(elapsed) / float64(p.ran) * float64(left))
		line += ", about " + FormatDuration(eta.Round(time.Second)) + " left"
	}
	return line
}

// fit cuts a line to the terminal width.
func (p *TermProgress) fit(s string) string {
	r := []rune(s)
	if len(r) >= p.width {
		return string(r[:p.width-2]) + "…"
	}
	return s
}

// WriteSummary prints the final summary of a run:
//
//	5 stages: 3 ran, 2 cached, 0 failed, 0 skipped in 1.4s
//
// or "nothing to do: all 5 stages cached (0.1s)", then the addresses of the
// failed stages (their errors were printed as they failed). A canceled run
// gets one line instead:
//
//	canceled after 4.2s: 2 stages stopped, 15 finished (3 ran, 12 cached), 340 not started; the next run resumes
func WriteSummary(w io.Writer, r *runner.RunResult) {
	n := len(r.Stages)
	ran, cached := r.Count(runner.StatusRan), r.Count(runner.StatusCached)
	failed, skipped := r.Count(runner.StatusFailed), r.Count(runner.StatusSkipped)
	wall := FormatDuration(r.Wall)
	if r.Status == runner.RunCanceled {
		stopped, notStarted := 0, 0
		for _, s := range r.Stages {
			if s.Status != runner.StatusCanceled {
				continue
			}
			if s.Err != nil || s.Duration > 0 {
				stopped++
			} else {
				notStarted++
			}
		}
		fin := fmt.Sprintf("%d ran, %d cached", ran, cached)
		if failed > 0 {
			fin += fmt.Sprintf(", %d failed", failed)
		}
		if skipped > 0 {
			fin += fmt.Sprintf(", %d skipped", skipped)
		}
		fmt.Fprintf(w, "canceled after %s: %s stopped, %d finished (%s), %d not started; the next run resumes\n",
			wall, Plural(stopped, "stage", "stages"), n-stopped-notStarted, fin, notStarted)
		writeFailed(w, r)
		return
	}
	if cached == n {
		if n == 1 {
			fmt.Fprintf(w, "nothing to do: the 1 stage is cached (%s)\n", wall)
		} else {
			fmt.Fprintf(w, "nothing to do: all %d stages cached (%s)\n", n, wall)
		}
		return
	}
	fmt.Fprintf(w, "%s: %d ran, %d cached, %d failed, %d skipped in %s\n", Plural(n, "stage", "stages"), ran, cached, failed, skipped, wall)
	writeFailed(w, r)
}

// writeFailed names the failed stages of r on one line.
func writeFailed(w io.Writer, r *runner.RunResult) {
	var names []string
	for _, s := range r.Failed() {
		names = append(names, s.Address)
	}
	if len(names) == 0 {
		return
	}
	const most = 5
	list := strings.Join(names[:min(len(names), most)], ", ")
	if len(names) > most {
		list += fmt.Sprintf(" and %d more", len(names)-most)
	}
	fmt.Fprintf(w, "failed (errors above; hylaflow runs show %d lists them): %s\n", r.RunID, list)
}

// Plural returns "1 stage" or "N stages": n followed by one or many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// New returns the observer a run shows its progress with on w:
// a live block (TermProgress) when w is a terminal of width columns that
// understands cursor movement (TERM is not dumb), else lines
// (LogProgress); quiet and verbose choose the Verbosity. done erases the
// live block and may be called more than once.
func New(w io.Writer, quiet, verbose bool, width int, isTerm bool) (obs runner.Observer, done func()) {
	level := Normal
	if quiet {
		level = Quiet
	} else if verbose {
		level = Verbose
	}
	if isTerm && os.Getenv("TERM") != "dumb" {
		tp := NewTermProgress(w, level, width)
		return tp, tp.Close
	}
	return NewLogProgress(w, level), func() {}
}
