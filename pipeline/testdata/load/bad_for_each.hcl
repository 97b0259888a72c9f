stage "source" "number" {
  for_each = 3
  name     = "x"
}

stage "source" "nested" {
  for_each = [[1], [2]]
  name     = "x"
}

stage "source" "dups" {
  for_each = [1, 2, 1]
  name     = "x"
}

stage "source" "both" {
  for_each = [1]
  matrix = {
    a = [1]
  }
  name = "x"
}

stage "source" "null" {
  for_each = null
  name     = "x"
}

stage "train" "uses" {
  data = stage.source.number["1"]
}
