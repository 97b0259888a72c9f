# A sweep: every for_each form, a matrix, locals with functions, defaults,
# resources, references by key and by output, and fan-in to a Many slot.
pipeline "sweep" {
  description = format("%d seeds on %s", length(var.seeds), join(" and ", local.datasets))

  resources {
    cpus = 2
    mem  = "4G"
    time = "1h"
  }

  defaults "train" {
    epochs = 50
    lr     = 0.05
  }
}

variable "seeds" {
  type        = list(number)
  default     = [0, 1, 2]
  description = "training seeds"
}

variable "root" {
  type    = string
  default = "../data"
}

locals {
  datasets = ["cora", "citeseer"]
  sizes    = { cora = 2708, citeseer = 3327 }
  upper    = [for d in local.datasets : upper(d)]
  total    = max(values(local.sizes)...)
  note     = trimspace(file("data/note.txt"))
  home     = env("HYLAFLOW_TEST_SURELY_UNSET", "fallback")
}

stage "source" "data" {
  for_each = local.sizes
  name     = each.key
  n        = each.value
  root     = var.root
  tags     = concat(local.upper, [local.note, local.home])
  sizes    = range(3)
  weights  = [0.5, 1]
  mode     = lookup({ cora = "weighted" }, each.key, "plain")
}

stage "source" "empty_root" {
  name = "x"
  root = ""
  n    = local.total
}

stage "train" "grid" {
  matrix = {
    dataset = local.datasets
    seed    = var.seeds
  }
  data = stage.source.data[each.value.dataset]
  seed = each.value.seed

  resources {
    cpus = 1
    gpus = 1
  }
}

stage "train" "single" {
  for_each = toset(["a", "b"])
  data     = stage.source.data["cora"].graph
  epochs   = 7
}

stage "collect" "cora" {
  runs     = [for k, v in stage.train.grid : v.metrics if substr(k, 0, 12) == "dataset=cora"]
  baseline = stage.train.single["a"].metrics
  title    = "cora"
}

stage "collect" "all" {
  runs  = stage.train.grid
  title = "all"

  resources {
    mem  = 512
    time = 30
  }
}

stage "collect" "mixed" {
  runs = concat([stage.source.empty_root.meta], values(stage.train.single))
}
