"""Learning: self-play, lambda returns, trainers, batch and online TD, the stage runner."""
