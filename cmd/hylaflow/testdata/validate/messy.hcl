stage "source" "cora" {
name = "cora"
    n =   5
  mode="plain"
}
