# A variable or local in error evaluates to an unknown value. Every place
# that reads a value must report only the original error, never trip over
# the unknown one.
variable "bad" {
  type    = number
  default = "lots"
}

variable "bads" {
  type    = list(string)
  default = "x"
}

locals {
  derived = var.bad + 1
}

pipeline "unknown" {
  description = var.bad
  resources {
    cpus = var.bad
    mem  = local.derived
    time = var.bad
  }
  defaults "source" {
    n    = var.bad
    name = var.bads
    tags = var.bads
  }
}

stage "source" "a" {
  name = var.bad
  n    = local.derived
  rate = var.bad
  tags = var.bads
  mode = var.bad
  root = var.bad
}

stage "source" "each" {
  for_each = var.bads
  name     = each.value
}

stage "source" "each_map" {
  for_each = { a = var.bad, b = 2 }
  name     = "x"
}

stage "source" "m" {
  matrix = { a = var.bads, b = [var.bad] }
  name   = "m"
}

stage "source" "m2" {
  matrix = var.bad
  name   = "m2"
}

stage "pass" "p" {
  in = stage.source.each[var.bad]
}

stage "source" "z" {
  name = "z"
  n    = "ten"
}
