package runs

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
)

// TestShowCommands: runs show names a run's command stages with their
// argv, code hashes, variable hashes and version output, in text and JSON;
// other stages have no command entry.
func TestShowCommands(t *testing.T) {
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	code := strings.Repeat("1f", 32)
	fp, err := registry.JoinFingerprint(map[string]string{"code train.py": code, "env SEED_SHIFT": "unset", "version": `"2.1.0"`})
	if err != nil {
		t.Fatal(err)
	}
	m := bundle.New(bundle.KindMetrics)
	if err := m.SetJSON(bundle.MemberMetrics, map[string]any{"test": 0.5}); err != nil {
		t.Fatal(err)
	}
	store := func(rec *cache.KeyRecord) string {
		cache.ComputeKey(rec)
		if _, err := c.Store(rec, map[string]artifact.Artifact{"metrics": m}); err != nil {
			t.Fatal(err)
		}
		return rec.Key
	}
	cmdKey := store(&cache.KeyRecord{Address: "command.mine", StageType: "command", Version: "1", Fingerprint: fp,
		Params: map[string]string{"argv": `["/usr/bin/python3","{dir}/train.py","a b"]`, "version_argv": `["/usr/bin/python3","-V"]`}})
	trainKey := store(&cache.KeyRecord{Address: "train.a", StageType: "train", Version: "1", Params: map[string]string{"seed": "0"}})
	id, err := c.BeginRun("p.hcl", []string{"run", "--allow-commands", "p.hcl"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []cache.StageRecord{
		{Address: "train.a", Key: trainKey, Status: "ran"},
		{Address: "command.mine", Key: cmdKey, Status: "ran", Reason: "code train.py changed"},
	} {
		if err := c.RecordStage(id, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.FinishRun(id, "ok"); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteShow(&b, c, id, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	want := `
commands (programs the pipeline runs; code by sha256, variables by a hash of their value):
  command.mine  /usr/bin/python3 {dir}/train.py 'a b'
    code train.py  1f1f1f1f1f1f
    env SEED_SHIFT  unset
    version  "2.1.0"
`
	if !strings.Contains(b.String(), want) {
		t.Errorf("runs show:\n%s\nwant the section%s", b.String(), want)
	}
	b.Reset()
	if err := WriteShow(&b, c, id, true, time.Now()); err != nil {
		t.Fatal(err)
	}
	var d struct {
		Stages []StageJSON `json:"stage_list"`
	}
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Stages) != 2 {
		t.Fatalf("runs show --json lists %d stages, want 2", len(d.Stages))
	}
	for _, s := range d.Stages {
		switch s.Address {
		case "train.a":
			if s.Command != nil {
				t.Errorf("train.a has a command entry %+v", s.Command)
			}
		case "command.mine":
			wantJ := &CommandJSON{Argv: []string{"/usr/bin/python3", "{dir}/train.py", "a b"}, VersionArgv: []string{"/usr/bin/python3", "-V"},
				Fingerprint: map[string]string{"code train.py": code, "env SEED_SHIFT": "unset", "version": `"2.1.0"`}}
			if !reflect.DeepEqual(s.Command, wantJ) {
				t.Errorf("command entry %+v, want %+v", s.Command, wantJ)
			}
		}
	}
}
