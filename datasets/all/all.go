// Package all registers every dataset source: importing it for its side
// effects (import _ ".../datasets/all") makes datasets.SourceOf find each
// of them. It is the one place that lists the sources; stages and the CLI
// import it.
package all

import (
	_ "github.com/hylaflow/hylaflow/datasets/files"     // files: a user's own graph (edge list, PyG npz, OGB)
	_ "github.com/hylaflow/hylaflow/datasets/hgcn"      // hgcn: Disease, Airport
	_ "github.com/hylaflow/hylaflow/datasets/planetoid" // planetoid: Cora, Citeseer, Pubmed
	_ "github.com/hylaflow/hylaflow/datasets/reddit"    // reddit: FastGCN's Reddit
	_ "github.com/hylaflow/hylaflow/datasets/synthetic" // synthetic: disease tree, SBM
	_ "github.com/hylaflow/hylaflow/datasets/textgcn"   // textgcn: R8, R52, Ohsumed, MR
)
