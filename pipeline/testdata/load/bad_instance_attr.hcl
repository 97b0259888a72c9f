stage "source" "cora" {
  name = "cora"
}

stage "train" "cora" {
  for_each = toset(["0", "1"])
  data     = stage.source.cora
}

stage "collect" "a" {
  runs = [stage.train.cora.model]
}

stage "collect" "b" {
  runs = [stage.source.cora["0"]]
}

stage "collect" "c" {
  runs = [stage.train.cora["0"].model.extra]
}
