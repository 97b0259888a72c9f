stage "source" "cora" {
  name = "cora"
  n = = 3
}

stage "train" "cora" {
  data = stage.source.cora
