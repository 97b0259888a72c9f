package viz

import (
	"context"
	"math"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestNeighborsAndScores(t *testing.T) {
	// Points on a line: 0, 1, 3, 7, 8 (and a tie: 3 is 2 from 1 and... 4 from 7).
	x := mat.NewDense(5, 1, []float64{0, 1, 3, 7, 8})
	nb, err := Neighbors(context.Background(), x, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{1, 2}, {0, 2}, {1, 0}, {4, 2}, {3, 2}}
	if !reflect.DeepEqual(nb, want) {
		t.Fatalf("neighbours %v, want %v", nb, want)
	}
	// Ties go to the smaller index.
	tie, _ := Neighbors(context.Background(), mat.NewDense(3, 1, []float64{0, -1, 1}), 1, 1)
	if tie[0][0] != 1 {
		t.Errorf("tie broken to %d, want 1", tie[0][0])
	}
	for _, tc := range []struct {
		name   string
		labels []int
		k      int
		want   float64
	}{
		{"1-NN", []int{0, 0, 0, 1, 1}, 1, 1},
		{"2-NN tie to the nearest", []int{0, 0, 1, 1, 1}, 2, 0.8}, // point 2: votes 0 (node 1), 0 (node 0) → wrong; others right
		{"unlabelled skipped", []int{0, -1, 0, 1, 1}, 1, 0.5},     // points 0 and 2 have only the unlabelled 1 as neighbour → errors
		{"none labelled", []int{-1, -1, -1, -1, -1}, 1, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := KNNAccuracy(nb, tc.labels, tc.k)
			if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
				t.Errorf("accuracy %v, want %v", got, tc.want)
			}
		})
	}
	pres, err := NeighborPreservation(nb, nb, 2)
	if err != nil || pres != 1 {
		t.Errorf("self preservation %v (%v), want 1", pres, err)
	}
	other := [][]int{{1, 3}, {4, 3}, {1, 0}, {4, 2}, {3, 2}}
	// Hits: 1/2, 0/2, 2/2, 2/2, 2/2 → 3.5/5.
	if pres, _ := NeighborPreservation(nb, other, 2); math.Abs(pres-0.7) > 1e-15 {
		t.Errorf("preservation %v, want 0.7", pres)
	}
	if _, err := Neighbors(context.Background(), x, 5, 1); err == nil {
		t.Error("k = n accepted")
	}
	if _, err := NeighborPreservation(nb, other[:2], 2); err == nil {
		t.Error("mismatched lists accepted")
	}
}
