package slurm

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// squeueFormat is the -o format Client passes to squeue; ParseSqueue reads
// it. The comment comes last because it is free text and may hold '|'.
const squeueFormat = "%i|%T|%r|%N|%k"

// ParseParsable reads the output of `sbatch --parsable`: "ID" or
// "ID;CLUSTER", possibly after warning lines.
func ParseParsable(out []byte) (string, error) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	id, _, _ := strings.Cut(last, ";")
	if !validJobID(id) {
		return "", fmt.Errorf("sbatch --parsable: expected a job id on the last line, got %q", last)
	}
	return id, nil
}

var jobIDRe = regexp.MustCompile(`^[0-9]+(_[0-9]+)?$`)

func validJobID(id string) bool { return jobIDRe.MatchString(id) }

// ParseSqueue reads squeue -h -o "%i|%T|%r|%N|%k" output: one job a line.
// Errors name the line and what was expected.
func ParseSqueue(out []byte) (map[string]JobInfo, error) {
	jobs := map[string]JobInfo{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.SplitN(line, "|", 5)
		if len(f) != 5 {
			return nil, fmt.Errorf("squeue output line %d: expected 5 fields ID|STATE|REASON|NODES|COMMENT, got %d in %q", n, len(f), line)
		}
		id := strings.TrimSpace(f[0])
		if !validJobID(id) {
			return nil, fmt.Errorf("squeue output line %d: expected a job id, got %q", n, f[0])
		}
		st := State(strings.TrimSpace(f[1]))
		if st == "" {
			return nil, fmt.Errorf("squeue output line %d: empty job state", n)
		}
		jobs[id] = JobInfo{
			ID: id, State: st, Reason: strings.TrimSpace(f[2]), Nodes: strings.TrimSpace(f[3]),
			Comment: nullToEmpty(f[4]), ExitCode: -1,
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("squeue output: %w", err)
	}
	return jobs, nil
}

func nullToEmpty(s string) string {
	s = strings.TrimSpace(s)
	if s == "(null)" {
		return ""
	}
	return s
}

// scontrolKeyRe matches the start of a Key=Value token of `scontrol -o`
// output; keys hold letters, digits and ':', '/', '_' (e.g. CPUs/Task,
// AllocNode:Sid).
var scontrolKeyRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_:/]*=`)

// ParseScontrolFields splits one line of `scontrol show job -o` into its
// Key=Value fields. A space-separated word that does not start a new key
// belongs to the previous value (job names and paths may hold spaces).
func ParseScontrolFields(line string) map[string]string {
	fields := map[string]string{}
	var key string
	for _, w := range strings.Split(line, " ") {
		if loc := scontrolKeyRe.FindStringIndex(w); loc != nil {
			key = w[:loc[1]-1]
			fields[key] = w[loc[1]:]
			continue
		}
		if key != "" && w != "" {
			fields[key] += " " + w
		}
	}
	return fields
}

// ParseScontrol reads `scontrol show job -o` output (one job a line).
func ParseScontrol(out []byte) (map[string]JobInfo, error) {
	jobs := map[string]JobInfo{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := ParseScontrolFields(line)
		id := f["JobId"]
		if !validJobID(id) {
			return nil, fmt.Errorf("scontrol output line %d: expected JobId=NUMBER, got %q", n, id)
		}
		st, ok := f["JobState"]
		if !ok || st == "" {
			return nil, fmt.Errorf("scontrol output line %d (job %s): no JobState", n, id)
		}
		code, sig, err := ParseExitCode(f["ExitCode"])
		if err != nil {
			return nil, fmt.Errorf("scontrol output line %d (job %s): %w", n, id, err)
		}
		jobs[id] = JobInfo{
			ID: id, Name: f["JobName"], State: State(st), Reason: f["Reason"],
			ExitCode: code, Signal: sig, Nodes: nullToEmpty(f["NodeList"]), Comment: nullToEmpty(f["Comment"]),
			Submit: parseSlurmTime(f["SubmitTime"]), Start: parseSlurmTime(f["StartTime"]), End: parseSlurmTime(f["EndTime"]),
			StdOut: f["StdOut"],
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("scontrol output: %w", err)
	}
	return jobs, nil
}

// ParseExitCode reads Slurm's "CODE:SIGNAL" exit code; "" gives -1, 0.
func ParseExitCode(s string) (code, signal int, err error) {
	if s == "" {
		return -1, 0, nil
	}
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("ExitCode %q: expected CODE:SIGNAL", s)
	}
	code, err1 := strconv.Atoi(a)
	signal, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || code < 0 || signal < 0 {
		return 0, 0, fmt.Errorf("ExitCode %q: expected two non-negative integers CODE:SIGNAL", s)
	}
	return code, signal, nil
}

// parseSlurmTime reads 2006-01-02T15:04:05 in local time; "Unknown",
// "None" and "N/A" give the zero time.
func parseSlurmTime(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02T15:04:05", s, time.Local)
	if err != nil {
		return time.Time{}
	}
	return t
}

// FormatTime renders d as an sbatch --time value, rounded up to whole
// minutes (at least one): "HH:MM:00" or "D-HH:MM:00".
func FormatTime(d time.Duration) string {
	mins := int64((d + time.Minute - 1) / time.Minute)
	if mins < 1 {
		mins = 1
	}
	days, rest := mins/(24*60), mins%(24*60)
	if days > 0 {
		return fmt.Sprintf("%d-%02d:%02d:00", days, rest/60, rest%60)
	}
	return fmt.Sprintf("%02d:%02d:00", rest/60, rest%60)
}

// isUnknownJob reports whether a squeue/scontrol error output says that
// the job id is not known to the controller.
func isUnknownJob(stderr []byte) bool {
	return bytes.Contains(stderr, []byte("Invalid job id specified"))
}
