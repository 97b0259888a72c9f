# source needs name; train needs its data input.
stage "source" "cora" {
  n = 5
}

stage "train" "cora" {
  epochs = 3
}

stage "collect" "all" {
  title = "no runs"
}
