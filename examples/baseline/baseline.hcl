# Your own model beside HyLa: a scikit-learn logistic regression on the
# precomputed features S^K X of Cora (logreg.py, run as a command stage)
# in the same table as HyLa-SGC.
#
#   hylaflow run --allow-commands examples/baseline/baseline.hcl
#
# Without --allow-commands (or HYLAFLOW_ALLOW_COMMANDS=1) run refuses the
# pipeline and names the program it would start; `hylaflow plan` lists it
# and why it would run. Editing logreg.py (even a comment) reruns the
# command stage and the table, nothing else. docs/commands.md explains
# the stage.

pipeline "baseline" {
  description = "HyLa-SGC and a scikit-learn logistic regression on Cora"
}

variable "seeds" {
  type        = list(number)
  default     = [0, 1, 2]
  description = "HyLa's seeds (one random-feature draw and one training run each)"
}

variable "epochs" {
  type        = number
  default     = 100
  description = "HyLa's training epochs"
}

variable "data_root" {
  type    = string
  default = "" # empty: $HYLAFLOW_DATA, else ../shared/datasets
}

stage "dataset" "cora" {
  source = "planetoid"
  name   = "cora"
  root   = var.data_root
}

stage "normalize" "cora" {
  graph = stage.dataset.cora
}

stage "precompute" "cora" {
  graph = stage.normalize.cora
  k     = 2
}

stage "sample" "cora" {
  for_each = toset(var.seeds)
  kind     = "hyla"
  dim      = 16
  features = 100
  scale    = 0.01
  seed     = each.value
}

stage "train" "cora" {
  for_each      = toset(var.seeds)
  features      = stage.precompute.cora
  samples       = stage.sample.cora[each.key]
  lr_embedding  = 0.05
  lr_classifier = 0.01
  epochs        = var.epochs
  seed          = each.value
}

stage "command" "logreg" {
  # The Debian interpreter, whose numpy and scikit-learn come from apt
  # (python3-sklearn); {dir} is this file's directory. version_argv puts
  # the installed versions into the key, read from the package metadata
  # (importing scikit-learn would take seconds at every plan).
  argv         = ["/usr/bin/python3", "{dir}/logreg.py", "{inputs.features}", "{outputs.metrics}"]
  code         = ["logreg.py"]
  inputs       = { features = stage.precompute.cora }
  version_argv = ["/usr/bin/python3", "-c", "from importlib.metadata import version as v; print(v('numpy'), v('scikit-learn'))"]

  output "metrics" {
    path = "metrics.json"
    kind = "metrics"
  }
}

stage "evaluate" "cora" {
  runs   = [stage.train.cora, stage.command.logreg.metrics]
  models = ["hyla-sgc", "sgc-sklearn"]
  title  = "HyLa-SGC and a scikit-learn baseline on Cora"
}

publish "../../results/baseline" {
  from = [stage.evaluate.cora]
}
