# Does HyLa help on *your* graph? HyLa-SGC, RFF-SGC, SGC and GCN on the graph
# at var.data (a directory or file: an edge list with tables, a PyG-style
# .npz or an OGB directory; docs/your-graph.md), each model's
# hyper-parameters chosen on mean *validation* accuracy over the seeds from
# the small grid below, and the table printed at the end: test accuracy,
# mean ± std over the seeds, of each model's chosen setting, with which
# model is best beyond the seeds' spread. There is no paper value for your
# graph, and none is shown.
#
#   hylaflow run pipelines/graph.hcl                            # on the shipped 300-node example
#   hylaflow datasets inspect data/mygraph                      # what the loader sees of yours
#   hylaflow run pipelines/graph.hcl -var data=$PWD/data/mygraph
#   hylaflow run pipelines/graph.hcl -var data=$PWD/data/mygraph -var 'seeds=[0,1,2]'   # a quick look
#
# A relative data path is read from this file's directory (pipelines/):
# give an absolute one. Without a split in the files, each seed draws its
# own stratified split (60/20/20 of each class; p_val and p_test change
# it); with one, every seed uses it. The grid (every value a variable):
#   HyLa-SGC, RFF-SGC: K ∈ ks × s ∈ scales × lr_e ∈ lr_es × lr_c ∈ lr_cs, d0 16, D features
#   SGC:               K ∈ ks × lr_c ∈ sgc_lr_cs
#   GCN:               hidden ∈ gcn_hiddens (Kipf & Welling's lr 0.01, dropout 0.5,
#                      weight decay 5e-4, early stopping on validation accuracy)
# HyLa, RFF and SGC report the last epoch's test accuracy (the paper's
# protocol), GCN its early-stopped model's. docs/your-graph.md gives the
# expected time on 2 cores.

pipeline "graph" {
  description = "HyLa-SGC vs RFF-SGC vs SGC vs GCN on your graph, hyper-parameters chosen on validation accuracy"
}

variable "data" {
  type        = string
  default     = "../testdata/graph-example"
  description = "your graph: a directory or file (absolute, or relative to pipelines/); the default is a 300-node example tree"
}

variable "format" {
  type        = string
  default     = "auto"
  description = "its layout: auto, edgelist, pyg or ogb"
}

variable "seeds" {
  type        = list(number)
  default     = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
  description = "seeds (each one a split when the files bring none, a sample and a training per setting)"
}

variable "p_val" {
  type        = number
  default     = 0.2
  description = "validation share of each class when the files bring no split"
}

variable "p_test" {
  type        = number
  default     = 0.2
  description = "test share of each class when the files bring no split"
}

variable "ks" {
  type        = list(number)
  default     = [1, 2]
  description = "propagation steps K"
}

variable "scales" {
  type        = list(number)
  default     = [0.1, 1]
  description = "s: the standard deviation of λ (HyLa) or of Λ's entries (RFF)"
}

variable "lr_es" {
  type        = list(number)
  default     = [0.1, 1]
  description = "learning rates of the embedding Z (HyLa, RFF)"
}

variable "lr_cs" {
  type        = list(number)
  default     = [0.01, 0.1]
  description = "learning rates of the classifier (HyLa, RFF)"
}

variable "sgc_lr_cs" {
  type        = list(number)
  default     = [0.01, 0.1, 0.5]
  description = "learning rates of SGC's classifier"
}

variable "gcn_hiddens" {
  type        = list(number)
  default     = [16, 64]
  description = "GCN's hidden units"
}

variable "features" {
  type        = number
  default     = 500
  description = "D: random features of HyLa and RFF"
}

variable "epochs" {
  type        = number
  default     = 100
  description = "training epochs (GCN: at most, with early stopping)"
}

stage "dataset" "graph" {
  source = "files"
  path   = var.data
  format = var.format
}

stage "split" "graph" {
  for_each = toset(var.seeds)
  graph    = stage.dataset.graph
  rule     = "auto"
  p_val    = var.p_val
  p_test   = var.p_test
  seed     = each.value
}

stage "normalize" "graph" {
  graph = stage.dataset.graph
}

stage "precompute" "graph" {
  matrix = { k = var.ks, seed = var.seeds }
  graph  = stage.normalize.graph
  split  = stage.split.graph[tostring(each.value.seed)]
  k      = each.value.k
}

stage "sample" "hyla" {
  matrix   = { scale = var.scales, seed = var.seeds }
  kind     = "hyla"
  dim      = 16
  features = var.features
  scale    = each.value.scale
  seed     = each.value.seed
}

stage "sample" "rff" {
  matrix   = { scale = var.scales, seed = var.seeds }
  kind     = "rff"
  dim      = 16
  features = var.features
  scale    = each.value.scale
  seed     = each.value.seed
}

stage "train" "hyla" {
  matrix        = { k = var.ks, scale = var.scales, lr_e = var.lr_es, lr_c = var.lr_cs, seed = var.seeds }
  features      = stage.precompute.graph["k=${each.value.k},seed=${each.value.seed}"]
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
  features      = stage.precompute.graph["k=${each.value.k},seed=${each.value.seed}"]
  samples       = stage.sample.rff["scale=${each.value.scale},seed=${each.value.seed}"]
  model         = "rff"
  lr_embedding  = each.value.lr_e
  lr_classifier = each.value.lr_c
  epochs        = var.epochs
  seed          = each.value.seed
  label         = "rff-sgc K=${each.value.k} s=${each.value.scale} lr_e=${each.value.lr_e} lr_c=${each.value.lr_c}"
}

stage "train" "sgc" {
  matrix        = { k = var.ks, lr_c = var.sgc_lr_cs, seed = var.seeds }
  features      = stage.precompute.graph["k=${each.value.k},seed=${each.value.seed}"]
  model         = "sgc"
  lr_classifier = each.value.lr_c
  epochs        = var.epochs
  seed          = each.value.seed
  label         = "sgc K=${each.value.k} lr_c=${each.value.lr_c}"
}

stage "gcn" "graph" {
  matrix = { hidden = var.gcn_hiddens, seed = var.seeds }
  graph  = stage.normalize.graph
  split  = stage.split.graph[tostring(each.value.seed)]
  hidden = each.value.hidden
  epochs = var.epochs
  seed   = each.value.seed
  label  = "gcn hidden=${each.value.hidden}"
}

stage "evaluate" "graph" {
  runs       = [stage.train.hyla, stage.train.rff, stage.train.sgc, stage.gcn.graph]
  metric     = "test"
  select_on  = "val"
  compare_to = "none"
  models     = ["hyla-sgc", "rff-sgc", "sgc", "gcn"]
  title      = "Your graph: test accuracy of each model's setting chosen on validation"
  # Each model under its own protocol (the SGC models' last epoch, GCN's
  # early-stopped model), each cell saying which; metric = "test_best_val"
  # puts them all under one.
  mix_protocols = true
}
