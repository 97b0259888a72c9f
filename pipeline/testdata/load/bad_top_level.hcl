stages "source" "x" {
  name = "x"
}

name = "top"

stage "source" {
  name = "x"
}

stage "source" "bad.name" {
  name = "x"
}

stage "source" "y" {
  name = "y"
  extra {
  }
}
