# Figure 1 and appendix E of the paper: the HyLa kernel for ρ(λ) = N(0, 0.5²).
#
#   hylaflow run pipelines/kernel.hcl
#   hylaflow run pipelines/kernel.hcl -var repeats=10      # smoother error curve
#
# One kernel stage writes, as CSV/JSON/.npy and PNG/SVG plots:
#  - Figure 1 (left): k(d) of Theorem 4.1 in 3-D hyperbolic space against the
#    distance d, next to the heat kernel at t = 6;
#  - Figure 1 (middle): k(x, O) over the 2-D Poincaré disk (Gauss–Hermite
#    quadrature of the λ integral);
#  - Figure 1 (right): its Monte-Carlo estimate ⟨φ(x), φ(O)⟩/D with D = 1000
#    HyLa features;
#  - appendix E (Figure "Averaged estimation error of HyLa to the kernel"): the
#    mean absolute error of that estimate over 1000 points drawn uniformly
#    from a hyperbolic disk, for D = 50, 100, …, 1000.
# λ follows the paper's convention (cos(λ⟨ω,x⟩_H + b)) here: the figure is
# about the kernel of Theorem 4.1, not about the official code's tuned values.

pipeline "kernel" {
  description = "Paper Figure 1 and appendix E: the HyLa kernel, its Monte-Carlo estimate and the estimation error against D"
}

variable "seed" {
  type        = number
  default     = 0
  description = "seed of the random features and the sample points"
}

variable "repeats" {
  type        = number
  default     = 1
  description = "independent feature draws averaged per D in the error experiment (the paper: 1)"
}

variable "grid" {
  type        = number
  default     = 81
  description = "the disk rasters have grid × grid points (CI uses fewer)"
}

variable "docs" {
  type        = bool
  default     = false
  description = "also publish Figure 1 and the error curve into docs/img, as README shows it (with the other variables at their defaults)"
}

stage "kernel" "figure1" {
  dim            = 3
  scale          = 0.5
  heat_time      = 6
  max_distance   = 8
  grid           = var.grid
  features       = 1000
  sample_points  = 1000
  sample_radius  = 4
  feature_counts = [for i in range(1, 21) : 50 * i]
  repeats        = var.repeats
  seed           = var.seed
}

# Every file of the figure (CSV, JSON, PNG, SVG, the disk rasters as .npz)
# in results/kernel/kernel.figure1/ beside the pipelines directory.
publish "../results/kernel" {
  from = [stage.kernel.figure1]
}

# The README's figures: hylaflow run pipelines/kernel.hcl -var docs=true
publish "../docs/img" {
  enabled = var.docs

  file "kernel_distance.png" {
    from   = stage.kernel.figure1
    member = "kernel_distance.png"
  }
  file "kernel_disk.png" {
    from   = stage.kernel.figure1
    member = "disk_kernel.png"
  }
  file "kernel_error.png" {
    from   = stage.kernel.figure1
    member = "error.png"
  }
}
