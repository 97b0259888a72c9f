# A stage that fails between two others, for the Slurm executor tests.
stage "value" "a" {
  values = [1, 2, 3]
}

stage "fail" "b" {
  in      = stage.value.a
  message = "boom on purpose"
}

stage "scale" "c" {
  in = stage.fail.b
}

stage "scale" "d" {
  in     = stage.value.a
  factor = 3
}
