package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestEpochAllocatesNothing: with one worker, an epoch (step + evaluation)
// allocates nothing, for every model and level, at Cora's feature-level
// shapes and on a node-level graph.
func TestEpochAllocatesNothing(t *testing.T) {
	cora := benchData(2708, 1433, 7)
	nodes := makeProblem(t, 3, 300, 3, 8, 0.1, 0.01, 0.5, 60, 60)
	for _, tc := range []struct {
		model Model
		level Level
		data  *Data
		D     int
	}{
		{ModelHyLa, LevelFeatures, cora, 100},
		{ModelRFF, LevelFeatures, cora, 100},
		{ModelSGC, LevelFeatures, cora, 0},
		{ModelHyLa, LevelNodes, nodes, 64},
		{ModelSGC, LevelNodes, nodes, 0},
	} {
		t.Run(fmt.Sprintf("%s/%s", tc.model, tc.level), func(t *testing.T) {
			var fm = featureMap(t, tc.model, 1, tc.D, 16, 0.01)
			cfg := Config{Model: tc.model, Level: tc.level, Epochs: 1, LREmbedding: 0.05, LRClassifier: 0.01, Workers: 1}
			if tc.model == ModelSGC {
				fm = nil
			}
			tr, err := newTrainer(tc.data, fm, nil, cfg, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := tr.forward(ctx); err != nil {
				t.Fatal(err)
			}
			epoch := 0
			allocs := testing.AllocsPerRun(5, func() {
				if err := tr.epoch(ctx, epoch); err != nil {
					t.Fatal(err)
				}
				epoch++
			})
			if allocs != 0 {
				t.Errorf("%v allocations per epoch, want 0", allocs)
			}
		})
	}
}
