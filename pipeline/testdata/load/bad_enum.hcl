stage "source" "a" {
  name = "a"
  mode = "weigthed"
}

stage "source" "b" {
  name = "b"
  mode = "circular"
}
