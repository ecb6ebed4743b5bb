"""Every result that names a checkpoint names the md5 of the bytes it read: analyse.py,
rollout.py and take_points.py name their model in their JSON (they gave no md5), and
play_models.py's luck-adjusted result names its reference (it gave only the path).  Rollout
workers and take_points' two plies play the bytes read once, not the file read again."""

import hashlib
import json

from helpers import run
from tdbg.net.model import read_checkpoint
from tdbg.play.rollout import RolloutSettings

DMP, DMP_OTHER = "best_models/dmp_128x2.pt", "best_models/dmp_256x2.pt"
CUBEFUL, MATCH = "best_models/cubeful_256x2.pt", "best_models/match_256x2.pt"


def _md5(path: str) -> str:
    return hashlib.md5(read_checkpoint(path)).hexdigest()


def _json(*args) -> dict:
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_analyse_rollout_and_take_points_name_the_md5():
    got = _json("tools/analyse.py", CUBEFUL, "4HPwATDgc/ABMA", "--dice", "52", "--json")
    assert got["model"] == CUBEFUL and got["model_md5"] == _md5(CUBEFUL)
    args = ("4HPwATDgc/ABMA", "--trials", "4", "--truncate", "2", "--quiet", "--json")
    got = _json("tools/rollout.py", DMP, *args)
    assert got["model"] == DMP and got["model_md5"] == _md5(DMP)
    assert _json("tools/rollout.py", "gnubg-nn", *args)["model_md5"] is None  # no file
    got = _json("tools/take_points.py", MATCH, "--json")
    assert got["model"] == MATCH and got["model_md5"] == _md5(MATCH)


def test_the_luck_reference_is_named_by_its_md5(tmp_path):
    out = tmp_path / "r.json"
    proc = run(
        "play_models.py",
        "--model1",
        DMP,
        "--model2",
        DMP_OTHER,
        "--games",
        "2",
        "--luck",
        DMP_OTHER,
        "--quiet",
        "--json",
        out,
    )
    assert proc.returncode == 0, proc.stderr
    luck = json.loads(out.read_text())["luck_adjusted"]
    assert luck["reference"] == DMP_OTHER and luck["reference_md5"] == _md5(DMP_OTHER)


def test_a_rollout_plays_the_bytes_it_read():
    """The settings each worker gets carry the bytes read once: a file replaced after that
    (here: the path names another checkpoint) is not read again."""
    pinned = RolloutSettings(DMP, 4, data=read_checkpoint(DMP_OTHER))
    assert list(pinned.roller().model.hidden) == [256, 256]
    assert list(RolloutSettings(DMP, 4).roller().model.hidden) == [128, 128]
