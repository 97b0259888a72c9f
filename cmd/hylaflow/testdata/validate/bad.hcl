stage "source" "cora" {
  nme = "cora"
}

stage "train" "cora" {
  data = stage.source.citeseer
}
