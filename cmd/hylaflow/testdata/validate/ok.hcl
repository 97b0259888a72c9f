pipeline "demo" {
  description = "two seeds"
}

variable "seeds" {
  default = [0, 1]
}

stage "source" "cora" {
  name = "cora"
}

stage "train" "cora" {
  for_each = var.seeds
  data     = stage.source.cora
  seed     = each.value
}

stage "collect" "all" {
  runs = stage.train.cora
}
