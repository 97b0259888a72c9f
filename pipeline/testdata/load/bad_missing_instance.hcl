variable "seeds" {
  default = [0, 1, 2]
}

stage "source" "cora" {
  for_each = toset(["cora", "pubmed"])
  name     = each.key
}

stage "train" "cora" {
  for_each = var.seeds
  data     = stage.source.cora["cora"]
  seed     = each.value
}

stage "collect" "best" {
  runs = [stage.train.cora["7"], stage.train.cora["1"]]
}

stage "train" "pub" {
  data = stage.source.cora["pubmd"]
}

stage "train" "dyn" {
  for_each = toset(["x"])
  data     = stage.source.cora[each.key]
}
