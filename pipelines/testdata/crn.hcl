# Common random numbers (issue 21): the blocks below differ in one knob
# each; pipelines/crn_test.go checks which draws they share.

stage "dataset" "tree" {
  source = "synthetic"
  name   = "disease"
  nodes  = 200
  seed   = 7
}

stage "split" "tree" {
  graph = stage.dataset.tree
  rule  = "hgcn"
}

stage "normalize" "tree" {
  graph    = stage.dataset.tree
  features = "standardize"
}

stage "precompute" "tree" {
  graph = stage.normalize.tree
  split = stage.split.tree
  k     = 1
}

# Same seed, scale 0.1 and 0.2: the same Ω and B, Λ exactly twice as large.
stage "sample" "s" {
  for_each = { s1 = 0.1, s2 = 0.2 }
  kind     = "hyla"
  dim      = 4
  features = 32
  scale    = each.value
  seed     = 3
}

# Z is not trained (lr_embedding = 0), so the model's Z is the initial Z:
# the same for both classifier learning rates (and epochs), another one
# for seed 4.
stage "train" "t" {
  for_each = {
    lr1   = { lr = 0.1, epochs = 3, seed = 3 }
    lr2   = { lr = 0.5, epochs = 5, seed = 3 }
    seed4 = { lr = 0.1, epochs = 3, seed = 4 }
  }
  features      = stage.precompute.tree
  samples       = stage.sample.s["s1"]
  model         = "hyla"
  lr_embedding  = 0
  lr_classifier = each.value.lr
  epochs        = each.value.epochs
  seed          = each.value.seed
}
