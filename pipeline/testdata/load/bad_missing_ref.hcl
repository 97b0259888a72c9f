stage "source" "cora" {
  name = "cora"
}

stage "train" "a" {
  data = stage.source.citeseer
}

stage "train" "b" {
  data = stage.sorce.cora
}

stage "train" "c" {
  data = stage.source
}
