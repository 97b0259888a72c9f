// Package cputime reads the CPU time the running process has used, for the
// benchmarks and `hylaflow bench`, which report CPU seconds beside wall
// time (a busy machine changes CPU time much less than wall time).
package cputime
