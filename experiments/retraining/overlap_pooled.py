"""overlap minus plain over both paired checks of --overlap (overlap_check.sh run twice: seeds
3400/2001 into overlap_check/, 3401/2002 into overlap_check2/): per duplicate pair the
difference of the two arms' win rates on the same dice, bootstrapped over all 10,000 pairs.
Writes overlap_check2/overlap_minus_plain_pooled.json and prints it.

    python experiments/retraining/overlap_pooled.py
"""
import csv
import os

import numpy as np

from tdbg.infra.fileio import atomic_write, json_text

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKS = [("overlap_check", 2001), ("overlap_check2", 2002)]


def pair_wins(path: str) -> np.ndarray:
    """Each duplicate pair's win rate (games 2k and 2k+1 share their dice)."""
    rows = [r for r in csv.reader(open(path)) if r and not r[0].startswith("#")]
    points = rows[0].index("points")
    wins = np.array([float(r[points]) > 0 for r in rows[1:]], dtype=float)
    return wins.reshape(-1, 2).mean(axis=1)


def main() -> None:
    files, diffs = [], []
    for folder, dice in CHECKS:
        a, b = (os.path.join(folder, f"{arm}_vs_gnubg-nn_seed{dice}.csv") for arm in ("overlap", "plain"))
        files += [a, b]
        diffs.append(pair_wins(os.path.join(HERE, a)) - pair_wins(os.path.join(HERE, b)))
    d = np.concatenate(diffs)
    rng = np.random.default_rng(0)
    boot = [d[rng.integers(0, len(d), len(d))].mean() for _ in range(2000)]
    out = {"what": "overlap minus plain, both paired checks pooled: per duplicate pair, the difference of the two "
                   "arms' win rates on the same dice, bootstrapped over the pairs of both checks",
           "command": "python experiments/retraining/overlap_pooled.py", "files": files, "pairs": len(d),
           "difference": round(float(d.mean()), 5), "ci_low": round(float(np.percentile(boot, 2.5)), 5),
           "ci_high": round(float(np.percentile(boot, 97.5)), 5), "n_bootstrap": 2000, "bootstrap_seed": 0}
    with atomic_write(os.path.join(HERE, "overlap_check2", "overlap_minus_plain_pooled.json")) as fh:
        fh.write(json_text(out, indent=2) + "\n")
    print(json_text(out))


if __name__ == "__main__":
    main()
