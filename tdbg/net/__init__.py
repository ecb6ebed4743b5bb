"""The network: model and checkpoints, growth, losses, batched scoring, search (torch)."""
