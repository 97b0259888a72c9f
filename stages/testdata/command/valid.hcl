# A valid command stage: its outputs are references of their kinds, its
# inputs any stage outputs.
stage "value" "v" {
  values = [1, 2]
}

stage "command" "c" {
  argv   = ["/usr/bin/python3", "{dir}/train.py", "{inputs.v}", "{outputs.metrics}"]
  code   = ["train.py"]
  inputs = { v = stage.value.v }

  output "metrics" {
    path = "metrics.json"
    kind = "metrics"
  }
  output "emb" {
    path = "emb.npy"
    kind = "array"
  }
}

stage "evaluate" "t" {
  runs = [stage.command.c.metrics]
}

stage "evaluate" "wrong" {
  runs = [stage.command.c.emb]
}
