# Table 2 of the paper: text classification on R8, R52, Ohsumed and MR.
#
#   hylaflow run pipelines/table2.hcl                                  # 10 seeds, 200 epochs
#   hylaflow run pipelines/table2.hcl -var seeds='[0,1]' -var epochs=20  # the CI size
#   hylaflow run pipelines/table2.hcl -var datasets='["r8"]'            # one corpus
#   hylaflow run pipelines/table2.hcl -var models='["hyla-sgc","textgcn"]'  # two rows
#
# datasets (r8, r52, ohsumed, mr), models (hyla-sgc, rff-sgc, sgc, hyla-lr,
# rff-lr, lr, textgcn) and settings (transductive, inductive) scope a run:
# the stages no listed corpus, row and setting needs are left out, the rest
# keep their cache keys.
#
# Transductive (TextGCN's corpus graph of documents and words: doc–word
# TF-IDF and word–word positive PMI edges, S = D^-1/2 (A+I) D^-1/2; the
# features X are the documents' rows of S^2, each column min-max scaled on
# the training documents, as the official code and TextSGC do):
#   HyLa-SGC, RFF-SGC  one embedding point per node, logits = X φ(Z) W + b
#   TextSGC            logits = X W + b (Wu et al. 2019), trained as they do:
#                      L-BFGS, 3 steps, L2 weight decay
# Inductive (documents only; their TF-IDF rows X are the features):
#   HyLa-LR, RFF-LR    one embedding point per word, logits = X φ(Z) W + b
#   LR                 logits = X W + b
#
# Baselines (baselines = "on", the default): TextGCN (Yao et al. 2019), the
# textgcn stage type with their code's settings (hidden 200, dropout 0.5,
# Adam lr 0.02, at most 200 epochs, stopping when the validation loss
# exceeds the mean of the previous 10 epochs'), test accuracy at the stop.
#   transductive  on the same normalised corpus graph as HyLa-SGC and TextSGC
#   inductive     on the corpus graph of the training documents alone; each
#                 test document joins it one way through its TF-IDF edges to
#                 the training vocabulary (docs/text.md)
#
# Hyper-parameters (d0, D, s, lr1, lr2) are the paper's appendix table
# "Hyper-parameters for text classification", K = 2, 200 epochs, no early
# stopping; the validation set is 10 % of the training documents (seeded by
# split_seed, once for all training seeds), as TextGCN's build_graph.py.
# RFF has no published values: its own are chosen on validation accuracy,
# as are LR's Adam rate and TextSGC's weight decay (docs/text.md). MR is
# binary: one logit, sigmoid + binary cross-entropy, as the official code.

pipeline "table2" {
  description = "Table 2: transductive and inductive text classification (R8, R52, Ohsumed, MR)"

  defaults "train" {
    epochs = var.epochs
  }
}

variable "docs" {
  type        = bool
  default     = false
  description = "also publish every table as a result page under docs/results/table2, as docs/text.md links them (with the other variables at their defaults)"
}

variable "seeds" {
  type        = list(number)
  default     = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
  description = "training seeds (random features, initialisation)"

  validation {
    condition     = length(var.seeds) > 0 && length([for s in var.seeds : s if s < 0 || floor(s) != s]) == 0
    error_message = "seeds must be a non-empty list of whole numbers ≥ 0, as in [0, 1, 2]."
  }
}

variable "epochs" {
  type        = number
  default     = 200
  description = "training epochs of every model (the paper: 200; TextSGC: 3 L-BFGS steps; validated R52 HyLa-SGC: twice this)"

  validation {
    condition     = var.epochs >= 1 && floor(var.epochs) == var.epochs
    error_message = "epochs must be a whole number ≥ 1."
  }
}

variable "datasets" {
  type        = list(string)
  default     = ["r8", "r52", "ohsumed", "mr"]
  description = "TextGCN corpora to run"

  validation {
    condition     = length(var.datasets) > 0 && length(setsubtract(var.datasets, ["r8", "r52", "ohsumed", "mr"])) == 0
    error_message = "datasets must be a non-empty list drawn from r8, r52, ohsumed and mr."
  }
}

variable "models" {
  type        = list(string)
  default     = ["hyla-sgc", "rff-sgc", "sgc", "hyla-lr", "rff-lr", "lr", "textgcn"]
  description = "models (rows) to run: hyla-sgc, rff-sgc, sgc (transductive), hyla-lr, rff-lr, lr (inductive) and textgcn (both; baselines = \"off\" leaves it out)"

  validation {
    condition     = length(var.models) > 0 && length(setsubtract(var.models, ["hyla-sgc", "rff-sgc", "sgc", "hyla-lr", "rff-lr", "lr", "textgcn"])) == 0
    error_message = "models must be a non-empty list drawn from hyla-sgc, rff-sgc, sgc, hyla-lr, rff-lr, lr and textgcn."
  }
}

variable "settings" {
  type        = list(string)
  default     = ["transductive", "inductive"]
  description = "which half of the table to run"

  validation {
    condition     = length(var.settings) > 0 && length(setsubtract(var.settings, ["transductive", "inductive"])) == 0
    error_message = "settings must be a non-empty list drawn from transductive and inductive."
  }
}

variable "hyperparameters" {
  type        = string
  default     = "appendix"
  description = "HyLa's values: appendix (the paper's table), json (the official repository's JSON files) or validated (appendix, except R52 transductive's lr_e and epochs, chosen on validation)"

  validation {
    condition     = contains(["appendix", "json", "validated"], var.hyperparameters)
    error_message = "hyperparameters must be one of appendix, json or validated."
  }
}

variable "split_seed" {
  type        = number
  default     = 0
  description = "seed of the validation draw from the training documents"

  validation {
    condition     = var.split_seed >= 0 && floor(var.split_seed) == var.split_seed
    error_message = "split_seed must be a whole number ≥ 0."
  }
}

variable "baselines" {
  type        = string
  default     = "on"
  description = "TextGCN rows: on or off"

  validation {
    condition     = contains(["on", "off"], var.baselines)
    error_message = "baselines must be on or off."
  }
}

variable "data_root" {
  type        = string
  default     = ""
  description = "folder holding textgcn/ (empty: $HYLAFLOW_DATA, else ../shared/datasets)"
}

locals {
  # The paper's appendix table; lr_e = lr1 (RSGD on Z), lr_c = lr2 (Adam on W).
  appendix_transductive = {
    r8      = { dim = 50, features = 500, scale = 0.5, lr_e = 0.01, lr_c = 0.0001 }
    r52     = { dim = 50, features = 500, scale = 0.5, lr_e = 0.1, lr_c = 0.0001 }
    ohsumed = { dim = 50, features = 500, scale = 0.5, lr_e = 0.01, lr_c = 0.0001 }
    mr      = { dim = 30, features = 500, scale = 0.5, lr_e = 0.1, lr_c = 0.0001 }
  }
  appendix_inductive = {
    r8      = { dim = 50, features = 500, scale = 0.5, lr_e = 0.001, lr_c = 0.0001 }
    r52     = { dim = 50, features = 1000, scale = 0.5, lr_e = 0.008, lr_c = 0.0001 }
    ohsumed = { dim = 50, features = 1000, scale = 0.1, lr_e = 0.001, lr_c = 0.0001 }
    mr      = { dim = 50, features = 500, scale = 0.5, lr_e = 0.01, lr_c = 0.0001 }
  }
  # The official repository's text/hyper_parameters_{transductive,inductive}.json
  # (inductive: the "poincare" entries); they differ from the appendix.
  json_transductive = {
    r8      = { dim = 50, features = 100, scale = 0.1, lr_e = 0.01, lr_c = 0.001 }
    r52     = { dim = 50, features = 500, scale = 0.1, lr_e = 0.1, lr_c = 0.0001 }
    ohsumed = { dim = 50, features = 500, scale = 0.1, lr_e = 0.01, lr_c = 0.0001 }
    mr      = { dim = 30, features = 100, scale = 0.1, lr_e = 0.1, lr_c = 0.001 }
  }
  json_inductive = {
    r8      = { dim = 50, features = 100, scale = 0.01, lr_e = 0.001, lr_c = 0.001 }
    r52     = { dim = 50, features = 100, scale = 0.1, lr_e = 0.005, lr_c = 0.001 }
    ohsumed = { dim = 50, features = 100, scale = 0.1, lr_e = 0.001, lr_c = 0.0001 }
    mr      = { dim = 50, features = 100, scale = 0.01, lr_e = 0.005, lr_c = 0.001 }
  }
  # validated: the appendix values, except R52 transductive, whose lr_e is
  # chosen on validation accuracy (seeds 0–2, last epoch): the appendix's
  # lr_e = 0.1 diverges on two of the three seeds (the loss climbs to
  # 1e25; validation 18.1, 92.6, 11.8 %), the official JSON's s = 0.1 on
  # one (92.3, 93.7, 42.9); with s = 0.5, lr_e = 0.03 gives 91.5 (91.0, 91.9, 91.6) and
  # lr_e = 0.01 88.9 (87.0, 90.0, 89.7; still rising at epoch 200).
  # At lr_e = 0.03 the runs are still learning at epoch 200, so the epoch
  # count was chosen on validation too (seeds 0–4, the validation curve of
  # 400-epoch runs): 91.5 at epoch 200, 92.6 at 300, 92.8 at 400
  # (docs/text.md); R52 trains epoch_factor × var.epochs = 400 epochs.
  validated_transductive = merge(local.appendix_transductive, { r52 = merge(local.appendix_transductive.r52, { lr_e = 0.03, epoch_factor = 2 }) })
  transductive = {
    appendix  = local.appendix_transductive
    json      = local.json_transductive
    validated = local.validated_transductive
  }[var.hyperparameters]
  inductive = var.hyperparameters == "json" ? local.json_inductive : local.appendix_inductive
  # Not in the paper. RFF: chosen on R8's validation accuracy among a few
  # candidates (docs/text.md; HyLa's values leave RFF's features constant
  # and it stays at the majority class). LR: Adam's rate per corpus by the
  # last epoch's validation accuracy among 0.2, 0.05, 0.01, 0.002 (seed 0;
  # R8 93.98 % at 0.05, MR 74.37 % at 0.2, Ohsumed 56.42 % at 0.002, R52
  # 91.27 % at 0.05).
  # RFF-LR on Ohsumed: chosen on its own validation accuracy with Adam on
  # Z, the official text code's optimiser for its Euclidean embedding
  # (manifold "euclidean"): the R8 values with SGD validate at 54.9
  # (seeds 0–1; s 0.5: 56.4, s 2: 52.2); Adam over s ∈ {0.1, 0.25, 0.5, 1,
  # 2} × lr_e ∈ {1e-4, 3e-4, 1e-3, 0.01, 0.1} (seeds 0–1) peaks at s 0.5,
  # lr_e 1e-3 (62.2), and over seeds 0–4 the best three give 61.0 (s 0.5),
  # 60.6 (s 0.25) and 60.5 (s 1) (docs/text.md).
  rff_transductive = { scale = 5.0, lr_e = 1.0, lr_c = 0.001 }
  rff_inductive_r8 = { scale = 1.0, lr_e = 1.0, lr_c = 0.001, optimizer = "auto" }
  rff_inductive = {
    r8      = local.rff_inductive_r8
    r52     = local.rff_inductive_r8
    ohsumed = { scale = 0.5, lr_e = 0.001, lr_c = 0.001, optimizer = "adam" }
    mr      = local.rff_inductive_r8
  }
  # TextSGC as Wu et al. train it (Tiiiger/SGC downstream/TextSGC/train.py):
  # L-BFGS, 3 steps of up to 20 iterations at rate 1, ½·wd·‖W‖² on W. The
  # weight decay is chosen per corpus on the last step's validation accuracy
  # (seed 0) among 0, 1e-5, 1e-4, 1e-3, 1e-2 and Wu's own tuned value
  # (tuned_result/NAME.SGC.tuning.txt): R8 95.62 % at 1e-3 (Wu's 5.55e-4:
  # 95.44), R52 94.95 % at 1e-4 (Wu's 3.39e-6: 94.64), Ohsumed 67.16 % at
  # Wu's 3.91e-3 (1e-3: 66.57), MR 78.59 % at Wu's 3.13e-3 (1e-2: 77.75).
  textsgc    = { lr_c = 1, epochs = 3 }
  textsgc_wd = { r8 = 0.001, r52 = 0.0001, ohsumed = 0.003911359029974794, mr = 0.0031331167329072614 }
  lr_lr_c    = { r8 = 0.05, r52 = 0.05, ohsumed = 0.002, mr = 0.2 }

  # The runs of each model: one per dataset and seed, keyed "r8/0"; none
  # when var.models or var.settings leaves the model out.
  runs         = setproduct(var.datasets, var.seeds)
  cell         = { for p in local.runs : "${p[0]}/${p[1]}" => { dataset = p[0], seed = p[1] } }
  trans        = contains(var.settings, "transductive")
  ind          = contains(var.settings, "inductive")
  textgcn      = var.baselines == "on" && contains(var.models, "textgcn")
  trans_models = [for m in ["hyla-sgc", "rff-sgc", "sgc"] : m if local.trans && contains(var.models, m)]
  ind_models   = [for m in ["hyla-lr", "rff-lr", "lr"] : m if local.ind && contains(var.models, m)]
  trans_cells  = { for m in ["hyla-sgc", "rff-sgc", "sgc"] : m => { for k, v in local.cell : k => v if contains(local.trans_models, m) } }
  ind_cells    = { for m in ["hyla-lr", "rff-lr", "lr"] : m => { for k, v in local.cell : k => v if contains(local.ind_models, m) } }
  # The corpora each setting loads: for its models, or for TextGCN.
  trans_datasets = length(local.trans_models) > 0 || (local.trans && local.textgcn) ? var.datasets : []
  ind_datasets   = length(local.ind_models) > 0 ? var.datasets : []
  textgcn_trans  = { for k, v in local.cell : k => v if local.trans && local.textgcn }
  textgcn_ind    = { for k, v in local.cell : k => v if local.ind && local.textgcn }
}

# ---- data --------------------------------------------------------------

stage "dataset" "corpus" {
  for_each = toset(local.trans_datasets)
  source   = "textgcn"
  name     = each.value
  root     = var.data_root
  seed     = var.split_seed
}

stage "normalize" "corpus" {
  for_each = toset(local.trans_datasets)
  graph    = stage.dataset.corpus[each.key]
}

stage "precompute" "corpus" { # the documents' rows of S^K, min-max scaled (TextSGC)
  for_each = toset(length(local.trans_models) > 0 ? var.datasets : [])
  graph    = stage.normalize.corpus[each.key]
  k        = 2
  rows     = "labelled"
  scale    = "minmax"
}

stage "dataset" "docs" {
  for_each = toset(local.ind_datasets)
  source   = "textgcn"
  name     = each.value
  root     = var.data_root
  seed     = var.split_seed
  view     = "inductive"
}

stage "normalize" "docs" { # no edges: S = I, and K = 0 keeps X
  for_each = toset(local.ind_datasets)
  graph    = stage.dataset.docs[each.key]
}

stage "precompute" "docs" {
  for_each = toset(local.ind_datasets)
  graph    = stage.normalize.docs[each.key]
  k        = 0
}

# ---- transductive: HyLa-SGC, RFF-SGC, TextSGC ------------------------------

stage "sample" "hyla_trans" {
  for_each = local.trans_cells["hyla-sgc"]
  kind     = "hyla"
  dim      = local.transductive[each.value.dataset].dim
  features = local.transductive[each.value.dataset].features
  scale    = local.transductive[each.value.dataset].scale
  seed     = each.value.seed
}

stage "train" "hyla_sgc" {
  for_each      = local.trans_cells["hyla-sgc"]
  features      = stage.precompute.corpus[each.value.dataset]
  samples       = stage.sample.hyla_trans[each.key]
  model         = "hyla"
  lr_embedding  = local.transductive[each.value.dataset].lr_e
  lr_classifier = local.transductive[each.value.dataset].lr_c
  epochs        = var.epochs * lookup(local.transductive[each.value.dataset], "epoch_factor", 1)
  seed          = each.value.seed
}

stage "sample" "rff_trans" {
  for_each = local.trans_cells["rff-sgc"]
  kind     = "rff"
  dim      = local.transductive[each.value.dataset].dim
  features = local.transductive[each.value.dataset].features
  scale    = local.rff_transductive.scale
  seed     = each.value.seed
}

stage "train" "rff_sgc" {
  for_each      = local.trans_cells["rff-sgc"]
  features      = stage.precompute.corpus[each.value.dataset]
  samples       = stage.sample.rff_trans[each.key]
  model         = "rff"
  lr_embedding  = local.rff_transductive.lr_e
  lr_classifier = local.rff_transductive.lr_c
  seed          = each.value.seed
}

stage "train" "textsgc" {
  for_each      = local.trans_cells["sgc"]
  features      = stage.precompute.corpus[each.value.dataset]
  model         = "sgc"
  optimizer     = "lbfgs"
  lr_classifier = local.textsgc.lr_c
  epochs        = local.textsgc.epochs
  weight_decay  = local.textsgc_wd[each.value.dataset]
  label         = "sgc"
  seed          = each.value.seed
}

# ---- inductive: HyLa-LR, RFF-LR, LR ----------------------------------------

stage "sample" "hyla_ind" {
  for_each = local.ind_cells["hyla-lr"]
  kind     = "hyla"
  dim      = local.inductive[each.value.dataset].dim
  features = local.inductive[each.value.dataset].features
  scale    = local.inductive[each.value.dataset].scale
  seed     = each.value.seed
}

stage "train" "hyla_lr" {
  for_each      = local.ind_cells["hyla-lr"]
  features      = stage.precompute.docs[each.value.dataset]
  samples       = stage.sample.hyla_ind[each.key]
  model         = "hyla"
  lr_embedding  = local.inductive[each.value.dataset].lr_e
  lr_classifier = local.inductive[each.value.dataset].lr_c
  label         = "hyla-lr"
  seed          = each.value.seed
}

stage "sample" "rff_ind" {
  for_each = local.ind_cells["rff-lr"]
  kind     = "rff"
  dim      = local.inductive[each.value.dataset].dim
  features = local.inductive[each.value.dataset].features
  scale    = local.rff_inductive[each.value.dataset].scale
  seed     = each.value.seed
}

stage "train" "rff_lr" {
  for_each            = local.ind_cells["rff-lr"]
  features            = stage.precompute.docs[each.value.dataset]
  samples             = stage.sample.rff_ind[each.key]
  model               = "rff"
  optimizer_embedding = local.rff_inductive[each.value.dataset].optimizer
  lr_embedding        = local.rff_inductive[each.value.dataset].lr_e
  lr_classifier       = local.rff_inductive[each.value.dataset].lr_c
  label               = "rff-lr"
  seed                = each.value.seed
}

stage "train" "lr" {
  for_each      = local.ind_cells["lr"]
  features      = stage.precompute.docs[each.value.dataset]
  model         = "sgc"
  lr_classifier = local.lr_lr_c[each.value.dataset]
  label         = "lr"
  seed          = each.value.seed
}

# ---- baselines: TextGCN ---------------------------------------------------

stage "textgcn" "trans" { # the corpus graph HyLa-SGC and TextSGC use
  for_each = local.textgcn_trans
  graph    = stage.normalize.corpus[each.value.dataset]
  epochs   = var.epochs
  seed     = each.value.seed
}

stage "dataset" "corpus_ind" { # the training documents' corpus graph, test documents joined one way
  for_each = toset(local.ind && local.textgcn ? var.datasets : [])
  source   = "textgcn"
  name     = each.value
  root     = var.data_root
  seed     = var.split_seed
  view     = "inductive_corpus"
}

stage "normalize" "corpus_ind" {
  for_each = toset(local.ind && local.textgcn ? var.datasets : [])
  graph    = stage.dataset.corpus_ind[each.key]
}

stage "textgcn" "ind" {
  for_each = local.textgcn_ind
  graph    = stage.normalize.corpus_ind[each.value.dataset]
  epochs   = var.epochs
  seed     = each.value.seed
}

# ---- tables ---------------------------------------------------------------

stage "evaluate" "transductive" {
  for_each    = toset(length(local.trans_models) > 0 ? ["table"] : [])
  runs        = [stage.train.hyla_sgc, stage.train.rff_sgc, stage.train.textsgc]
  paper_table = "table2-transductive"
  datasets    = var.datasets
  models      = local.trans_models
  title       = "Table 2 (transductive): test accuracy (%)"
}

stage "evaluate" "inductive" {
  for_each    = toset(length(local.ind_models) > 0 ? ["table"] : [])
  runs        = [stage.train.hyla_lr, stage.train.rff_lr, stage.train.lr]
  paper_table = "table2-inductive"
  datasets    = var.datasets
  models      = local.ind_models
  title       = "Table 2 (inductive): test accuracy (%)"
}

stage "evaluate" "transductive_textgcn" {
  for_each    = toset(local.trans && local.textgcn ? ["table"] : [])
  runs        = stage.textgcn.trans
  paper_table = "table2-transductive"
  datasets    = var.datasets
  models      = ["textgcn"]
  title       = "Table 2 (transductive, baseline): TextGCN, test accuracy (%) at the early stop"
}

stage "evaluate" "inductive_textgcn" {
  for_each    = toset(local.ind && local.textgcn ? ["table"] : [])
  runs        = stage.textgcn.ind
  paper_table = "table2-inductive"
  datasets    = var.datasets
  models      = ["textgcn"]
  title       = "Table 2 (inductive, baseline): TextGCN, test accuracy (%) at the early stop"
}

# The transductive and inductive tables in results/table2/.
publish "../results/table2" {
  from = [stage.evaluate.transductive, stage.evaluate.inductive, stage.evaluate.transductive_textgcn, stage.evaluate.inductive_textgcn]
}

# The result pages docs/text.md links (each table's table.md with the
# run's provenance under its title, and its table.json):
# hylaflow run pipelines/table2.hcl -var docs=true
publish "../docs/results/table2" {
  enabled = var.docs
  from    = [stage.evaluate.transductive, stage.evaluate.inductive, stage.evaluate.transductive_textgcn, stage.evaluate.inductive_textgcn]
}
