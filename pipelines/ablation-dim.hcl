# Ablation over the embedding dimension d0 (the paper's appendix studies
# d0 ∈ {2, 4, 8, 16, 32, 50}): HyLa-SGC on Cora with the official JSON values
# otherwise (D 100, K 2, s 0.01, lr_e 0.05, lr_c 0.01, 100 epochs), one
# column per d0.
#
# The example of the cache at work: the dataset, normalisation and
# precompute are shared by every cell, and each (d0, seed) cell has its own
# sample and train stages, so widening the sweep computes only the new cells:
#
#   hylaflow run pipelines/ablation-dim.hcl -var dims='[2,4,8,16,32]'
#   hylaflow plan pipelines/ablation-dim.hcl                # 50 is new: its
#   hylaflow run pipelines/ablation-dim.hcl                 # seeds + the table run
#
# (the evaluate stage reruns too, since its set of inputs changed; nothing
# else does).

pipeline "ablation-dim" {
  description = "HyLa-SGC on Cora for d0 in {2, 4, 8, 16, 32, 50} over seeds: adding a value runs only the new cells"
}

variable "dims" {
  type        = list(number)
  default     = [2, 4, 8, 16, 32, 50]
  description = "embedding dimensions d0"
}

variable "seeds" {
  type        = list(number)
  default     = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
  description = "seeds per dimension"
}

variable "epochs" {
  type        = number
  default     = 100
  description = "training epochs"
}

variable "dataset" {
  type        = string
  default     = "cora"
  description = "Planetoid dataset"
}

variable "data_root" {
  type        = string
  default     = ""
  description = "data root (empty: $HYLAFLOW_DATA, else ../shared/datasets)"
}

stage "dataset" "d" {
  source = "planetoid"
  name   = var.dataset
  root   = var.data_root
}

stage "normalize" "d" {
  graph = stage.dataset.d
}

stage "precompute" "d" {
  graph = stage.normalize.d
  k     = 2
}

stage "sample" "hyla" {
  matrix   = { dim = var.dims, seed = var.seeds }
  kind     = "hyla"
  dim      = each.value.dim
  features = 100
  scale    = 0.01
  seed     = each.value.seed
}

stage "train" "hyla" {
  matrix        = { dim = var.dims, seed = var.seeds }
  features      = stage.precompute.d
  samples       = stage.sample.hyla[each.key]
  model         = "hyla"
  lr_embedding  = 0.05
  lr_classifier = 0.01
  epochs        = var.epochs
  label         = "d0=${each.value.dim}"
  seed          = each.value.seed
}

stage "evaluate" "dims" {
  runs       = stage.train.hyla
  compare_to = "none"
  models     = [for d in var.dims : "d0=${d}"]
  title      = "HyLa-SGC on ${var.dataset}: test accuracy (%) against the embedding dimension d0"
}
