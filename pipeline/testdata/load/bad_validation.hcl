# Variable validation rules: a default that breaks its rule (reported at
# the default, with the rule's message), a rule that refers to another
# variable, a condition that is not a bool, a rule without its message,
# and a variable whose rules pass.
variable "mode" {
  type    = string
  default = "fast"

  validation {
    condition     = contains(["plain", "weighted"], var.mode)
    error_message = "mode must be plain or weighted."
  }
}

variable "n" {
  type    = number
  default = 3

  validation {
    condition     = var.n > 0 && var.mode != ""
    error_message = "n must be positive."
  }
}

variable "k" {
  default = 2

  validation {
    condition     = var.k
    error_message = "k must be something."
  }
}

variable "m" {
  default = 2

  validation {
    condition = var.m > 1
  }
}

variable "ok" {
  type    = list(number)
  default = [1, 2]

  validation {
    condition     = length(var.ok) > 0
    error_message = "ok must not be empty."
  }
  validation {
    condition     = length([for x in var.ok : x if x < 0]) == 0
    error_message = "ok must not hold negative numbers."
  }
}

stage "source" "a" {
  name = "a"
  mode = var.mode
  n    = var.n + var.k + var.m + length(var.ok)
}
