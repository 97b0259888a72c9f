variable "seeds" {
  type    = list(number)
  default = [0]
}

variable "name" {
  type    = string
  default = "cora"
}

variable "epochs" {
  default = 10
}

variable "scale" {
  type = number
}

stage "source" "s" {
  name = var.name
  rate = var.scale
}

stage "train" "t" {
  for_each = var.seeds
  data     = stage.source.s
  seed     = each.value
  epochs   = var.epochs
}
