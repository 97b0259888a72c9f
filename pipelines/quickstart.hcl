# The quickstart: HyLa-SGC, RFF-SGC and SGC on the built-in synthetic
# disease-propagation tree (no download, runs offline in about a second).
#
#   hylaflow run pipelines/quickstart.hcl            # trains, evaluates, prints the table
#   hylaflow run pipelines/quickstart.hcl            # again: everything comes from the cache
#   hylaflow run pipelines/quickstart.hcl -var seeds='[0,1,2,3]'   # only the new seed trains
#
# The settings were chosen on validation accuracy only, with
# pipelines/quickstart-search.hcl (docs/quickstart.md has its numbers): the
# features are standardised (the susceptibility columns are not centred, and
# without it no model leaves the majority class in 100 epochs), K = 1, HyLa
# keeps the official code's Disease values (D 500, s 0.1, lr_e 0.1) with
# lr_c 0.01, RFF takes s 0.5, lr_e 1, lr_c 0.1 and SGC lr_c 0.1.

pipeline "quickstart" {
  description = "HyLa-SGC vs RFF-SGC vs SGC on a synthetic disease-propagation tree"

  defaults "train" {
    epochs        = var.epochs
    lr_classifier = 0.01
  }
}

variable "seeds" {
  type        = list(number)
  default     = [0, 1, 2]
  description = "training seeds (one sample + train per seed and model)"
}

variable "epochs" {
  type        = number
  default     = 100
  description = "training epochs of every model"
}

variable "nodes" {
  type        = number
  default     = 1044
  description = "size of the synthetic tree (HGCN's disease_nc has 1044 nodes)"
}

variable "docs" {
  type        = bool
  default     = false
  description = "also publish the table as the result page docs/results/quickstart.md (with its table.json), as docs/quickstart.md links it (with the other variables at their defaults)"
}

stage "dataset" "disease" {
  source = "synthetic"
  name   = "disease"
  nodes  = var.nodes
  seed   = 7
}

stage "split" "disease" {
  graph = stage.dataset.disease
  rule  = "hgcn"
  seed  = 0
}

stage "normalize" "disease" {
  graph    = stage.dataset.disease
  features = "standardize"
}

stage "precompute" "disease" {
  graph = stage.normalize.disease
  split = stage.split.disease
  k     = 1
}

stage "sample" "hyla" {
  for_each = toset(var.seeds)
  kind     = "hyla"
  dim      = 16
  features = 500
  scale    = 0.1
  seed     = each.value
}

stage "sample" "rff" {
  for_each = toset(var.seeds)
  kind     = "rff"
  dim      = 16
  features = 500
  scale    = 0.5
  seed     = each.value
}

stage "train" "hyla" {
  for_each     = toset(var.seeds)
  features     = stage.precompute.disease
  samples      = stage.sample.hyla[each.key]
  model        = "hyla"
  lr_embedding = 0.1
  seed         = each.value
}

stage "train" "rff" {
  for_each      = toset(var.seeds)
  features      = stage.precompute.disease
  samples       = stage.sample.rff[each.key]
  model         = "rff"
  lr_embedding  = 1
  lr_classifier = 0.1
  seed          = each.value
}

stage "train" "sgc" {
  for_each      = toset(var.seeds)
  features      = stage.precompute.disease
  model         = "sgc"
  lr_classifier = 0.1
  seed          = each.value
}

stage "evaluate" "quickstart" {
  runs       = [stage.train.hyla, stage.train.rff, stage.train.sgc]
  compare_to = "none"
  models     = ["hyla-sgc", "rff-sgc", "sgc"]
  title      = "Quickstart: synthetic disease tree"
}

# The table (table.md, table.csv, table.json, chart.png) in results/quickstart/
# beside the pipelines directory, after every successful run, cached or not.
publish "../results/quickstart" {
  from = [stage.evaluate.quickstart]
}

# The result page docs/quickstart.md links, with the run's provenance:
# hylaflow run pipelines/quickstart.hcl -var docs=true
publish "../docs/results" {
  enabled = var.docs

  file "quickstart.md" {
    from   = stage.evaluate.quickstart
    member = "table.md"
  }
  file "quickstart.json" {
    from   = stage.evaluate.quickstart
    member = "table.json"
  }
}
