stage "pass" "a" {
  in = stage.pass.c
}

stage "pass" "b" {
  in = stage.pass.a
}

stage "pass" "c" {
  in = stage.pass.b
}

stage "pass" "ok" {
  in = stage.pass.a
}

stage "pass" "self" {
  in = stage.pass.self
}

stage "pass" "x" {
  for_each = toset(["1", "2"])
  in       = stage.pass.y
}

stage "pass" "y" {
  in = stage.pass.x["2"]
}
