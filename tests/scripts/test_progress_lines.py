"""What a training run's progress bar says: its fields named in words a reader knows."""

import re

from helpers import run


def test_the_training_bar_names_its_fields(tmp_path):
    """The bar counts games, its rate is games/s (it read `ep/s`, and an undocumented
    `eps=.../s` beside it), then the last round's loss and learning rate."""
    proc = run(
        "train_batch.py",
        "--hidden",
        "8",
        "--num-episodes",
        "40",
        "--episodes-per-round",
        "20",
        "--parallel-games",
        "4",
        "--save",
        tmp_path / "b.pt",
        check=True,
    )
    last = [part for part in re.split(r"[\r\n]", proc.stderr) if "40/40" in part][-1]
    assert re.search(r"40/40 \[[0-9:<]+, +[0-9.]+ games/s, loss=[0-9.]+, lr=[0-9.e-]+\]", last), (
        last
    )
    assert "eps=" not in proc.stderr and "ep/s" not in proc.stderr
