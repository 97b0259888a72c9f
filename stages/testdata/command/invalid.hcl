# Every declaration error of a command stage that validate reports
# (golden: invalid.golden; go test ./stages -run TestCommandDiagnostics -update-command).
variable "seeds" {
  default = [0, 1]
}

stage "value" "v" {
  values = [1]
}

stage "command" "kinds" {
  argv   = ["/usr/bin/python3", "train.py", "{outputs.metrix}"]
  inputs = { v = stage.value.v, "bad-name" = stage.value.v }
  env    = ["PATH", "OK_VAR", "9X"]

  output "metrics" {
    path = "../metrics.json"
    kind = "metric"
  }
  output "arr" {
    path = "a.npz"
    kind = "array"
  }
  output "arr" {
    path = "b.npy"
    kind = "array"
  }
}

stage "command" "each" {
  for_each = toset(var.seeds)
  argv     = []
  outputs  = "metrics.json"
  inputs   = stage.value.v

  output "m" {
    path  = "m-${each.key}.json"
    kind  = "metrics"
    shape = "x"
  }
}

stage "command" "none" {
  argv = ["/bin/true"]
}

stage "command" "noname" {
  argv = ["/bin/true"]

  output {
    kind = "file"
  }
}

stage "command" "typo" {
  argv   = ["/usr/bin/python3", "t.py", "{inputs.featurs}", "{inputs.labels}"]
  inputs = { features = stage.value.v }

  output "m" {
    path = "m.json"
    kind = "metrics"
  }
}
