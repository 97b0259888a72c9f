stage "source" "cora" {
  name = "cora"
}

stage "train" "cora" {
  data = stage.source.cora.meta
}

stage "collect" "all" {
  runs     = [stage.train.cora]
  baseline = stage.train.cora.model
}
