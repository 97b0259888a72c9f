# A stage type's Check hook reports at the value it is about: the name's
# attribute, a value set by a defaults block, or the block when the problem
# concerns the stage as a whole; warnings come with the errors.
pipeline "check" {
  defaults "source" {
    flag = true
  }
}

stage "source" "typo" {
  name = "cat:corra"
}

stage "source" "directed" {
  name = "cat:cora"
  mode = "directed"
}

stage "source" "thirteen" {
  name = "cat:citeseer"
  n    = 13
}
