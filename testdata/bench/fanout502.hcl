# Runner benchmark: 1 source, 500 fan-out stages, 1 sink (502 instances of
# the generic stages). Measures the runner's own overhead per stage:
#   hylaflow run testdata/bench/fanout502.hcl --cache /tmp/bench-cache   (cold)
#   hylaflow run testdata/bench/fanout502.hcl --cache /tmp/bench-cache   (fully cached)
pipeline "fanout502" {
  description = "1 random source, 500 scale stages, 1 sum: runner overhead benchmark"
}

variable "width" {
  type    = number
  default = 500
}

stage "random" "source" {
  n    = 100
  seed = 1
}

stage "scale" "fan" {
  for_each = toset([for i in range(var.width) : format("%03d", i)])
  in       = stage.random.source
  factor   = tonumber(each.key) + 1
  offset   = 0.5
}

stage "sum" "sink" {
  in = stage.scale.fan
}
