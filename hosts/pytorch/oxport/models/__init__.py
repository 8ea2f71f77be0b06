"""Small reference models used by oxport's PyTorch tests and examples.

    dcgan.Generator / dcgan.Discriminator           the DCGAN example architecture (64x64)
    super_resolution.SuperResolutionNet             conv/relu + pixel_shuffle
    word_language_model.RNNModel                    embedding -> RNN -> linear decoder
    decoder.Decoder                                 LLaMA-style decoder (RMSNorm, rotary attention, SwiGLU)
"""
