"""gnubg_eval.py's run (tdbg/app/eval_command.py) without playing or analysing: the flags
refused before any game, the .mat files the records go into and the record each analysed game
belongs to (the bootstrap's unit), and self-play's mirrored records written once."""

import os
from types import SimpleNamespace

import pytest

from tdbg.app import cli, eval_command
from tdbg.app.eval_settings import EvalSettings
from tdbg.gnubg.gnubg_binary import GnubgError

INFO = {"binary": "/opt/gnubg", "version": "1.08.003"}


@pytest.fixture
def binary(monkeypatch):
    """A gnubg that answers its checks; ``rated`` lists the rates it was asked to rate."""
    rated = []
    monkeypatch.setattr(eval_command, "preflight", lambda gnubg, timeout=None: INFO)
    monkeypatch.setattr(
        eval_command, "gnubg_ratings", lambda rates, b, t=None: rated.append(rates) or ["x"]
    )
    return rated


@pytest.mark.parametrize(
    "flags, words",
    [
        ({}, "give --model (a checkpoint to play and analyse) or --from-mat DIR"),
        ({"model": "m.pt", "cubeful": True, "game_mode": "dmp"}, "not with --game-mode dmp"),
        ({"model": "m.pt", "self_play": True, "opponent": "pubeval"}, "different opponents"),
        ({"model": "m.pt", "luck": True}, "--luck rates one player against another"),
        ({"model": "m.pt", "export_only": True}, "--export-only needs --out DIR"),
        (
            {"model": "m.pt", "game_mode": "dmp", "match_length": 5},
            "--match-length applies to --game-mode match only",
        ),
    ],
)
def test_a_misuse_is_refused_before_gnubg_is_asked(binary, flags, words):
    with pytest.raises(cli.UsageError) as info:
        eval_command.checked_start(EvalSettings(**flags))
    assert words in str(info.value)
    assert binary == []  # refused on the flags alone, the same with or without a binary


@pytest.mark.parametrize(
    "flags, mode",
    [
        ({"game_mode": "match", "match_length": 5}, "match"),
        ({"cubeful": True}, "cubeful-money"),  # PureTD's name for it
        ({"cubeful": True, "game_mode": "cubeful-money"}, "cubeful-money"),
    ],
)
def test_the_game_mode_named_and_the_binary_checked(binary, flags, mode):
    assert eval_command.checked_start(EvalSettings(model="m.pt", **flags)) == (mode, INFO)
    assert binary == [[0.0]]  # the rating the report ends with is tried before any game


def test_export_only_does_not_need_the_binary_to_rate(binary, tmp_path):
    s = EvalSettings(model="m.pt", game_mode="dmp", export_only=True, out=str(tmp_path / "o"))
    assert eval_command.checked_start(s) == ("dmp", INFO)
    assert binary == []


def test_a_binary_that_fails_its_checks_is_one_usage_error(monkeypatch):
    def fails(gnubg, timeout=None):
        raise GnubgError("no gnubg binary found")

    monkeypatch.setattr(eval_command, "preflight", fails)
    with pytest.raises(cli.UsageError, match="no gnubg binary found"):
        eval_command.checked_start(EvalSettings(model="m.pt", game_mode="dmp"))


def record(index: int, key=None):
    return SimpleNamespace(index=index, turns=["a turn"], key=key)


@pytest.fixture
def written(monkeypatch):
    """The .mat files written: (file name, the records' indices, match length)."""
    out = []
    monkeypatch.setattr(
        eval_command,
        "write_mat",
        lambda path, recs, names, length: out.append(
            (os.path.basename(path), [r.index for r in recs], length)
        ),
    )
    return out


def test_a_one_point_game_is_a_file_of_its_own(written):
    files = eval_command.MatFiles("out", ("model", "opponent"), self_play=False)
    batch = [record(3), record(2)]
    files.add_games(batch, 1)
    assert written == [("game_0000002.mat", [2], 1), ("game_0000003.mat", [3], 1)]
    assert files.played == 2 and all(r.turns == [] for r in batch)  # only the results kept


def test_money_games_go_a_hundred_to_a_file(written):
    """250 games: files from game 0, 100 and 200, holding 100, 100 and 50 records."""
    files = eval_command.MatFiles("out", ("model", "opponent"), self_play=False)
    files.add_games([record(k) for k in range(250)], 0)
    assert [(name, len(ix), length) for name, ix, length in written] == [
        ("games_0000000.mat", 100, 0),
        ("games_0000100.mat", 100, 0),
        ("games_0000200.mat", 50, 0),
    ]
    assert written[2][1] == list(range(200, 250))
    # a game of a session file is the file's records in order
    at = os.path.join("out", "games_0000100.mat")
    assert files.record_of({"file": at, "game": 7}) == 107


def test_a_match_file_holds_its_finished_match(written):
    files = eval_command.MatFiles("out", ("model", "opponent"), self_play=False)
    done = SimpleNamespace(index=4, winner=1, game_records=["g1", "g2"])
    abandoned = SimpleNamespace(index=5, winner=-1, game_records=["g1"])
    files.add_matches([done, abandoned], 7)
    assert files.played == 1 and [name for name, *_ in written] == ["match_0000004.mat"]
    # every game of a match file is the match's one record
    assert files.record_of({"file": os.path.join("out", "match_0000004.mat"), "game": 1}) == 4


def test_more_games_read_than_written_is_one_usage_error(written):
    files = eval_command.MatFiles("out", ("model", "opponent"), self_play=False)
    files.add_games([record(0), record(1)], 0)
    with pytest.raises(cli.UsageError, match="gnubg read 3\\+ games in .*, where 2 were written"):
        files.record_of({"file": os.path.join("out", "games_0000000.mat"), "game": 2})


def test_self_play_drops_a_record_that_mirrors_the_one_before(monkeypatch):
    """Record 1 replays record 0 with the seats swapped (the same key): dropped and counted;
    record 3 differs from record 2 (a player with randomness): kept."""
    monkeypatch.setattr(eval_command, "mirror_key", lambda rec: rec.key)
    records = [record(0, "a"), record(1, "a"), record(2, "b"), record(3, "c")]
    mirrors = eval_command.Mirrors(active=True)
    assert [r.index for r in mirrors.distinct(records)] == [0, 2, 3]
    assert mirrors.skipped == 1
    outside = eval_command.Mirrors(active=False)
    assert [r.index for r in outside.distinct(records)] == [0, 1, 2, 3]
    assert outside.skipped == 0


@pytest.mark.parametrize(
    "games, length, name", [(101, 0, "games_0000100.mat"), (1, 1, "game_0000000.mat")]
)
def test_a_second_game_read_from_a_file_of_one_game_is_refused(written, games, length, name):
    """101 money games leave game 100 alone in the last file; a DMP game is a file of its own.
    gnubg reading a second game there (a misread file) is refused as in a file of many games,
    not charged to the one game written."""
    files = eval_command.MatFiles("out", ("model", "opponent"), self_play=False)
    files.add_games([record(k) for k in range(games)], length)
    at = os.path.join("out", name)
    assert files.record_of({"file": at, "game": 0}) == games - 1
    with pytest.raises(cli.UsageError, match="gnubg read 2\\+ games in .*, where 1 was written"):
        files.record_of({"file": at, "game": 1})
