locals {
  a = local.b
  b = local.c
  c = local.a
  d = each.key
  e = 1 + "x"
}

stage "source" "x" {
  name = "x"
  n    = local.a
}
