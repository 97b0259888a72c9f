package cache

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// procID identifies a process across pid reuse: the host, the pid and the
// process's start time in clock ticks since boot (/proc/PID/stat field 22).
type procID struct {
	host  string
	pid   int
	start string
}

func currentProc() (procID, error) {
	host, err := os.Hostname()
	if err != nil {
		return procID{}, fmt.Errorf("host name: %w", err)
	}
	pid := os.Getpid()
	start, err := procStart(pid)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return procID{}, err
	}
	// Without /proc (not Linux) start is "" and liveness falls back to
	// lease expiry.
	return procID{host: host, pid: pid, start: start}, nil
}

// procStart returns field 22 (starttime) of /proc/PID/stat.
func procStart(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	return parseStatStart(b)
}

// parseStatStart extracts field 22 from the contents of /proc/PID/stat. The
// second field (comm) is in parentheses and may contain spaces and
// parentheses, so fields are counted after the last ')'.
func parseStatStart(b []byte) (string, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", fmt.Errorf("/proc stat %q: no ')' after the command name", b)
	}
	fields := strings.Fields(string(b[i+1:]))
	// fields[0] is field 3 (state), so field 22 is fields[19].
	if len(fields) < 20 {
		return "", fmt.Errorf("/proc stat: %d fields after the command name, want at least 20", len(fields))
	}
	if _, err := strconv.ParseUint(fields[19], 10, 64); err != nil {
		return "", fmt.Errorf("/proc stat: field 22 (starttime) %q: %w", fields[19], err)
	}
	return fields[19], nil
}

// procState says whether a recorded process is alive.
type procState int

const (
	procUnknown procState = iota // another host or no /proc: rely on expiry
	procAlive
	procDead
)

// state reports whether p, as seen from self, still runs.
func (self procID) state(p procID) procState {
	if p.host != self.host || self.start == "" {
		return procUnknown
	}
	if p.pid == self.pid && p.start == self.start {
		return procAlive
	}
	start, err := procStart(p.pid)
	if errors.Is(err, fs.ErrNotExist) {
		return procDead
	}
	if err != nil {
		return procUnknown
	}
	if start != p.start {
		return procDead // the pid was reused
	}
	if procZombie(p.pid) {
		return procDead
	}
	return procAlive
}

// procZombie reports whether pid is a zombie (exited, not yet reaped): its
// leases are as dead as those of a vanished process.
func procZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}
