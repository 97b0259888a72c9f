package runner_test

import (
	"testing"

	"github.com/hylaflow/hylaflow/runner"
)

// run's --mem: empty is the default budget, 0 none, else a size.
func TestMemBudget(t *testing.T) {
	for _, tt := range []struct {
		flag string
		want int64
		err  bool
	}{
		{"", runner.DefaultMemMB(), false},
		{"  ", runner.DefaultMemMB(), false},
		{"0", -1, false},
		{"6G", 6 << 10, false},
		{"512M", 512, false},
		{"lots", 0, true},
	} {
		got, err := runner.MemBudget(tt.flag)
		if (err != nil) != tt.err || !tt.err && got != tt.want {
			t.Errorf("MemBudget(%q) = %d, %v; want %d (error %v)", tt.flag, got, err, tt.want, tt.err)
		}
	}
}
