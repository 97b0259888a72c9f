# The validation grid behind the quickstart's settings (docs/quickstart.md):
# on the quickstart's tree and split, every K × lr_c and, for HyLa-SGC and
# RFF-SGC, every s × lr_e, over five seeds, in one table of mean *validation*
# accuracy (last epoch) per model and setting. Test accuracy plays no part in
# the choice, so the table has none.
#
#   hylaflow run pipelines/quickstart-search.hcl
#   hylaflow run pipelines/quickstart-search.hcl -var 'ks=[0,1]' -var 'lr_cs=[0.01]'
#
# The dataset, split and normalisation are the quickstart's (same stages, same
# cache entries); one precompute per K and one sample per (kind, s, seed) are
# shared by every learning rate.

pipeline "quickstart-search" {
  description = "the quickstart's validation grid: K × lr_c × (s × lr_e) × seeds for HyLa-SGC, RFF-SGC and SGC; ranks by validation accuracy"
}

variable "seeds" {
  type        = list(number)
  default     = [0, 1, 2, 3, 4]
  description = "seeds per cell"
}

variable "ks" {
  type        = list(number)
  default     = [1, 2, 3, 5]
  description = "propagation steps K"
}

variable "lr_cs" {
  type        = list(number)
  default     = [0.01, 0.1]
  description = "learning rates of the classifier (Adam)"
}

variable "scales" {
  type        = list(number)
  default     = [0.1, 0.5, 1]
  description = "s, the standard deviation of λ (HyLa) or of Λ's entries (RFF)"
}

variable "lr_es" {
  type        = list(number)
  default     = [0.1, 1]
  description = "learning rates of Z"
}

variable "epochs" {
  type        = number
  default     = 100
  description = "training epochs"
}

stage "dataset" "disease" {
  source = "synthetic"
  name   = "disease"
  nodes  = 1044
  seed   = 7
}

stage "split" "disease" {
  graph = stage.dataset.disease
  rule  = "hgcn"
  seed  = 0
}

stage "normalize" "disease" {
  graph    = stage.dataset.disease
  features = "standardize"
}

stage "precompute" "k" {
  for_each = toset(var.ks)
  graph    = stage.normalize.disease
  split    = stage.split.disease
  k        = each.value
}

stage "sample" "hyla" {
  matrix   = { scale = var.scales, seed = var.seeds }
  kind     = "hyla"
  dim      = 16
  features = 500
  scale    = each.value.scale
  seed     = each.value.seed
}

stage "sample" "rff" {
  matrix   = { scale = var.scales, seed = var.seeds }
  kind     = "rff"
  dim      = 16
  features = 500
  scale    = each.value.scale
  seed     = each.value.seed
}

stage "train" "hyla" {
  matrix        = { k = var.ks, scale = var.scales, lr_e = var.lr_es, lr_c = var.lr_cs, seed = var.seeds }
  features      = stage.precompute.k[tostring(each.value.k)]
  samples       = stage.sample.hyla["scale=${each.value.scale},seed=${each.value.seed}"]
  model         = "hyla"
  lr_embedding  = each.value.lr_e
  lr_classifier = each.value.lr_c
  epochs        = var.epochs
  seed          = each.value.seed
  label         = "hyla-sgc K=${each.value.k} s=${each.value.scale} lr_e=${each.value.lr_e} lr_c=${each.value.lr_c}"
}

stage "train" "rff" {
  matrix        = { k = var.ks, scale = var.scales, lr_e = var.lr_es, lr_c = var.lr_cs, seed = var.seeds }
  features      = stage.precompute.k[tostring(each.value.k)]
  samples       = stage.sample.rff["scale=${each.value.scale},seed=${each.value.seed}"]
  model         = "rff"
  lr_embedding  = each.value.lr_e
  lr_classifier = each.value.lr_c
  epochs        = var.epochs
  seed          = each.value.seed
  label         = "rff-sgc K=${each.value.k} s=${each.value.scale} lr_e=${each.value.lr_e} lr_c=${each.value.lr_c}"
}

stage "train" "sgc" {
  matrix        = { k = var.ks, lr_c = var.lr_cs, seed = var.seeds }
  features      = stage.precompute.k[tostring(each.value.k)]
  model         = "sgc"
  lr_classifier = each.value.lr_c
  epochs        = var.epochs
  seed          = each.value.seed
  label         = "sgc K=${each.value.k} lr_c=${each.value.lr_c}"
}

stage "evaluate" "validation" {
  runs       = [stage.train.hyla, stage.train.rff, stage.train.sgc]
  metric     = "val"
  compare_to = "none"
  datasets   = ["synthetic_disease"]
  title      = "Quickstart grid: validation accuracy (%), last epoch"
}
