# Three seeded random vectors, each scaled, then summed: 7 stage instances
# for the Slurm executor tests (3 ready at the start, fan-out, fan-in).
pipeline "slurm-fanout" {
  description = "slurm executor test"

  resources {
    cpus = 1
    mem  = "200M"
    time = "5m"
  }
}

variable "seeds" {
  default = [1, 2, 3]
}

stage "random" "x" {
  for_each = { for s in var.seeds : "s${s}" => s }
  n        = 50
  seed     = each.value
}

stage "scale" "y" {
  for_each = { for s in var.seeds : "s${s}" => s }
  in       = stage.random.x[each.key]
  factor   = 2
  offset   = each.value
}

stage "sum" "total" {
  in = values(stage.scale.y)
}
