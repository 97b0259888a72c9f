# An empty dimension gives no instances, but the other dimensions are
# still checked.
stage "source" "empty" {
  matrix = {
    a = []
    b = "x"
  }
  name = "x"
}

variable "none" {
  type    = list(number)
  default = null
}

stage "source" "null" {
  matrix = {
    seed = var.none
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
