package runner

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// EventKind says what an Event reports.
type EventKind int

// The events of a run.
const (
	EventStart    EventKind = iota // a stage started
	EventProgress                  // a running stage reported progress
	EventLog                       // a running stage wrote a log line
	EventDone                      // a stage finished (any status, including cached and skipped)
)

// Event is one thing that happened during a run.
type Event struct {
	Kind     EventKind
	Time     time.Time
	Address  string
	Status   string        // EventDone: StatusRan, StatusCached, …
	Reason   string        // EventStart/EventDone: why it runs, or why it was skipped
	Duration time.Duration // EventDone
	Done     int           // EventProgress
	Total    int           // EventProgress (0 = unknown)
	Msg      string        // EventProgress: the stage's message; EventLog: the line
	Err      error         // EventDone of a failed stage
}

// Observer receives the events of a run; it must be safe for concurrent use.
type Observer interface {
	Event(e Event)
}

type nopObserver struct{}

func (nopObserver) Event(Event) {}

// Verbosity selects how much a progress display prints.
type Verbosity int

// The verbosity levels.
const (
	Quiet   Verbosity = -1 // only the summary and errors
	Normal  Verbosity = 0  // one line per finished stage
	Verbose Verbosity = 1  // also the stages' log lines
)

// LogProgress prints plain timestamped lines, one per finished stage, for
// non-terminals (CI logs):
//
//	12:00:01 ran      train.cora["3"]  1.2s
//	12:00:01 cached   dataset.cora
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
func (p *LogProgress) Event(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case EventLog:
		if p.level >= Verbose {
			fmt.Fprintf(p.w, "%s          %s: %s\n", p.stamp(e.Time), e.Address, e.Msg)
		}
	case EventStart:
		if p.level >= Verbose {
			fmt.Fprintf(p.w, "%s start    %s  (%s)\n", p.stamp(e.Time), e.Address, e.Reason)
		}
	case EventDone:
		if p.level < Normal && e.Status != StatusFailed {
			return
		}
		fmt.Fprintln(p.w, formatDone(p.stamp(e.Time), e, p.level >= Verbose))
	}
}

// formatDone formats a finished stage's line.
func formatDone(stamp string, e Event, verbose bool) string {
	line := fmt.Sprintf("%s %-8s %s", stamp, e.Status, e.Address)
	switch e.Status {
	case StatusRan:
		line += "  " + FormatDuration(e.Duration)
		if verbose && e.Reason != "" {
			line += "  (" + e.Reason + ")"
		}
	case StatusFailed:
		line += "  " + FormatDuration(e.Duration)
		if e.Err != nil {
			line += ": " + e.Err.Error()
		}
	case StatusSkipped, StatusCanceled:
		if e.Reason != "" {
			line += "  (" + e.Reason + ")"
		}
	}
	return line
}

// FormatDuration prints a duration compactly: 850ms, 1.2s, 3m04s, 1h02m.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// TermProgress is the live display for terminals: finished stages scroll
// above a block with one line per running stage (address, elapsed time and
// the stage's own progress), redrawn at most 10 times a second.
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
func (p *TermProgress) Event(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case EventStart:
		p.running[e.Address] = &termLine{start: e.Time}
		p.redraw(false)
	case EventProgress:
		if l, ok := p.running[e.Address]; ok {
			l.done, l.total, l.msg = e.Done, e.Total, e.Msg
		}
		p.redraw(false)
	case EventLog:
		if p.level >= Verbose {
			p.erase()
			fmt.Fprintf(p.w, "%s          %s: %s\n", e.Time.Format("15:04:05"), e.Address, e.Msg)
			p.redraw(true)
		}
	case EventDone:
		delete(p.running, e.Address)
		if p.level >= Normal || e.Status == StatusFailed {
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
	io.WriteString(p.w, b.String())
	p.drawn = n
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
// or "nothing to do: all 5 stages cached (0.1s)", followed by the errors of
// the failed stages.
func WriteSummary(w io.Writer, r *RunResult) {
	n := len(r.Stages)
	ran, cached := r.Count(StatusRan), r.Count(StatusCached)
	failed, skipped, canceled := r.Count(StatusFailed), r.Count(StatusSkipped), r.Count(StatusCanceled)
	wall := FormatDuration(r.Wall)
	if cached == n {
		fmt.Fprintf(w, "nothing to do: all %d stages cached (%s)\n", n, wall)
		return
	}
	line := fmt.Sprintf("%d stages: %d ran, %d cached, %d failed, %d skipped", n, ran, cached, failed, skipped)
	if canceled > 0 {
		line += fmt.Sprintf(", %d canceled", canceled)
	}
	fmt.Fprintf(w, "%s in %s\n", line, wall)
	for _, s := range r.Failed() {
		fmt.Fprintf(w, "error: %s: %v\n", s.Address, s.Err)
	}
	if r.Status == RunCanceled {
		fmt.Fprintln(w, "run canceled")
	}
}
