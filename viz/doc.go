// Package viz turns learned node representations into 2-D pictures: PCA
// (through gonum's stat.PC), exact t-SNE (van der Maaten & Hinton, 2008), a
// few neighbourhood statistics that say how well a projection separates the
// classes, and scatter plots coloured by class (gonum/plot, PNG and SVG).
//
// Why a hand-written t-SNE: the Go t-SNE packages that exist (the
// danaugrs/go-tsne line and its forks) are unmaintained since about 2019,
// draw their initialisation from a package-level random source instead of a
// caller's seed, and do not give bit-identical results for different thread
// counts. hylaflow's stages must be deterministic for a seed and any number
// of workers, so this package implements the method directly on float64
// slices:
//
//   - per point, a binary search on the precision β_i = 1/(2σ_i²) of the
//     Gaussian conditional p_{j|i} until its entropy equals log(perplexity);
//   - the symmetrised joint P, p_ij = (p_{j|i} + p_{i|j}) / 2n;
//   - Student-t affinities q_ij = (1+‖y_i−y_j‖²)⁻¹ / Z in the embedding and
//     the gradient 4 Σ_j (p_ij − q_ij)(y_i − y_j)(1+‖y_i−y_j‖²)⁻¹ of
//     KL(P‖Q);
//   - early exaggeration of P, momentum (0.5, then 0.8) and Jacobs' adaptive
//     gains (+0.2 / ×0.8, floor 0.01), the embedding re-centred every step.
//
// The exact O(n²) gradient is used (no Barnes–Hut): the paper's figures have
// at most a few thousand points (Cora 2708, Airport 3188), about ten million
// pairs per iteration. Every row of the gradient is accumulated by one
// goroutine over j in increasing order and the per-row partial sums of the
// normaliser Z are added in row order, so the result does not depend on the
// number of workers.
package viz
