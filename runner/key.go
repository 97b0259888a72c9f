package runner

import (
	"fmt"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
)

// keyRecord builds the cache-key record of one instance of stage type t
// and computes its key. This is the only place a key record is made (plan,
// NewTask, and through them every executor): params must hold every
// declared parameter (registry.EncodeParams gives their canonical form);
// inputs lists, per slot, the outputs consumed in order (a slot present
// with no outputs is part of the key, an absent one is not); the type's
// Fingerprint of the outside data it reads completes the record.
func keyRecord(t *registry.Type, address string, params registry.Values, inputs map[string][]cache.OutputID) (*cache.KeyRecord, error) {
	enc, err := registry.EncodeParams(t, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", address, err)
	}
	rec := &cache.KeyRecord{Address: address, StageType: t.Name, Version: t.Version, Params: enc,
		Inputs: make(map[string][]string, len(inputs))}
	for slot, ids := range inputs {
		if _, ok := t.Input(slot); !ok {
			return nil, fmt.Errorf("%s: stage type %q has no input %q", address, t.Name, slot)
		}
		list := make([]string, len(ids))
		for i, id := range ids {
			list[i] = id.String()
		}
		rec.Inputs[slot] = list
	}
	if t.Fingerprint != nil {
		fp, err := t.Fingerprint(params)
		if err != nil {
			return nil, fmt.Errorf("%s: fingerprint of the data it reads: %w", address, err)
		}
		rec.Fingerprint = fp
	}
	cache.ComputeKey(rec)
	return rec, nil
}
