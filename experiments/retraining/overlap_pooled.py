"""overlap minus plain over both paired checks of --overlap (overlap_check.sh run twice: seeds
3400/2001 into overlap_check/, 3401/2002 into overlap_check2/): per duplicate pair the
difference of the two arms' win rates on the same dice, bootstrapped over all 10,000 pairs.
Writes overlap_check2/overlap_minus_plain_pooled.json and prints it.

    python experiments/retraining/overlap_pooled.py
"""

import os

import numpy as np

from tdbg.infra.fileio import atomic_write, json_text
from tdbg.infra.stats import bootstrap_ci, pair_means
from tdbg.play.results_file import is_paired, read_results

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKS = [("overlap_check", 2001), ("overlap_check2", 2002)]


def paired_differences(a_path: str, b_path: str) -> np.ndarray:
    """A minus B per shared duplicate pair, in wins, as tools/compare_results.py pairs them."""
    a, b = read_results(a_path), read_results(b_path)
    if not is_paired(a, b):
        raise SystemExit(f"{a_path} and {b_path} did not play the same dice")
    ia, ib = np.argsort(a.games), np.argsort(b.games)
    return np.asarray(pair_means(a.games[ia], a.metric("win")[ia] - b.metric("win")[ib]))


def main() -> None:
    files, diffs = [], []
    for folder, dice in CHECKS:
        a, b = (
            os.path.join(folder, f"{arm}_vs_gnubg-nn_seed{dice}.csv")
            for arm in ("overlap", "plain")
        )
        files += [a, b]
        diffs.append(paired_differences(os.path.join(HERE, a), os.path.join(HERE, b)))
    d = np.concatenate(diffs)  # every unit a full pair: all weigh alike
    mean, low, high = bootstrap_ci(d, 2000, seed=0)
    out = {
        "what": "overlap minus plain, both paired checks pooled: per duplicate pair, the difference of the two "
        "arms' win rates on the same dice, bootstrapped over the pairs of both checks",
        "command": "python experiments/retraining/overlap_pooled.py",
        "files": files,
        "pairs": len(d),
        "difference": round(mean, 5),
        "ci_low": round(low, 5),
        "ci_high": round(high, 5),
        "n_bootstrap": 2000,
        "bootstrap_seed": 0,
    }
    with atomic_write(
        os.path.join(HERE, "overlap_check2", "overlap_minus_plain_pooled.json")
    ) as fh:
        fh.write(json_text(out, indent=2) + "\n")
    print(json_text(out))


if __name__ == "__main__":
    main()
