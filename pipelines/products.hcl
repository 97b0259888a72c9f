# HyLa-SGC at ogbn-products' size: a synthetic stochastic block model with
# 2,449,029 nodes, 61,859,140 edges, 100 features and 47 classes (ten times
# the Reddit-scale graph of table1.hcl), through load → normalise →
# precompute → sample → train → evaluate, inductive (trained on the
# training subgraph, S_train² X_train) and transductive (S² X), at the
# feature level: Z has one point per input feature, so no node-by-D array
# is ever formed; the node-sized arrays are X = S² X (n × 100) and the
# logits (n × 47). The labels are the SBM's blocks, not ogbn-products'.
#
#   hylaflow run pipelines/products.hcl                  # full size: most of a 24 GB machine
#   hylaflow run pipelines/products.hcl -var size=tiny   # 4,000 nodes: the wiring, in seconds (CI)

variable "size" {
  type        = string
  default     = "full"
  description = "graph size: full (ogbn-products' 2,449,029 nodes and 61,859,140 edges) or tiny (4,000 nodes, 100,000 edges)"
  validation {
    condition     = contains(["full", "tiny"], var.size)
    error_message = "size must be full or tiny."
  }
}

variable "seeds" {
  type        = list(number)
  default     = [0]
  description = "training seeds (random features and initialisation)"
}

variable "epochs" {
  type        = number
  default     = 100
  description = "training epochs"
}

locals {
  shape = {
    full = { nodes = 2449029, edges = 61859140 }
    tiny = { nodes = 4000, edges = 100000 }
  }[var.size]
  settings = toset(["inductive", "transductive"])
  runs     = { for p in setproduct(local.settings, var.seeds) : "${p[0]}/${p[1]}" => { setting = p[0], seed = p[1] } }
}

stage "dataset" "products" {
  source   = "synthetic"
  name     = "sbm"
  nodes    = local.shape.nodes
  edges    = local.shape.edges
  features = 100
  classes  = 47
}

stage "normalize" "products" {
  graph    = stage.dataset.products
  features = "standardize"
}

stage "precompute" "products" {
  for_each  = local.settings
  graph     = stage.normalize.products
  k         = 2
  inductive = each.value == "inductive"
}

# Reddit's appendix values (table1.hcl): d0 = 50, D = 1000, s = 0.5.
stage "sample" "products" {
  for_each = toset(var.seeds)
  kind     = "hyla"
  dim      = 50
  features = 1000
  scale    = 0.5
  seed     = each.value
}

stage "train" "products" {
  for_each      = local.runs
  features      = stage.precompute.products[each.value.setting]
  samples       = stage.sample.products[each.value.seed]
  model         = "hyla"
  lr_embedding  = 0.1
  lr_classifier = 0.001
  metric        = "micro_f1"
  epochs        = var.epochs
  label         = "hyla-sgc-${each.value.setting}"
  seed          = each.value.seed
}

stage "evaluate" "products" {
  runs       = stage.train.products
  metric     = "test"
  compare_to = "none"
  datasets   = ["synthetic_sbm"]
  models     = ["hyla-sgc-inductive", "hyla-sgc-transductive"]
  title      = "HyLa-SGC on an ogbn-products-sized SBM: test micro-F1 (%)"
}
