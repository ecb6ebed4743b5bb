"""tools/compare_results.py: paired and unpaired differences, worked out by hand."""

import json

import numpy as np

from helpers import assert_one_line_error, run
from tdbg.play.results_file import compare, read_results


def write(path, points, seed=1, mode="dmp", model2="gnubg-nn"):
    head = [
        f"# seed: {seed}",
        f"# game_mode: {mode}",
        f"# model2: {model2}",
        f"# games: {len(points)}",
        "game,first,points,result,cube,plies,doubles_1,doubles_2,takes_1,takes_2,drops_1,drops_2",
    ]
    rows = [f"{i},{i % 2},{p},1,1,50,0,0,0,0,0,0" for i, p in enumerate(points)]
    path.write_text("\n".join(head + rows) + "\n")
    return str(path)


def test_paired_difference_by_hand(tmp_path):
    a = write(tmp_path / "a.csv", [1, -1, 1, 1])
    b = write(tmp_path / "b.csv", [-1, -1, 1, -1])
    r = compare(read_results(a), read_results(b))
    # wins A 1,0,1,1 and B 0,0,1,0: per game 1,0,0,1, per pair 0.5 and 0.5 -> exactly 0.5
    assert r["paired"] and r["metric"] == "win"
    assert (r["difference"], r["ci_low"], r["ci_high"]) == (0.5, 0.5, 0.5)


def test_unpaired_when_the_dice_differ(tmp_path):
    a = write(tmp_path / "a.csv", [1, -1, 1, 1], seed=1)
    b = write(tmp_path / "b.csv", [-1, -1, 1, -1], seed=2)
    r = compare(read_results(a), read_results(b))
    assert not r["paired"] and r["difference"] == 0.75 - 0.25
    assert r["ci_low"] < 0.5 < r["ci_high"]  # resampling each file alone: wider than the paired CI
    ext = write(tmp_path / "e.csv", [2, -4, 1, 1], seed=1, mode="cubeful-money", model2="gnubg-ext")
    ext2 = write(
        tmp_path / "f.csv", [1, -1, 1, -2], seed=1, mode="cubeful-money", model2="gnubg-ext"
    )
    r = compare(read_results(ext), read_results(ext2))
    assert (
        not r["paired"] and r["metric"] == "points" and np.isclose(r["difference"], 0.0 - (-0.25))
    )


def test_cli_prints_and_refuses(tmp_path):
    a = write(tmp_path / "a.csv", [2, -1, 3, 1], mode="cubeless-money")
    b = write(tmp_path / "b.csv", [1, -1, 1, -1], mode="cubeless-money")
    out = tmp_path / "r.json"
    proc = run("tools/compare_results.py", a, b, "--json", out, check=True)
    # points 2,-1,3,1 vs 1,-1,1,-1: per game 1,0,2,2 -> pairs 0.5, 2 -> +1250 mEq/game
    assert "+1250.00" in proc.stdout and "paired" in proc.stdout
    assert json.loads(out.read_text())["difference"] == 1.25
    dmp = write(tmp_path / "d.csv", [1, -1, 1, 1])
    assert_one_line_error(run("tools/compare_results.py", a, dmp), "different game modes")
    junk = tmp_path / "junk.csv"
    junk.write_text("hello\n1,2\n")
    assert_one_line_error(run("tools/compare_results.py", a, junk), "not a per-game result file")
    assert_one_line_error(
        run("tools/compare_results.py", a, tmp_path / "missing.csv"), "cannot read"
    )
    assert_one_line_error(
        run("tools/compare_results.py", a, dmp, "--metric", "elo"), "invalid choice"
    )


def write_matches(path, winners, seed=32, length=7):
    """A match file as play_models.py writes it: one row per game under its match."""
    head = [
        f"# seed: {seed}",
        f"# matches: {len(winners)}",
        f"# match_length: {length}",
        "# model2: m.pt",
        "match,winner,game,away_1,away_2,crawford,points_1,result,cube",
    ]
    rows = []
    for m, w in enumerate(winners):
        rows += [
            f"{m},{w},0,{length},{length},0,{1 if w == 0 else -1},1,1",
            f"{m},{w},1,{length - 1},{length},0,{2 if w == 0 else -2},2,1",
        ]
    path.write_text("\n".join(head + rows) + "\n")
    return str(path)


def test_match_files_compare_match_by_match(tmp_path):
    # A wins matches 0, 2, 3; B wins 2 and 3: per match 1,0,0,0 -> per pair 0.5 and 0 -> 0.25
    a = write_matches(tmp_path / "a.csv", [0, 1, 0, 0])
    b = write_matches(tmp_path / "b.csv", [1, 1, 0, 0])
    r = compare(read_results(a), read_results(b))
    assert r["paired"] and r["metric"] == "win" and r["entries"] == "matches" and r["games_a"] == 4
    assert r["difference"] == 0.25 and r["mean_a"] == 0.75 and r["mean_b"] == 0.5
    assert (r["ci_low"], r["ci_high"]) == (0.0, 0.5)  # the two pairs' means, resampled
    # other dice or another match length: unpaired
    assert not compare(
        read_results(a), read_results(write_matches(tmp_path / "c.csv", [1, 1, 0, 0], seed=5))
    )["paired"]
    assert not compare(
        read_results(a), read_results(write_matches(tmp_path / "d.csv", [1, 1, 0, 0], length=5))
    )["paired"]
    line = run("tools/compare_results.py", a, b, check=True).stdout
    assert "+25.00" in line and "4 matches" in line


def test_a_file_s_entries_are_games_in_money_play_and_matches_in_match_play(tmp_path):
    # the entries are named by the mode's series unit: a money file counts games, a match
    # file (read one entry per match) counts matches
    money = [write(tmp_path / f"{k}.csv", [1, -1], mode="cubeless-money") for k in "ab"]
    assert compare(*map(read_results, money))["entries"] == "games"
    matches = [write_matches(tmp_path / f"m{k}.csv", [0, 1]) for k in "ab"]
    assert compare(*map(read_results, matches))["entries"] == "matches"


def test_gnubg_ext_files_resample_single_games(tmp_path):
    """Against gnubg-ext (gnubg rolls its own dice) games 2k and 2k+1 share nothing: each game is
    a unit.  A wins games 1, 0, 1, 0 (as duplicate pairs each pair would be 1/2 and the CI a
    point); B wins all four.  A's resampled win rate is 0 with chance 1/16 = 6.25% and 1
    likewise, both above the 2.5% tails, and B's is always 1: A - B has the CI [-1, 0]."""
    from tdbg.play.results_file import OWN_PAIRS, OWN_SINGLES

    a = write(tmp_path / "a.csv", [1, -1, 1, -1], mode="cubeful-money", model2="gnubg-ext")
    b = write(tmp_path / "b.csv", [1, 1, 1, 1], mode="cubeful-money", model2="gnubg-ext")
    r = compare(read_results(a), read_results(b), metric="win")
    assert (
        not r["paired"] and r["difference"] == -0.5 and (r["ci_low"], r["ci_high"]) == (-1.0, 0.0)
    )
    assert r["resample_unit"] == {"a": OWN_SINGLES, "b": OWN_SINGLES} and (
        r["units_a"],
        r["units_b"],
    ) == (4, 4)
    # against a file of our own dice (another seed): its units stay its duplicate pairs.  B's
    # pairs (win, loss) are 1/2 each, so B is always 1/2 and A - B runs from -1/2 to +1/2
    c = write(tmp_path / "c.csv", [1, -1, 1, -1], seed=7, mode="cubeful-money", model2="m.pt")
    r = compare(read_results(a), read_results(c), metric="win")
    assert (r["ci_low"], r["ci_high"]) == (-0.5, 0.5) and r["resample_unit"]["b"] == OWN_PAIRS
    assert (r["units_a"], r["units_b"]) == (4, 2)
    out = tmp_path / "r.json"
    line = run(
        "tools/compare_results.py", a, c, "--metric", "win", "--json", out, check=True
    ).stdout
    assert "resamples A's 4 single games and B's 2 duplicate pairs" in line
    assert json.loads(out.read_text())["resample_unit"] == {"a": OWN_SINGLES, "b": OWN_PAIRS}


def test_one_unit_has_no_interval(tmp_path):
    """One game against gnubg-ext is one unit: the difference, but no interval."""
    a = write(tmp_path / "a.csv", [2], mode="cubeful-money", model2="gnubg-ext")
    b = write(tmp_path / "b.csv", [1, -1, 1, 1], mode="cubeful-money", model2="gnubg-ext")
    r = compare(read_results(a), read_results(b))
    assert r["difference"] == 2.0 - 0.5 and r["ci_low"] is None and r["ci_high"] is None
    assert r["ci_reason"].startswith("no interval: 1 unit")
    line = run("tools/compare_results.py", a, b, check=True).stdout
    assert "A - B = +1500.00 no interval: 1 unit mEq/game" in line


def test_a_fifo_or_a_folder_is_refused_without_reading_it(tmp_path):
    """A FIFO given where a file is read: its open() would wait for a writer forever (the
    run blocked); it and a folder are refused in one line, in every reader of a named file."""
    import os

    from helpers import assert_one_line_error

    fifo = tmp_path / "r.csv"
    os.mkfifo(fifo)
    mats = tmp_path / "mats"
    mats.mkdir()
    os.mkfifo(mats / "a.mat")
    real = "experiments/head_to_head/results/dmp_256x2_vs_gnubg-nn.csv"
    for args in [
        ("tools/compare_results.py", fifo, real),
        ("tools/compare_results.py", real, tmp_path),
        ("tools/plot_training.py", fifo, "-o", tmp_path / "p.png"),
        ("gnubg_eval.py", "--from-mat", mats),
        # a stage file (its read blocked for good) and a checkpoint or table named by any tool
        ("train_batch.py", "--config", fifo, "--save", tmp_path / "x.pt"),
        ("tools/describe_model.py", fifo),
        ("tools/analyse.py", tmp_path, "4HPwATDgc/ABMA"),
        (
            "play_models.py",
            "--model1",
            "best_models/match_256x2.pt",
            "--model2",
            "pubeval",
            "--game-mode",
            "match",
            "--met",
            fifo,
        ),
    ]:
        proc = run(*args, subprocess_=True, timeout=120)
        assert_one_line_error(proc, "not a regular file")


def test_rows_and_headers_that_are_not_a_result_file_are_refused(tmp_path):
    """A headerless file was compared as "different game modes:  vs dmp"; rows with a field
    missing or one too many, a game numbered `1_0` (Python's int() reads it) and points of
    1e308 (no game is worth more than 3 x 4,096) were read as games."""
    import pytest

    from tdbg.play.results_file import ResultsFileError

    dmp = read_results(write(tmp_path / "d.csv", [1, -1, 1, 1]))
    bare = tmp_path / "bare.csv"
    bare.write_text(
        "\n".join(open(write(tmp_path / "x.csv", [1, -1, 1, 1])).read().splitlines()[4:]) + "\n"
    )
    with pytest.raises(ResultsFileError, match="bare.csv does not say its game mode"):
        compare(read_results(str(bare)), dmp)
    good = open(write(tmp_path / "g.csv", [1, -1, 1, 1])).read()
    for name, old, new in [
        ("short", "1,1,-1,1,1,50,0,0,0,0,0,0", "1,1,-1,1,1,50,0,0,0,0,0"),
        ("long", "1,1,-1,1,1,50,0,0,0,0,0,0", "1,1,-1,1,1,50,0,0,0,0,0,0,7"),
        ("underscore", "\n1,1,-1,", "\n0_1,1,-1,"),
        ("huge", "\n1,1,-1,", "\n1,1,1e308,"),
    ]:
        text = good.replace(old, new, 1)
        assert text != good, name
        path = tmp_path / f"{name}.csv"
        path.write_text(text)
        with pytest.raises(ResultsFileError, match="malformed row"):
            read_results(str(path))


def test_a_field_beyond_the_csv_reader_s_limit_is_one_line(tmp_path):
    """A file of one field longer than csv's limit (131,072 characters), in its header or in a
    row: one error line, where csv.Error was a traceback."""
    good = write(tmp_path / "good.csv", [1, -1])
    long_header = tmp_path / "h.csv"
    long_header.write_text("[" * 200_000 + "\n")
    long_row = tmp_path / "r.csv"
    long_row.write_text('game,points\n0,"' + "1" * 200_000 + '"\n')
    for bad in (long_header, long_row):
        proc = run("tools/compare_results.py", bad, good)
        assert_one_line_error(proc, f"{bad}: ")


def test_a_column_named_twice_is_refused(tmp_path):
    """csv keeps the last of two `points` columns: the difference was taken of the second
    (a pasted column of 9s made A win every game)."""
    a = tmp_path / "a.csv"
    text = open(write(a, [1.0, -1.0, 1.0, -1.0])).read().splitlines()
    head = [ln for ln in text if ln.startswith("#")]
    body = [text[len(head)] + ",points"] + [ln + ",9" for ln in text[len(head) + 1 :]]
    a.write_text("\n".join(head + body) + "\n")
    b = write(tmp_path / "b.csv", [1.0, -1.0, 1.0, -1.0])
    assert_one_line_error(run("tools/compare_results.py", a, b), "'points' twice")


def test_rows_with_no_header_line_are_named_so(tmp_path):
    """Rows pasted without their header: the first row was read as one, and refused as
    naming a column twice ("column '1' twice"); it has no 'game' and 'points' columns."""
    a = tmp_path / "a.csv"
    a.write_text("1,1\n2,-1\n3,1\n")
    b = write(tmp_path / "b.csv", [1.0, -1.0, 1.0])
    assert_one_line_error(run("tools/compare_results.py", a, b), "no 'game' and 'points' columns")


def test_a_file_saved_with_a_byte_order_mark_reads_as_without(tmp_path):
    """A CSV saved from a spreadsheet starts with a UTF-8 byte-order mark: it was refused
    as having "no 'game' and 'points' columns" (the mark was read into the first one)."""
    a = write(tmp_path / "a.csv", [1, -1, 1, 1])
    b = write(tmp_path / "b.csv", [-1, -1, 1, -1])
    marked = tmp_path / "marked.csv"
    marked.write_bytes(b"\xef\xbb\xbf" + (tmp_path / "a.csv").read_bytes())
    first = tmp_path / "first.csv"  # the mark before the first column, with no header lines
    first.write_bytes(
        b"\xef\xbb\xbf"
        + "".join(
            ln + "\n"
            for ln in (tmp_path / "a.csv").read_text().splitlines()
            if not ln.startswith("#")
        ).encode()
    )
    got, want = (
        compare(read_results(str(marked)), read_results(b)),
        compare(read_results(a), read_results(b)),
    )
    assert [got[k] for k in ("paired", "difference", "ci_low", "ci_high")] == [
        want[k] for k in ("paired", "difference", "ci_low", "ci_high")
    ]
    assert read_results(str(first)).points.tolist() == [1, -1, 1, 1]


def test_numbers_in_a_result_file_read_as_play_models_writes_them(tmp_path):
    """float() and int() read points of `1_0` as 10 and a fullwidth `１` as 1, a header's
    `# games: 2_0` as 20 and a match's winner `0_1` as 1; play_models.py writes none of them."""
    import pytest

    from tdbg.play.results_file import ResultsFileError

    good = open(write(tmp_path / "g.csv", [1, -1, 1, 1])).read()
    for name, old, new in [
        ("underscore", "\n1,1,-1,", "\n1,1,-1_0,"),
        ("fullwidth", "\n1,1,-1,", "\n1,1,-１,"),
        ("nan", "\n1,1,-1,", "\n1,1,nan,"),
        ("count", "# games: 4", "# games: 0_4"),
    ]:
        text = good.replace(old, new, 1)
        assert text != good, name
        path = tmp_path / f"{name}.csv"
        path.write_text(text)
        with pytest.raises(ResultsFileError, match="malformed row|not a count"):
            read_results(str(path))
    match = open(write_matches(tmp_path / "m.csv", [0, 1, 1, 0])).read()
    bad = tmp_path / "w.csv"
    bad.write_text(match.replace("\n1,1,", "\n1,0_1,", 1))
    assert bad.read_text() != match
    with pytest.raises(ResultsFileError, match="malformed row"):
        read_results(str(bad))


def test_a_header_line_given_twice_is_refused(tmp_path):
    """A `# game_mode:` line after the rows (two files joined, an edit) replaced the first: a DMP
    file was compared as cubeful money, its points as mEq."""
    a = tmp_path / "a.csv"
    a.write_text(open(write(a, [1, -1, 1, 1])).read() + "# game_mode: cubeful-money\n")
    b = write(tmp_path / "b.csv", [1, 1, 1, -1], mode="cubeful-money")
    assert_one_line_error(run("tools/compare_results.py", a, b), "'game_mode' twice")


def test_a_match_whose_rows_disagree_is_refused(tmp_path):
    """A match file is one row per game under its match: rows of one match naming two winners,
    or a game row twice, were read (the last winner kept) as a match file as written."""
    import pytest

    from tdbg.play.results_file import ResultsFileError

    good = tmp_path / "g.csv"
    text = open(write_matches(good, [0, 1, 1, 0])).read()
    first, second = (ln for ln in text.splitlines() if ln.startswith("2,"))  # match 2's games
    m, winner, *rest = second.split(",")
    flipped = ",".join([m, "0" if winner == "1" else "1", *rest])
    for name, old, new in [
        ("two winners", second, flipped),
        ("a game twice", second, f"{first}\n{second}"),
    ]:
        path = tmp_path / f"{name}.csv"
        path.write_text(text.replace(old, new, 1))
        with pytest.raises(ResultsFileError, match="malformed row"):
            read_results(str(path))
    assert read_results(str(good)).points.tolist() == [1.0, -1.0, -1.0, 1.0]


def test_a_game_mode_that_no_mode_has_or_that_is_not_the_rows_own_is_refused(tmp_path):
    """The header's game mode says what the rows are worth: a DMP file labelled "DMP" was
    compared in mEq/game, a games file labelled "match" counted its games as matches, and a
    match file labelled "dmp" (play_models.py names no mode in a match file) was compared
    as DMP games.  Each is refused naming the file; a match file naming its own mode reads."""
    import pytest

    from tdbg.play.results_file import ResultsFileError

    games = open(write(tmp_path / "g.csv", [1, -1, 1, 1])).read()
    matches = open(write_matches(tmp_path / "m.csv", [0, 1, 1, 0])).read()
    labelled = matches.replace("# matches:", "# game_mode: {}\n# matches:")
    for name, text, words in [
        ("a name no mode has", games.replace("game_mode: dmp", "game_mode: DMP"), "no mode"),
        ("money", games.replace("game_mode: dmp", "game_mode: money"), "no mode"),
        ("games as match", games.replace("game_mode: dmp", "game_mode: match"), "are games"),
        ("matches as dmp", labelled.format("dmp"), "rows are matches"),
        ("matches as cubeful", labelled.format("cubeful-money"), "rows are matches"),
    ]:
        path = tmp_path / f"{name}.csv"
        path.write_text(text)
        with pytest.raises(ResultsFileError, match=words):
            read_results(str(path))
        proc = run("tools/compare_results.py", path, tmp_path / "g.csv")
        assert_one_line_error(proc, str(path))
    own = tmp_path / "own.csv"
    own.write_text(labelled.format("match"))
    assert read_results(str(own)).points.tolist() == [1.0, -1.0, -1.0, 1.0]


def test_a_match_file_takes_no_points_metric(tmp_path):
    """A match file's entries are matches won or lost (+1/-1): --metric points or capped gave
    the match-win difference labelled mEq/game ("A -333.33 over 6 matches")."""
    import pytest

    from tdbg.play.results_file import ResultsFileError

    a = read_results(write_matches(tmp_path / "a.csv", [0, 1, 1, 0]))
    b = read_results(write_matches(tmp_path / "b.csv", [0, 0, 1, 0]))
    assert compare(a, b, "win")["difference"] == -0.25
    for metric in ("points", "capped"):
        with pytest.raises(ResultsFileError, match="only the match-win rate"):
            compare(a, b, metric)
        proc = run("tools/compare_results.py", a.path, b.path, "--metric", metric)
        assert_one_line_error(proc, f"metric {metric}: a match file's entries are matches")
