# A small run that exercises every vector kernel (HyLa map fused forward and
# backward at feature and node level, the RFF map with narrow and wide
# frequencies, the row products, Gᵀ·X, the sparse powers) on Cora and
# Airport. kernels_test.go pins the digests of its artifacts in
# testdata/kernels.golden: every CPU path (HYLAFLOW_CPU=avx512|avx2|generic)
# must compute the same bytes.

pipeline "kernels" {
  description = "bit-identity check of the vector kernels on Cora and Airport"
}

# Empty: the datasets are found through $HYLAFLOW_DATA (else ../shared
# beside the repository), which keeps the path out of the cache keys, so the
# digests do not depend on where the data lies (the keys seed the draws).
variable "data_root" {
  type    = string
  default = ""
}

stage "dataset" "cora" {
  source = "planetoid"
  name   = "cora"
  root   = var.data_root
}

stage "normalize" "cora" {
  graph = stage.dataset.cora
}

stage "precompute" "cora" {
  graph = stage.normalize.cora
  k     = 2
}

stage "sample" "cora_hyla" {
  kind     = "hyla"
  dim      = 16
  features = 100
  scale    = 1.0
  seed     = 1
}

stage "train" "cora_hyla" {
  features      = stage.precompute.cora
  samples       = stage.sample.cora_hyla
  model         = "hyla"
  lr_embedding  = 0.1
  lr_classifier = 0.01
  epochs        = 8
  seed          = 1
}

# scale 2: most arguments of cos leave [−0.5, 0.5] (the wide-argument path).
stage "sample" "cora_rff" {
  kind     = "rff"
  dim      = 16
  features = 100
  scale    = 2.0
  seed     = 1
}

stage "train" "cora_rff" {
  features      = stage.precompute.cora
  samples       = stage.sample.cora_rff
  model         = "rff"
  lr_embedding  = 0.5
  lr_classifier = 0.01
  epochs        = 8
  seed          = 1
}

stage "dataset" "airport" {
  source            = "hgcn"
  name              = "airport"
  identity_features = true
  root              = var.data_root
}

stage "normalize" "airport" {
  graph = stage.dataset.airport
}

stage "hgcn_split" "airport" {
  graph = stage.dataset.airport
  seed  = 1
}

stage "precompute" "airport" {
  graph = stage.normalize.airport
  split = stage.hgcn_split.airport
  k     = 2
  level = "nodes"
}

stage "sample" "airport_hyla" {
  kind     = "hyla"
  dim      = 16
  features = 1000
  scale    = 0.01
  seed     = 1
}

stage "train" "airport_hyla" {
  features      = stage.precompute.airport
  samples       = stage.sample.airport_hyla
  model         = "hyla"
  lr_embedding  = 0.5
  lr_classifier = 0.1
  level         = "nodes"
  epochs        = 4
  seed          = 1
}
