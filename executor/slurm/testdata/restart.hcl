# For the Slurm executor's restart test against a real cluster: one quick
# source, three sleeps that pass its vector on (a short one that finishes
# while the driver is dead, a long one the restarted driver re-attaches
# to, and one the test scancels, which must be submitted again), and a sum.
pipeline "slurm-restart" {
  description = "slurm executor restart test"

  resources {
    cpus = 1
    mem  = "100M"
    time = "5m"
  }
}

variable "long_ms" {
  default = 15000
}

stage "random" "x" {
  n    = 20
  seed = 5
}

stage "sleep" "short" {
  in = stage.random.x
  ms = 300
}

stage "sleep" "long" {
  in = stage.random.x
  ms = var.long_ms
}

stage "sleep" "lost" {
  in = stage.random.x
  ms = var.long_ms + 1
}

stage "sum" "total" {
  in = [stage.sleep.short, stage.sleep.long, stage.sleep.lost]
}
