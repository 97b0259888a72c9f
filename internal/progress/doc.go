// Package progress is the CLI's view of a run: it implements
// runner.Observer to show the run's events on a terminal (TermProgress: a
// live block of running stages under the finished ones) or as plain
// timestamped lines for logs and pipes (LogProgress), and writes the
// summary a run ends with. The runner only emits events; everything that
// knows about terminals, widths and verbosity lives here.
package progress
