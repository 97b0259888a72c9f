package nn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Predict writes the predicted class of every row of logits into dst:
// the index of the row's maximum (the first on ties, as torch.argmax), or,
// for a single column (binary, sigmoid), 1 when the logit is > 0.
func Predict(logits *mat.Dense, dst []int) {
	n, c := logits.Dims()
	if len(dst) != n {
		panic(fmt.Sprintf("nn: Predict: %d destinations for %d rows", len(dst), n))
	}
	for i := 0; i < n; i++ {
		row := logits.RawRowView(i)
		if c == 1 {
			if row[0] > 0 {
				dst[i] = 1
			} else {
				dst[i] = 0
			}
			continue
		}
		best := 0
		for j := 1; j < c; j++ {
			if row[j] > row[best] {
				best = j
			}
		}
		dst[i] = best
	}
}

// Accuracy returns the fraction of rows whose prediction equals the label
// (0 for no rows).
func Accuracy(pred, labels []int) float64 {
	if len(pred) != len(labels) {
		panic(fmt.Sprintf("nn: Accuracy: %d predictions for %d labels", len(pred), len(labels)))
	}
	if len(pred) == 0 {
		return 0
	}
	hit := 0
	for i, p := range pred {
		if p == labels[i] {
			hit++
		}
	}
	return float64(hit) / float64(len(pred))
}

// MicroF1 returns the micro-averaged F1 score of single-label predictions
// over the given classes (sklearn's f1_score(average="micro")):
// 2·TP / (2·TP + FP + FN) with TP, FP, FN summed over classes. For
// single-label data over all classes it equals the accuracy. It returns 0
// when there is nothing to score.
func MicroF1(pred, labels []int, classes int) float64 {
	if len(pred) != len(labels) {
		panic(fmt.Sprintf("nn: MicroF1: %d predictions for %d labels", len(pred), len(labels)))
	}
	var tp, fp, fn int
	for i, p := range pred {
		y := labels[i]
		inP, inY := p >= 0 && p < classes, y >= 0 && y < classes
		switch {
		case p == y && inP:
			tp++
		default:
			if inP {
				fp++
			}
			if inY {
				fn++
			}
		}
	}
	if 2*tp+fp+fn == 0 {
		return 0
	}
	return float64(2*tp) / float64(2*tp+fp+fn)
}

// MicroF1Multi returns the micro-averaged F1 of multi-label predictions:
// pred and truth are n×C indicator matrices (nonzero = label present).
func MicroF1Multi(pred, truth *mat.Dense) float64 {
	n, c := pred.Dims()
	if tn, tc := truth.Dims(); tn != n || tc != c {
		panic(fmt.Sprintf("nn: MicroF1Multi: shapes %d×%d and %d×%d", n, c, tn, tc))
	}
	var tp, fp, fn int
	for i := 0; i < n; i++ {
		pr, tr := pred.RawRowView(i), truth.RawRowView(i)
		for j := range pr {
			p, t := pr[j] != 0, tr[j] != 0
			switch {
			case p && t:
				tp++
			case p:
				fp++
			case t:
				fn++
			}
		}
	}
	if 2*tp+fp+fn == 0 {
		return 0
	}
	return float64(2*tp) / float64(2*tp+fp+fn)
}
