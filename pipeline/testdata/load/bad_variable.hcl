variable "n" {
  type    = number
  default = "many"
}

variable "required" {
  type = list(string)
}

variable "bad type" {
  default = 1
}

variable "ref" {
  default = var.n
}

variable "weird" {
  type = lisst(string)
}

stage "source" "cora" {
  name = "cora"
  n    = var.n
}
