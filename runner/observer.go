package runner

import "time"

// EventKind says what an Event reports.
type EventKind int

// The events of a run.
const (
	EventStart    EventKind = iota // a stage started
	EventProgress                  // a running stage reported progress
	EventLog                       // a running stage wrote a log line
	EventDone                      // a stage finished (any status, including cached and skipped)
	EventPlan                      // before anything runs: Total = the run's number of stages
	EventWait                      // a started stage's key is being computed by another process: it waits outside the worker slots (once per stage)
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
	Total    int           // EventProgress (0 = unknown); EventPlan: stages in the run
	Msg      string        // EventProgress: the stage's message; EventLog: the line; EventWait: why it waits
	Err      error         // EventDone of a failed stage
	MemMB    int64         // EventStart: the memory the budget counts for the stage (MiB; 0 none)
}

// Observer receives the events of a run (RunOptions.Observer); it must be
// safe for concurrent use. The runner writes nothing to a terminal: the
// CLI's displays (internal/progress) are Observers.
type Observer interface {
	Event(e Event)
}

type nopObserver struct{}

func (nopObserver) Event(Event) {}
