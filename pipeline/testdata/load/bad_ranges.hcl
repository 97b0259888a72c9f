# Values outside the ranges the stage types declare, in a stage and in a
# pipeline's defaults block; the same bad value in every instance of a
# for_each stage is reported once.
pipeline "ranges" {
  defaults "train" {
    lr = 0
  }
}

stage "source" "a" {
  name    = "a"
  sizes   = [3, -1]
  weights = [0.5, 1.5]
}

stage "train" "t" {
  for_each = toset(["1", "2"])
  data     = stage.source.a.graph
  epochs   = 0
}

stage "train" "u" {
  data = stage.source.a.graph
  lr   = 10.5
}
