stage "source" "cora" {
  name = "cora"
}

stage "train" "cora" {
  data = stage.source.cora
  seed = stage.source.cora
}

stage "source" "fan" {
  for_each = stage.source.cora
  name     = "x"
}

locals {
  upstream = stage.source.cora
}

stage "pass" "p" {
  in = local.upstream
}
