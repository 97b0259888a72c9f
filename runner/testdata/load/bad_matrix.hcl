stage "source" "empty" {
  matrix = {
    a = []
  }
  name = "x"
}

stage "source" "list" {
  matrix = [1, 2]
  name   = "x"
}

stage "source" "scalar" {
  matrix = {
    a = "x"
  }
  name = "x"
}

stage "source" "dup" {
  matrix = {
    seed = [0, 0]
  }
  name = "x"
}

stage "source" "none" {
  matrix = {}
  name   = "x"
}
