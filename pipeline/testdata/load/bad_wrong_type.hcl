stage "source" "a" {
  name    = "a"
  n       = 2.5
  rate    = "fast"
  flag    = "maybe"
  tags    = 3
  sizes   = [1, 2.5]
  weights = ["x"]
}

stage "source" "b" {
  name = ["b"]
  n    = "12"
  rate = "1e-3"
  flag = "true"
  n    = 1
}
