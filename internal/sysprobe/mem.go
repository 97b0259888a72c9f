// Package sysprobe asks the machine what a run may use: the physical
// memory and the memory limit of this process's cgroup (a container,
// systemd-run -p MemoryMax, a Slurm job). The runner's default memory
// budget is a share of MemoryBytes.
package sysprobe

import (
	"os"
	"strconv"
	"strings"
)

// MemoryBytes returns the memory this process may use in bytes: the
// physical memory (MemTotalBytes), or its cgroup's limit when that is
// lower (CgroupMemLimit); 0 when neither is known.
func MemoryBytes() int64 {
	total := MemTotalBytes()
	if lim := CgroupMemLimit(); lim > 0 && (total <= 0 || lim < total) {
		total = lim
	}
	return total
}

// MemTotalBytes is MemTotal of /proc/meminfo in bytes, or 0.
func MemTotalBytes() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			if f := strings.Fields(rest); len(f) >= 1 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil && kb > 0 {
					return kb << 10
				}
			}
		}
	}
	return 0
}

// CgroupMemLimit returns the memory limit in bytes of this process's
// cgroup (v2 memory.max, or v1 memory.limit_in_bytes), or 0 when there is
// none or it cannot be read.
func CgroupMemLimit() int64 {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	return cgroupLimitFrom(string(b), "/sys/fs/cgroup", os.ReadFile)
}

// cgroupLimitFrom reads the limit of the cgroup named in a /proc/self/cgroup
// text under the cgroup file system at root.
func cgroupLimitFrom(procCgroup, root string, read func(string) ([]byte, error)) int64 {
	for _, line := range strings.Split(procCgroup, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var file string
		switch {
		case parts[0] == "0" && parts[1] == "":
			file = root + parts[2] + "/memory.max"
		case strings.Contains(","+parts[1]+",", ",memory,"):
			file = root + "/memory" + parts[2] + "/memory.limit_in_bytes"
		default:
			continue
		}
		b, err := read(file)
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(b))
		// "max" (v2) or a huge page-rounded number (v1) mean no limit.
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 && n < 1<<60 {
			return n
		}
	}
	return 0
}
