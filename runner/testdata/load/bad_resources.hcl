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
