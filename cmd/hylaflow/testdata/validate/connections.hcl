# Pipelines whose stages cannot work together, found from the parameters
# alone (issue 36 item 4): validate reports each at its attribute.
stage "dataset" "d" {
  source = "synthetic"
  name   = "disease"
}

stage "normalize" "d" {
  graph = stage.dataset.d
}

stage "precompute" "features" {
  graph = stage.normalize.d
}

stage "sample" "d32" {
  dim = 32
}

stage "embed" "d16" {
  dim      = 16
  features = stage.precompute.features
}

# HyLa without samples.
stage "train" "no_samples" {
  features = stage.precompute.features
}

# Samples of d0 = 32, an initial embedding of d0 = 16.
stage "train" "dims" {
  features  = stage.precompute.features
  samples   = stage.sample.d32
  embedding = stage.embed.d16
}

# Node level on a feature-level precompute.
stage "train" "level" {
  features = stage.precompute.features
  samples  = stage.sample.d32
  level    = "nodes"
}
