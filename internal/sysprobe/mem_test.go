package sysprobe

import (
	"errors"
	"testing"
)

// The memory a process may use follows its cgroup's limit (container, systemd-run,
// a cgroup made for the 8 GB validation), v1 and v2.
func TestCgroupLimitFrom(t *testing.T) {
	files := map[string]string{
		"/cg/memory/job/memory.limit_in_bytes":  "8589934592\n",
		"/cg/memory/free/memory.limit_in_bytes": "9223372036854771712\n",
		"/cg/user.slice/run-1.scope/memory.max": "4294967296\n",
		"/cg/user.slice/run-2.scope/memory.max": "max\n",
	}
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, errors.New("no file")
	}
	for _, tc := range []struct {
		name, proc string
		want       int64
	}{
		{"v1 limit", "9:pids:/\n4:memory:/job\n0::/\n", 8 << 30},
		{"v1 unlimited", "4:memory:/free\n", 0},
		{"v2 limit", "0::/user.slice/run-1.scope\n", 4 << 30},
		{"v2 max", "0::/user.slice/run-2.scope\n", 0},
		{"v1 cpu,memory", "3:cpu,memory:/job\n", 8 << 30},
		{"unreadable", "4:memory:/gone\n", 0},
		{"garbage", "nonsense", 0},
	} {
		if got := cgroupLimitFrom(tc.proc, "/cg", read); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
