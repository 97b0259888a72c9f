stage "source" "a" {
  name = file("../secret.txt")
}

stage "source" "b" {
  name = file("/etc/hostname")
}

stage "source" "c" {
  name = env("HYLAFLOW_TEST_SURELY_UNSET")
}

stage "source" "d" {
  name = nosuchfunc("x")
}

stage "source" "e" {
  name = file("data/missing.txt")
}
