# Publish blocks: a directory of its own, plain file names, one output per
# file block, known stages, a bool for enabled, no name written twice.
stage "source" "a" {
  name = "a"
}

stage "train" "t" {
  for_each = toset(["1", "2"])
  data     = stage.source.a
}

publish "." {
  from = [stage.source.a]
}

publish "out" {
  enabled = "yes"
  from    = [stage.source.a, stage.source.a.graph, stage.trian.t]

  file "../escape.png" {
    from   = stage.source.a
    member = "x.png"
  }
  file "all.json" {
    from   = stage.train.t
    member = "metrics"
  }
  file "a" {
    from   = stage.source.a.meta
    member = "m"
  }
}

publish "./out/" {
  from = [stage.train.t]
}

publish "empty" {
}

publish "stray" {
  form = [stage.source.a]
}

publish "dup" {
  from = [stage.source.a, stage.source.a.graph]

  file "source.a" {
    from   = stage.source.a.meta
    member = "m"
  }
}
