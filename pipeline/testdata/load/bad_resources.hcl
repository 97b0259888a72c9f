pipeline "res" {
  resources {
    cpus = 0
    mem  = "lots"
  }
}

stage "source" "cora" {
  name = "cora"
  resources {
    cpu  = 2
    time = "forever"
    gpus = -1
  }
}

stage "source" "b" {
  name = "b"
  resources {
    cpus = 1.5
  }
  resources {
    cpus = 2
  }
}

# A variable whose value is in error stands for an unknown value: its own
# diagnostic is enough, and the resources block must not trip over it.
variable "mem" {
  type    = number
  default = "lots"
}

stage "source" "c" {
  name = "c"
  resources {
    mem  = var.mem
    time = var.mem
    cpus = var.mem
  }
}
