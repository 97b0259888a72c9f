pipeline "d" {
  defaults "train" {
    epocs = 1
    data  = 2
    lr    = "fast"
  }
  defaults "trian" {
    epochs = 1
  }
  defaults "train" {
    epochs = 2
  }
  colour = "red"
}
