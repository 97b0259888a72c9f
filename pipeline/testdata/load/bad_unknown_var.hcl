variable "seed" {
  default = 1
}

locals {
  name = "cora"
}

stage "source" "cora" {
  name = local.nmae
  n    = var.sede
  rate = vars.rate
  tags = [each.key]
}

stage "train" "cora" {
  data = stage.source.cora
  seed = each.value
  lr   = var
}
