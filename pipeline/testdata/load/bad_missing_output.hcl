stage "source" "cora" {
  name = "cora"
}

stage "train" "cora" {
  data = stage.source.cora.graf
}

stage "collect" "all" {
  runs = [stage.train.cora.metrcs, stage.train.cora.loss]
}
