stage "source" "cora" {
  name = "cora"
  nodes = 10
}

stage "train" "cora" {
  data   = stage.source.cora
  epocs  = 200
  lr     = 0.1
  zzzzzz = 1
}
