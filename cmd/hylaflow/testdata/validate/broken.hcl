stage "source" "cora" {
  name = 
}
