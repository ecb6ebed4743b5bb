"""Regression pins of play_models.py and gnubg_eval.py across issue 45's reshaping (a player
as one value, the scripts made thin): fixed-seed result files and the --help texts.

The expected values below are what the code *before* the change produced (commit 64d05a2),
captured before it was touched.  They are an oracle of the old code, kept here only as a
regression pin: they say "unchanged", not "correct".  A deliberate change of the dice, the
players or the file layout updates them, with the reason in its commit.
"""

from __future__ import annotations

import hashlib
import re

import pytest

from helpers import run

GAMES = (
    "# seed: 5\n"
    "# games: 8\n"
    "# game_mode: dmp\n"
    "# model1: best_models/dmp_128x2.pt\n"
    "# model1_md5: 15d668509c4012a97fc2e6ba0946af9a\n"
    "# model2: pubeval\n"
    "# model2_md5: None\n"
    "# oneply1: False\n"
    "# oneply2: False\n"
    "# oneply_k: None\n"
    "# oneply_filter: None\n"
    "# twoply1: None\n"
    "# twoply2: None\n"
    "# plies: None\n"
    "# jacoby: True\n"
    "# n_bootstrap: 2000\n"
    "# resample_unit: duplicate pairs (games 2k and 2k+1 share their dice)\n"
    "# win_rate: 0.375 (95% CI 0.125 .. 0.5)\n"
    "game,first,points,result,cube,plies,doubles_1,doubles_2,takes_1,takes_2,drops_1,drops_2\n"
    "0,0,1.0,2,1,52,0,0,0,0,0,0\n"
    "1,1,-1.0,3,1,58,0,0,0,0,0,0\n"
    "2,0,-1.0,3,1,57,0,0,0,0,0,0\n"
    "3,1,1.0,1,1,59,0,0,0,0,0,0\n"
    "4,0,-1.0,3,1,45,0,0,0,0,0,0\n"
    "5,1,-1.0,3,1,52,0,0,0,0,0,0\n"
    "6,0,-1.0,2,1,55,0,0,0,0,0,0\n"
    "7,1,1.0,1,1,81,0,0,0,0,0,0\n"
)
MONEY_1PLY = (
    "# seed: 7\n"
    "# games: 6\n"
    "# game_mode: cubeful-money\n"
    "# model1: best_models/cubeful_256x2.pt\n"
    "# model1_md5: 1b866a3525098cdd71819eb497e35c1f\n"
    "# model2: best_models/cubeful_256x3.pt\n"
    "# model2_md5: 544c4eb46f1fc99d226b6801bfc45738\n"
    "# oneply1: False\n"
    "# oneply2: True\n"
    "# oneply_k: None\n"
    "# oneply_filter: None\n"
    "# twoply1: None\n"
    "# twoply2: None\n"
    "# plies: None\n"
    "# jacoby: True\n"
    "# n_bootstrap: 2000\n"
    "# resample_unit: duplicate pairs (games 2k and 2k+1 share their dice)\n"
    "# win_rate: 0.5 (95% CI 0.5 .. 0.5)\n"
    "# meq_per_game: 0 (95% CI -500 .. 500)\n"
    "# capped_meq_per_game: 0 (95% CI -500 .. 500)\n"
    "game,first,points,result,cube,plies,doubles_1,doubles_2,takes_1,takes_2,drops_1,drops_2\n"
    "0,0,-1.0,2,1,43,0,0,0,0,0,0\n"
    "1,1,1.0,0,1,37,1,0,0,0,0,1\n"
    "2,0,1.0,0,1,20,1,0,0,0,0,1\n"
    "3,1,-2.0,0,2,18,1,1,0,1,1,0\n"
    "4,0,-1.0,0,1,15,0,1,0,0,1,0\n"
    "5,1,2.0,1,2,45,1,0,0,1,0,0\n"
)
MATCHES = (
    "# seed: 2\n"
    "# matches: 4\n"
    "# match_length: 3\n"
    "# met: Kazaross-XG2.xml\n"
    "# model1: best_models/match_256x2.pt\n"
    "# model1_md5: b21897c013570ad53ada278a270cc0c9\n"
    "# model2: best_models/match_256x2_outcomes.pt\n"
    "# model2_md5: 9ce605a9fd6304478552a8967e397e75\n"
    "# oneply1: False\n"
    "# oneply2: False\n"
    "# oneply_k: None\n"
    "# oneply_filter: None\n"
    "# n_bootstrap: 2000\n"
    "# resample_unit: duplicate pairs (matches 2k and 2k+1 share their dice; a lone last match is a unit of one)\n"
    "# match_win_rate: 0.5 (95% CI 0.5 .. 0.5)\n"
    "match,winner,game,away_1,away_2,crawford,points_1,result,cube\n"
    "0,1,0,3,3,0,-2,1,2\n"
    "0,1,1,3,1,1,-1,2,1\n"
    "1,0,0,3,3,0,3,1,4\n"
    "2,0,0,3,3,0,2,1,2\n"
    "2,0,1,1,3,1,1,2,1\n"
    "3,1,0,3,3,0,2,1,2\n"
    "3,1,1,1,3,1,-1,1,1\n"
    "3,1,2,1,2,0,-2,2,2\n"
)
# sha256 of --help at COLUMNS=120 (re-pinned when --threads was added, and gnubg_eval.py's again when
# --gnubg-timeout was, and both when --threads gained its limit, 1 to 1,024: each time the old text with that
# flag's usage token and help lines is the only difference)
HELP = {
    "play_models.py": "0beb523215176c79f63793112b1c3bf09be42f2befde007df01e40fc439202b8",
    "gnubg_eval.py": "2ac5a1969260fc4939ee546fd825df95a14431e0b56674267980642929e90caf",
}


def without_run_lines(path) -> str:
    """The file less the header lines that name the run (command, commit, date)."""
    return "".join(ln for ln in open(path) if not re.match(r"# (command|commit|date):", ln))


@pytest.mark.parametrize(
    "args, expected",
    [
        (
            [
                "--model1",
                "best_models/dmp_128x2.pt",
                "--model2",
                "pubeval",
                "--games",
                8,
                "--seed",
                5,
            ],
            GAMES,
        ),
        (
            [
                "--model1",
                "best_models/cubeful_256x2.pt",
                "--model2",
                "best_models/cubeful_256x3.pt",
                "--game-mode",
                "cubeful-money",
                "--games",
                6,
                "--seed",
                7,
                "--oneply2",
            ],
            MONEY_1PLY,
        ),
        (
            [
                "--model1",
                "best_models/match_256x2.pt",
                "--model2",
                "best_models/match_256x2_outcomes.pt",
                "--match-length",
                3,
                "--games",
                4,
                "--seed",
                2,
            ],
            MATCHES,
        ),
    ],
    ids=["dmp-games", "cubeful-money-1ply", "matches"],
)
def test_result_files_are_the_old_codes(tmp_path, args, expected):
    out = tmp_path / "r.csv"
    run("play_models.py", *args, "--csv", out, "--quiet", check=True)
    assert without_run_lines(out) == expected


@pytest.mark.parametrize("script", sorted(HELP))
def test_help_is_the_old_codes(monkeypatch, script):
    monkeypatch.setenv("COLUMNS", "120")
    proc = run(script, "--help", check=True)
    assert hashlib.sha256(proc.stdout.encode()).hexdigest() == HELP[script]
