scale  = 0.25
epochs = 20
