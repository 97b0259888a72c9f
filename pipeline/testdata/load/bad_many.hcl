stage "source" "a" {
  name = "a"
}

stage "source" "b" {
  name = "b"
}

stage "source" "each" {
  for_each = toset(["x", "y"])
  name     = each.key
}

stage "train" "two" {
  data = [stage.source.a, stage.source.b]
}

stage "train" "all" {
  data = stage.source.each
}

stage "train" "none" {
  data = []
}

stage "collect" "empty" {
  runs = []
}

stage "train" "text" {
  data = "stage.source.a"
}
