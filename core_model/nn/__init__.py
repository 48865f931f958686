"""The network: attention (the paper's few lines), positional encodings, masks, layers and the Transformer.

Plain PyTorch modules named as torch's own (self_attn, linear1, norm1...), each recording its values into the
trace of the call in progress (core_model.trace) under the leaves it declares. Everything a model family needs
is a named option of ModelConfig (core_model/config.py) that these modules read; nothing here knows how a
checkpoint is read, which family a folder is, or how a model is trained.
"""
