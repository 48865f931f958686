"""Training the shipped models, and what training leaves for the app to show.

tasks (the four tasks: model shape, data, loss), data/ (the generators of their corpora, no downloads), train
(`python -m core_model.training.train`: the loop, resumable checkpoints), train_log and snapshots (the loss curve
and the attention of a few probe sentences as training went, kept beside a checkpoint), evaluate
(`python -m core_model.training.evaluate`: the held-out figures a model card quotes) and live_train (a short run
the app streams step by step).
"""
