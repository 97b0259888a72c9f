stage "source" "cora" {
  name = "cora"
}

stage "trian" "cora" {
  data = stage.source.cora
}

stage "collect" "all" {
  runs = stage.trian.cora
}
