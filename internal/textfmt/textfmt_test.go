package textfmt

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0ms"}, {850 * time.Millisecond, "850ms"}, {999 * time.Millisecond, "999ms"},
		{time.Second, "1.0s"}, {1200 * time.Millisecond, "1.2s"}, {59*time.Second + 940*time.Millisecond, "59.9s"},
		{time.Minute, "1m00s"}, {184 * time.Second, "3m04s"}, {59*time.Minute + 59*time.Second, "59m59s"},
		{time.Hour, "1h00m"}, {62 * time.Minute, "1h02m"}, {26*time.Hour + 5*time.Minute, "26h05m"},
	} {
		if got := Duration(tt.d); got != tt.want {
			t.Errorf("Duration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
