variable "x" {
  default = 1
}

variable "x" {
  default = 2
}

locals {
  a = 1
}

locals {
  a = 2
}

pipeline "one" {
}

pipeline "two" {
}

stage "source" "cora" {
  name = "cora"
}

stage "source" "cora" {
  name = "cora2"
}
