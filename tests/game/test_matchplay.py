"""Match play: the match equity table, the match rules (Crawford, caps, match end), the
values a finished game and a cube node get from the table, and whole matches."""

from dataclasses import replace
import csv
import os
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import torch

from helpers import board
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS
from tdbg.game.met import DEFAULT_MET, METError, load_met
from tdbg.game.modes import game_mode
from tdbg.game.modes.matchplay import MATCH_INPUTS, MatchPlay, pack, unpack
from tdbg.game.movegen import make_expander
from tdbg.learn.selfplay import FP32_COLLECTION, SelfPlay, SelfPlaySetup
from tdbg.net.model import TDNetwork
from tdbg.net.scoring import Scorer, ScoringSettings
from tdbg.play.matches import play_matches

MET = load_met()


def xml_table(path=DEFAULT_MET):
    """The table read by a strict XML parser: an oracle independent of met.py's reader."""
    root = ET.parse(path).getroot()
    pre = [
        [float(me.text) for me in row.findall("me")]
        for row in root.find("pre-crawford-table").findall("row")
    ]
    post = [float(me.text) for me in root.find("post-crawford-table").find("row").findall("me")]
    return np.array(pre), np.array(post)


# --------------------------------------------------------------------------- the table


def test_met_entries_read_from_the_file():
    pre, post = xml_table()
    assert pre.shape == (25, 25) and post.shape == (25,)
    np.testing.assert_array_equal(MET.pre, pre)
    np.testing.assert_array_equal(MET.post, post)
    # entries as printed in Kazaross-XG2.xml (row: my away, column: theirs)
    assert MET.mwc(1, 2) == 0.67736 and MET.mwc(2, 1) == 0.32264  # Crawford game, 1-away vs 2-away
    assert MET.mwc(3, 3) == 0.5 and MET.mwc(25, 1) == 0.00095
    assert MET.mwc(2, 1, post_crawford=True) == 0.48803  # post-Crawford trailer 2-away
    assert MET.mwc(1, 2, post_crawford=True) == pytest.approx(1 - 0.48803)
    assert MET.mwc(0, 3) == 1.0 and MET.mwc(-2, 3) == 1.0 and MET.mwc(4, 0) == 0.0


def test_met_is_symmetric():
    a = np.arange(1, 26)
    me, opp = np.meshgrid(a, a, indexing="ij")
    for post in (False, True):
        np.testing.assert_allclose(MET.mwc(me, opp, post) + MET.mwc(opp, me, post), 1.0, atol=1e-9)


def test_met_parsed_leniently_despite_a_stray_closing_tag(tmp_path):
    text = open(DEFAULT_MET).read()
    bad = tmp_path / "stray.xml"
    bad.write_text(text.replace("</pre-crawford-table>", "</row>\n</pre-crawford-table>", 1))
    with pytest.raises(ET.ParseError):
        ET.parse(bad)
    got = load_met(str(bad))
    np.testing.assert_array_equal(got.pre, MET.pre)


@pytest.mark.parametrize(
    "edit, words",
    [
        (
            lambda t: t.replace("<post-crawford-table", "<nothing").replace(
                "</post-crawford-table>", ""
            ),
            "post-crawford",
        ),
        (lambda t: t.replace("<me>0.67736</me>", "", 1), "not square"),
        (lambda t: t.replace("<me>0.67736</me>", "<me>O.67</me>", 1), "not a number"),
        (lambda t: t.replace("<me>0.67736</me>", "<me>1.67736</me>", 1), "[0, 1]"),
        (lambda t: "just text", "not a match equity table"),
        # entries as gnubg's g_ascii_strtod reads them: float() read "0.6_7736" as 0.67736 and
        # a fullwidth "０.６" as 0.6, where gnubg reads 0.6 and 0; a no-break space gnubg stops at
        (lambda t: t.replace("<me>0.67736</me>", "<me>0.6_7736</me>", 1), "not a number"),
        (lambda t: t.replace("<me>0.67736</me>", "<me>\uff10.\uff16</me>", 1), "not a number"),
        (lambda t: t.replace("<me>0.67736</me>", "<me>\u00a00.67736</me>", 1), "not a number"),
        # gnubg reads as many rows as the <length> says (and extends them by a formula): rows
        # beyond it, or a table without it, gave other numbers than gnubg's
        (lambda t: t.replace("<length>25</length>", "<length>10</length>"), "<length>"),
        (lambda t: t.replace("<length>25</length>", ""), "<length>"),
        (lambda t: t.replace("<length>25</length>", "<length>2_5</length>"), "<length>"),
    ],
)
def test_malformed_met_files_are_refused(tmp_path, edit, words):
    path = tmp_path / "met.xml"
    path.write_text(edit(open(DEFAULT_MET).read()), encoding="utf-8")
    with pytest.raises(METError, match=re.escape(words)):
        load_met(str(path))
    with pytest.raises(METError, match="no such"):
        load_met(str(tmp_path / "missing.xml"))


# --------------------------------------------------------------------------- state and rules


def test_state_packs_and_unpacks():
    parts = np.array(
        [
            (o, lv, c, a, b)
            for o in range(3)
            for lv in range(7)
            for c in (0, 1)
            for a in (1, 7, 25)
            for b in (1, 4, 25)
        ]
    ).T
    s = pack(*parts)
    assert len(set(s.tolist())) == parts.shape[1]
    for got, want in zip(unpack(s), parts, strict=True):
        np.testing.assert_array_equal(got, want)
    assert pack(CUBE_CENTERED, 0, 0, 1, 1) == 0  # state 0 is the 1-away/1-away (DMP) game


def test_cube_rules_of_a_match():
    mode = MatchPlay(length=7)

    def st(owner, crawford, me, opp, level=0):
        return pack(owner, level, crawford, me, opp)

    may = mode.may_double(
        np.array(
            [
                st(CUBE_CENTERED, 0, 5, 3),  # an ordinary game
                st(CUBE_CENTERED, 1, 4, 1),  # the Crawford game: no doubling
                st(CUBE_CENTERED, 0, 4, 1),  # post-Crawford: the trailer doubles
                st(CUBE_THEIRS, 0, 4, 2, 1),  # their cube
                st(CUBE_MINE, 0, 4, 2, 1),  # my cube: redouble
                st(CUBE_CENTERED, 0, 1, 1),  # 1-away each: the cube can change nothing
                st(CUBE_MINE, 0, 7, 7, 3),  # cube 8 at 7-7: any win ends the match (dead)
                st(CUBE_MINE, 0, 4, 3, 2),  # cube 4, 4-away v 3-away: dead
                st(
                    CUBE_MINE, 0, 2, 3, 1
                ),  # cube 2, 2-away v 3-away: a win at 4 ends it for them, at 2 not
                st(CUBE_MINE, 0, 7, 7, 2),  # cube 4 at 7-7: live
            ]
        )
    )
    assert may.tolist() == [True, False, True, False, True, False, False, False, True, True]
    # a dead cube is not doubled even when the values say it gains (noise)
    dead = np.array([st(CUBE_MINE, 0, 7, 7, 3), st(CUBE_MINE, 0, 7, 7, 2)])
    act = mode.cube_action(np.array([0.5, 0.5]), np.array([0.6, 0.6]), dead)
    assert act.double.tolist() == [False, True]
    np.testing.assert_allclose(act.value, [0.5, min(0.6, float(mode.after_game(dead[1:], 4)[0]))])
    # a take hands the cube over doubled; the opponent sees the same state from its side
    taken = mode.after_take(np.array([st(CUBE_CENTERED, 0, 5, 3)]))
    assert [int(x[0]) for x in unpack(taken)] == [CUBE_THEIRS, 1, 0, 5, 3]
    theirs = mode.for_opponent(taken)
    assert [int(x[0]) for x in unpack(theirs)] == [CUBE_MINE, 1, 0, 3, 5]
    assert not MatchPlay().jacoby  # money rules are off in matches


def test_a_finished_game_is_worth_the_met_entry_at_the_new_score():
    mode = MatchPlay()
    s = pack(CUBE_CENTERED, 1, 0, 5, 3)  # cube 2, I need 5, they need 3
    # single win: 2 points -> 3-away vs 3-away; gammon: 4 points -> 1-away: the Crawford game
    got = mode.terminal_values(None, np.array([1, 2, 3]), np.full(3, s))
    assert got.tolist() == [
        0.5,
        0.75076,
        1.0,
    ]  # 1-away v 3-away (Crawford); a backgammon's 6 points win
    # losing: they reach 1-away (Crawford next) or win
    assert mode.after_game(np.array([s, s]), np.array([-2, -4])).tolist() == [MET.mwc(5, 1), 0.0]
    # in the Crawford game and after it, a score at 1-away is post-Crawford
    crawford = pack(CUBE_CENTERED, 0, 1, 1, 4)
    assert mode.after_game(crawford, -1) == pytest.approx(
        1 - 0.32264
    )  # 1-away vs 3-away, post-Crawford
    assert mode.after_game(crawford, 2) == 1.0  # a gammon at 1-away just wins


def test_scorer_values_finished_games_from_the_table():
    mode = MatchPlay()
    torch.manual_seed(0)
    scorer = Scorer(TDNetwork(MATCH_INPUTS, [8], "mwc"), mode)
    b = board({1: 1}, {6: 2})  # my last checker on the 1 point: any roll bears it off
    states = np.array([pack(CUBE_CENTERED, 0, 0, 2, 2), pack(CUBE_THEIRS, 2, 0, 9, 5)])
    for st, want in zip(states, (MET.mwc(1, 2), MET.mwc(5, 5)), strict=True):
        _, offsets, values, _ = scorer.score(b[None], np.array([[6, 5]]), np.array([st]))
        assert values[0] == pytest.approx(want)  # 1 point at cube 1; 4 points at cube 4


def test_cube_node_value_and_target_follow_the_match_rule():
    mode = MatchPlay()
    s = np.array(
        [pack(CUBE_CENTERED, 0, 0, 4, 2)] * 3
    )  # I need 4, they need 2; a drop gives me 3-away v 2
    v_drop = MET.mwc(3, 2)
    act = mode.cube_action(np.array([0.30, 0.30, 0.45]), np.array([0.25, 0.40, 0.40]), s)
    assert act.double.tolist() == [False, True, False]
    assert act.take.tolist() == [True, True, True]  # v_take below v_drop: taking leaves them more
    np.testing.assert_allclose(act.value, [0.30, min(0.40, v_drop), 0.45])
    big = mode.cube_action(np.array([0.3]), np.array([0.9]), s[:1])
    assert big.double[0] and not big.take[0] and big.value[0] == v_drop

    # self-play's cube-node samples carry exactly that value under the network's own estimates
    from tdbg.learn.selfplay import _Recorder

    torch.manual_seed(1)
    sp = SelfPlay(TDNetwork(MATCH_INPUTS, [16], "mwc"), SelfPlaySetup(mode))
    rec = _Recorder(sp, None)
    boards = np.stack(
        [
            board({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2}),
            board({1: 3, 2: 2}, {19: 2, 6: 3}),
        ]
    )
    states = np.array([pack(CUBE_CENTERED, 0, 0, 4, 2), pack(CUBE_MINE, 1, 0, 3, 6)])
    rec.cube(np.arange(2), boards, states)
    v_nd = sp.scorer.state_values(boards, states, np.zeros(2))
    v_take = sp.scorer.state_values(boards, mode.after_take(states), np.zeros(2))
    v_drop = np.array([MET.mwc(3, 2), MET.mwc(1, 6)])  # the doubler wins 1, then 2 points
    np.testing.assert_allclose(
        rec.targets[0], np.maximum(v_nd, np.minimum(v_take, v_drop)), rtol=1e-6
    )
    np.testing.assert_array_equal(rec.feats[0][:, 199], 1.0)  # recorded as cube nodes


# --------------------------------------------------------------------------- whole matches


class FirstMove:
    """First legal move; doubles only against a side at 1-away (post-Crawford, where the
    trailer should) and always takes."""

    match_capable = cube_capable = True
    name = "first-move"

    def __init__(self):
        self.expander = make_expander("auto")
        self.asked = []

    def choose_moves(self, boards, dice, owner=None):
        after, _, offsets = self.expander.expand(boards, dice, encode=False)
        return after[offsets[:-1]].astype(np.int64)

    def double_decisions(self, boards, owner):
        self.asked.extend(np.asarray(owner).tolist())
        return unpack(owner)[4] == 1

    def take_decisions(self, boards, owner):
        return np.ones(len(boards), dtype=bool)


@pytest.mark.parametrize("length", [1, 3, 5])
def test_matches_follow_the_rules(length):
    a, b = FirstMove(), FirstMove()
    recs = play_matches(a, b, range(40), MatchPlay(length=length), seed=3)
    assert [r.index for r in recs] == list(range(40))
    saw_crawford = saw_post_double = False
    for r in recs:
        assert r.winner in (0, 1)
        won = sum(abs(g[0]) for g in r.games if (g[0] > 0) == (r.winner == 0))
        assert won == length  # the winner's points, each capped at what it needed, make the match
        away = [length, length]
        crawford_games = 0
        for pts, result, cube, crawford, a_away, b_away in r.games:
            assert [a_away, b_away] == away
            w = 0 if pts > 0 else 1
            assert abs(pts) == min(result * cube if result else cube, away[w])
            if crawford:
                crawford_games += 1
                assert cube == 1  # no doubling in the Crawford game
                saw_crawford = True
            elif 1 in away and cube > 1:
                saw_post_double = True  # doubling resumes after it
            before = list(away)
            away[w] -= abs(pts)
            became = 1 in away and 1 not in before and max(away) > 0 and min(away) > 0
            if became:
                assert (
                    r.games.index((pts, result, cube, crawford, a_away, b_away)) < len(r.games) - 1
                )
        assert min(away) <= 0
        assert crawford_games <= 1
    if length > 1:
        assert saw_crawford and saw_post_double
    # no cube is ever offered in a Crawford game or at 1-away each
    for st in a.asked + b.asked:
        _, _, crawford, me, opp = unpack(st)
        assert crawford == 0 and not (me == 1 and opp == 1)


def test_duplicate_matches_replay_the_same_dice_with_sides_swapped():
    mode = MatchPlay(length=3)
    recs = play_matches(FirstMove(), FirstMove(), range(4), mode, seed=5)
    # identical deterministic players: match 2k+1 is match 2k with the seats swapped
    for k in (0, 2):
        g0, g1 = recs[k].games, recs[k + 1].games
        assert [(-p, res, c) for p, res, c, *_ in g0] == [(p, res, c) for p, res, c, *_ in g1]
        assert recs[k].winner == 1 - recs[k + 1].winner


def test_match_mode_by_name_and_length_checks():
    assert game_mode("match", match_length=7) == MatchPlay(length=7)
    with pytest.raises(ValueError, match="1 to 25"):
        MatchPlay(length=26)


def _met_file(path, n):
    """The shipped table's first ``n`` rows and columns, as a MET file of an n-point table."""
    row = lambda xs: "<row>" + "".join(f"<me>{x!r}</me>" for x in xs) + "</row>\n"  # noqa: E731
    path.write_text(
        f"<met><info><name>small</name><length>{n}</length></info>\n"
        '<pre-crawford-table type="explicit">\n'
        + "".join(row(r[:n]) for r in MET.pre[:n].tolist())
        + '</pre-crawford-table>\n<post-crawford-table type="explicit" player="both">\n'
        + row(MET.post[:n].tolist())
        + "</post-crawford-table></met>\n"
    )
    return str(path)


def test_a_table_shorter_than_the_scores_played_is_refused_at_once(tmp_path):
    """Length 0 (training without --match-length) plays scores up to 25 away: a 10-point
    table was taken, and the first game beyond it was a ValueError traceback mid-training."""
    small = _met_file(tmp_path / "met10.xml", 10)
    assert MatchPlay(length=10, met=small).met.length == 10  # 10-point matches fit it
    for length in (0, 11):
        with pytest.raises(ValueError, match="stops at 10 away"):
            MatchPlay(length=length, met=small)


# --------------------------------------------------------------------------- command line


@pytest.fixture(scope="module")
def ckpts(tmp_path_factory):
    from tdbg.net.model import new_metadata, save_checkpoint

    d = tmp_path_factory.mktemp("match")
    out = {}
    for name, n, head, mode in (
        ("match", MATCH_INPUTS, "mwc", "match"),
        ("cubeful", 200, "equity", "cubeful-money"),
        ("dmp", 196, "probability", "dmp"),
    ):
        torch.manual_seed(len(name))
        m = TDNetwork(n, [8], head)
        out[name] = str(d / f"{name}.pt")
        save_checkpoint(out[name], m, new_metadata(m, mode))
    bad = d / "bad.xml"
    bad.write_text("<met><pre-crawford-table><row><me>0.5</me></row></pre-crawford-table></met>")
    out["bad_met"] = str(bad)
    return out


def test_play_models_plays_matches(tmp_path, ckpts):
    from helpers import run

    out = tmp_path / "m.json"
    csv_path = tmp_path / "m.csv"
    run(
        "play_models.py",
        "--model1",
        ckpts["match"],
        "--model2",
        ckpts["cubeful"],
        "--game-mode",
        "match",
        "--match-length",
        "3",
        "--games",
        "8",
        "--quiet",
        "--n-bootstrap",
        "1",
        "--json",
        out,
        "--csv",
        csv_path,
        check=True,
    )
    import json
    from tdbg.play.matches import PAIRS

    s = json.loads(out.read_text())
    assert s["matches"] == 8 and s["match_length"] == 3 and s["met"] == "Kazaross-XG2.xml"
    assert s["n_bootstrap"] == 1 and s["resample_unit"] == PAIRS
    text = csv_path.read_text()
    assert "# n_bootstrap: 1\n" in text and f"# resample_unit: {PAIRS}\n" in text
    import hashlib

    for k, name in ((1, "match"), (2, "cubeful")):  # the files that played, by content
        md5 = hashlib.md5(open(ckpts[name], "rb").read()).hexdigest()
        assert f"# model{k}_md5: {md5}\n" in text and s[f"model{k}_md5"] == md5
    rows = [ln.split(",") for ln in text.splitlines() if not ln.startswith("#")][1:]
    assert len(rows) == s["games"] and {int(r[0]) for r in rows} == set(range(8))
    winners = {int(r[0]): int(r[1]) for r in rows}
    w = s["match_win_rate"]
    assert w["mean"] == sum(v == 0 for v in winners.values()) / 8  # counted by hand from the CSV
    assert (
        w["ci_low"] == w["ci_high"]
    )  # one resample has one mean: --n-bootstrap reached the match summary


def _matches(winners):
    """Match records, one 1-point game each, won by ``winners`` (0: A, 1: B)."""
    from tdbg.play.matches import MatchRecord

    return [
        MatchRecord(i, w, 1, games=[(1 if w == 0 else -1, 1, 1, False, 1, 1)])
        for i, w in enumerate(winners)
    ]


def test_match_summary_resamples_the_independent_unit():
    """Matches A, B, A, B: each duplicate pair (0, 1), (2, 3) is one win in two, so every
    resample of pairs averages 0.5 and the paired CI is [0.5, 0.5].  As single matches (gnubg's
    dice) a resample of four is all losses with chance 1/16 = 6.25% and all wins likewise, both
    above the 2.5% tails: the CI is [0, 1]."""
    from tdbg.play.matches import PAIRS, SINGLE, summarize_matches

    paired = summarize_matches(_matches([0, 1, 0, 1]), seed=3)
    assert paired["match_win_rate"] == {"mean": 0.5, "ci_low": 0.5, "ci_high": 0.5}
    assert paired["resample_unit"] == PAIRS and paired["n_bootstrap"] == 2000
    single = summarize_matches(_matches([0, 1, 0, 1]), seed=3, paired=False)
    assert single["match_win_rate"] == {"mean": 0.5, "ci_low": 0.0, "ci_high": 1.0}
    assert (
        single["points_per_game"]["ci_low"] == -1.0 and single["points_per_game"]["ci_high"] == 1.0
    )
    assert single["resample_unit"] == SINGLE


def test_match_summary_honours_n_bootstrap():
    """One resample has one mean, so its 2.5% and 97.5% quantiles coincide; the default
    2000 spread over [0, 1] for the same matches (previous test)."""
    from tdbg.play.matches import summarize_matches

    s = summarize_matches(_matches([0, 1, 0, 1]), seed=3, n_boot=1, paired=False)
    w = s["match_win_rate"]
    assert w["ci_low"] == w["ci_high"] and s["n_bootstrap"] == 1


@pytest.mark.parametrize(
    "args, words",
    [
        (["--game-mode", "match", "--match-length", "26"], "at most 25"),
        (["--game-mode", "match", "--match-length", "0"], "at least 1"),
        (["--game-mode", "cubeful-money", "--match-length", "7"], "match only"),
        (["--game-mode", "match", "--met", "/nonexistent/met.xml"], "no such match equity table"),
        (["--game-mode", "match", "--met", "BAD"], "not a match equity table"),
        (["--model1", "DMP", "--game-mode", "match"], "probability model cannot be used for match"),
        (
            ["--model2", "MATCH", "--game-mode", "cubeful-money"],
            "mwc model cannot be used for cubeful-money",
        ),
        (["--model2", "pubeval", "--game-mode", "match"], "cannot play match play"),
    ],
)
def test_play_models_refuses_bad_match_settings(ckpts, args, words):
    from helpers import assert_one_line_error, run

    args = [
        {"DMP": ckpts["dmp"], "MATCH": ckpts["match"], "BAD": ckpts["bad_met"]}.get(a, a)
        for a in args
    ]
    base = {"--model1": ckpts["match"], "--model2": ckpts["cubeful"]}
    for i in range(0, len(args) - 1):
        if args[i] in base:
            base[args[i]] = args[i + 1]
    rest = [a for i, a in enumerate(args) if a not in base and (i == 0 or args[i - 1] not in base)]
    proc = run(
        "play_models.py",
        "--model1",
        base["--model1"],
        "--model2",
        base["--model2"],
        "--games",
        "2",
        "--quiet",
        *rest,
    )
    assert_one_line_error(proc, words)


@pytest.mark.parametrize(
    "args, words",
    [
        (["--game-mode", "dmp", "--match-length", "3"], "match only"),
        (["--warm-start-match", "CUBEFUL", "--met", "BAD"], "not a match equity table"),
        (["--warm-start-match", "DMP"], "needs a cubeful money model"),
        (["--resume", "MATCH", "--game-mode", "cubeful-money"], "mwc model cannot be used"),
    ],
)
def test_train_batch_refuses_bad_match_settings(tmp_path, ckpts, args, words):
    from helpers import assert_one_line_error, run

    args = [
        {
            "DMP": ckpts["dmp"],
            "MATCH": ckpts["match"],
            "BAD": ckpts["bad_met"],
            "CUBEFUL": ckpts["cubeful"],
        }.get(a, a)
        for a in args
    ]
    proc = run(
        "train_batch.py", *args, "--num-episodes", "10", "--save", tmp_path / "x.pt", "--quiet"
    )
    assert_one_line_error(proc, words)
    assert not (tmp_path / "x.pt").exists()


def test_warm_started_match_model_trains(tmp_path, ckpts):
    from helpers import run
    from tdbg.net.model import load_checkpoint

    save = tmp_path / "m.pt"
    run(
        "train_batch.py",
        "--warm-start-match",
        ckpts["cubeful"],
        "--num-episodes",
        "40",
        "--episodes-per-round",
        "20",
        "--save",
        save,
        "--quiet",
        "--eval-every",
        "2",
        "--eval-games",
        "20",
        check=True,
    )
    model, meta, _ = load_checkpoint(str(save))
    assert (
        meta["game_mode"] == "match"
        and model.output_mode == "mwc"
        and model.n_inputs == MATCH_INPUTS
    )
    log = list(csv.DictReader(open(tmp_path / "m.csv")))
    assert (
        len(log) == 2 and log[-1]["eval_opponent"] == "pubeval"
    )  # the quick eval: 1-away each vs pubeval


def test_warm_start_match_reads_money_equity_as_mwc():
    from tdbg.net.net_growth import warm_start_match

    torch.manual_seed(4)
    money = TDNetwork(200, [16, 8], "equity")
    match = warm_start_match(money)
    x = torch.rand(50, 200)
    extra = torch.rand(50, MATCH_INPUTS - 200)  # the match inputs start with zero weight
    with torch.no_grad():
        e = money(x)
        got = match(torch.cat([x, extra], dim=1))
    torch.testing.assert_close(got, torch.sigmoid(2 * e))


@pytest.mark.parametrize(
    "name, ply0, ply1",
    [
        ("match_256x2.pt", 0.75, 0.95),
        ("match_256x2_outcomes.pt", 0.95, 1.0),
        ("match_256x2_lambda.pt", 0.98, 1.0),
    ],
)
def test_learned_take_decisions_agree_with_the_met(name, ply0, ply1):
    """The released match models' take/drop decisions in last-roll positions (exact answer:
    bear-off odds and the MET, tools/take_points.py) in the clear cases (more than 2% MWC
    from the take point): at 1-ply, where each roll's outcome is scored by the table, and
    at 0-ply, where the mwc-outcomes head reads the table through its payoff inputs."""
    import json
    from helpers import ROOT, run

    proc = run(
        "tools/take_points.py", os.path.join(ROOT, "best_models", name), "--json", check=True
    )
    res = json.loads(proc.stdout.splitlines()[-1])
    assert res["cases"] == 270 and res["ply1"]["clear_cases"] > 200
    assert res["ply1"]["take_agreement_clear"] >= ply1, res["ply1"]["wrong_takes"]
    assert res["ply0"]["take_agreement_clear"] >= ply0, res["ply0"]["wrong_takes"]


@pytest.mark.parametrize("name", ["cubeful_256x2.pt", "dmp_128x2.pt", "gnubg-nn"])
def test_take_points_of_another_model_are_one_line(name):
    """tools/take_points.py asks a match model's doubles and takes by the score: any other
    model (a cubeful money one raised an AttributeError: it plays a match by its money rules)
    or a named player is one error line."""
    from helpers import ROOT, assert_one_line_error, run

    path = name if name == "gnubg-nn" else os.path.join(ROOT, "best_models", name)
    assert_one_line_error(
        run("tools/take_points.py", path), "take points are those of a match-play model"
    )


@pytest.mark.parametrize("mode_name", ["cubeful-money", "match"])
def test_cube_exploration_visits_doubles_and_takes_but_keeps_greedy_targets(mode_name):
    from tdbg.learn.selfplay import _Recorder

    mode = game_mode(mode_name)
    torch.manual_seed(2)
    model = TDNetwork(mode.n_inputs, [16], mode.outputs[0])
    boards = np.stack([board({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})] * 6)
    states = (
        mode.initial_states(6, np.random.default_rng(0))
        if mode.is_match
        else np.zeros(6, dtype=np.int64)
    )
    from tdbg.learn.stage_settings import Acting

    greedy = _Recorder(SelfPlay(model, SelfPlaySetup(mode)), None, np.random.default_rng(1))
    always = _Recorder(
        SelfPlay(model, SelfPlaySetup(mode, acting=Acting(cube_explore=1.0))),
        None,
        np.random.default_rng(1),
    )
    g_double, g_take = greedy.cube(np.arange(6), boards, states)
    a_double, a_take = always.cube(np.arange(6), boards, states)
    assert a_double.all() and a_take.all()  # every branch visited
    np.testing.assert_array_equal(
        always.targets[0], greedy.targets[0]
    )  # targets: the greedy rule's value
    assert always.stats["drops"] == 0 and always.stats["doubles"] == 6


def test_turned_cube_starts_only_where_the_doubler_could_have_doubled():
    mode = MatchPlay(length=0)
    plain = mode.initial_states(4000, np.random.default_rng(3))
    again = mode.initial_states(4000, np.random.default_rng(3), turned=0.0)
    np.testing.assert_array_equal(plain, again)  # off: the stream and the states as before
    own, level, crawford, me, opp = unpack(
        mode.initial_states(4000, np.random.default_rng(3), turned=1.0)
    )
    dead = (crawford == 1) | ((me == 1) & (opp == 1))
    assert dead.any() and (~dead).sum() > 3000
    assert (own[dead] == CUBE_CENTERED).all() and (level[dead] == 0).all()  # no cube in these games
    live = ~dead
    turned = live & (level > 0)
    assert set(own[turned]) == {CUBE_MINE, CUBE_THEIRS} and set(level[turned]) == {1, 2}
    doubler_away = np.where(own == CUBE_MINE, opp, me)
    assert (doubler_away[turned] > 1).all()  # a side at 1-away never doubled
    # the double that turned it was live: the cube before it was below one side's need
    before = 1 << (level - 1)
    assert ((before[turned] < me[turned]) | (before[turned] < opp[turned])).all()
    # left centred: only games whose cube 4 would have come from a dead cube 2 (both 2-away or less)
    left = live & (level == 0)
    assert ((me[left] <= 2) & (opp[left] <= 2)).all() and left.sum() < 0.05 * live.sum()
    assert (
        0.72 < (level[turned] == 1).mean() < 0.82
    )  # cube 2 three times in four, else 4 (less the dead)
    _, _, _, me2, opp2 = unpack(plain)
    np.testing.assert_array_equal(me, me2)  # the same spread of scores
    own3, _, crawford3, me3, opp3 = unpack(
        mode.initial_states(4000, np.random.default_rng(5), turned=0.3)
    )
    live3 = (crawford3 == 0) & ((me3 > 1) | (opp3 > 1))
    assert 0.25 < (own3[live3] != CUBE_CENTERED).mean() < 0.35


def test_turned_cube_starts_reach_self_play_and_are_refused_outside_match_play(
    tmp_path, ckpts, monkeypatch
):
    from helpers import assert_one_line_error, run
    from tdbg.learn.stage_settings import Acting

    mode = MatchPlay(length=5)
    torch.manual_seed(3)
    model = TDNetwork(mode.n_inputs, [8], "mwc")
    from tdbg.game import turns

    started = []
    real_new_games = turns.Table.new_games
    monkeypatch.setattr(
        turns.Table,
        "new_games",
        lambda self, slots, states: started.append(states) or real_new_games(self, slots, states),
    )
    SelfPlay(
        model,
        SelfPlaySetup(
            mode, replace(FP32_COLLECTION, parallel_games=10), acting=Acting(cube_start=1.0)
        ),
    ).collect(30, np.random.default_rng(0))
    own, level, crawford, me, opp = unpack(np.concatenate(started))
    assert len(own) == 30  # every game of the run, refills included
    live = (crawford == 0) & ((me > 1) | (opp > 1))
    assert live.sum() > 15 and (own[live] != CUBE_CENTERED).all() and (level[live] >= 1).all()
    with pytest.raises(ValueError, match="applies to match play"):
        SelfPlay(
            TDNetwork(200, [8], "equity"),
            SelfPlaySetup(game_mode("cubeful-money"), acting=Acting(cube_start=0.5)),
        )
    proc = run(
        "train_batch.py",
        "--resume",
        ckpts["cubeful"],
        "--game-mode",
        "cubeful-money",
        "--cube-start",
        "0.3",
        "--num-episodes",
        "10",
        "--save",
        tmp_path / "x.pt",
        "--quiet",
    )
    assert_one_line_error(proc, "applies to match play")
    assert not (tmp_path / "x.pt").exists()


# --------------------------------------------------------------------------- the mwc-outcomes head


def test_outcome_head_weighs_outcome_chances_by_the_payoffs_by_hand():
    torch.manual_seed(5)
    net = TDNetwork(MATCH_INPUTS, [8], "mwc-outcomes")
    x = torch.rand(6, MATCH_INPUTS)
    got = net(x).detach().numpy()
    w1, b1 = net.layers[0].weight.detach().numpy(), net.layers[0].bias.detach().numpy()
    wh, bh = net.head.weight.detach().numpy(), net.head.bias.detach().numpy()
    xs = x.numpy()
    s = 1 / (1 + np.exp(-(np.maximum(xs @ w1.T + b1, 0) @ wh.T + bh)))
    for r in range(6):
        win, wg = s[r, 0], s[r, 0] * s[r, 1]
        wbg = wg * s[r, 2]
        lg = (1 - win) * s[r, 3]
        lbg = lg * s[r, 4]
        pay = xs[r, 200:206]  # win 1, 2, 3 points; lose 1, 2, 3 points
        want = (
            (win - wg) * pay[0]
            + (wg - wbg) * pay[1]
            + wbg * pay[2]
            + (1 - win - lg) * pay[3]
            + (lg - lbg) * pay[4]
            + lbg * pay[5]
        )
        assert abs(got[r] - want) < 1e-5
    assert np.all((got > 0) & (got < 1))  # payoffs in [0, 1]: a weighted mean of them


def test_outcome_head_converts_a_match_model_and_scores_incrementally():
    from tdbg.net.net_growth import warm_start_match

    torch.manual_seed(6)
    old = TDNetwork(MATCH_INPUTS, [16], "mwc")
    new = warm_start_match(old, head="mwc-outcomes")
    assert new.output_mode == "mwc-outcomes" and new.head.out_features == 5
    mode = MatchPlay(length=7)
    b = np.stack(
        [
            board({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2}),
            board({1: 3, 2: 2}, {19: 2, 20: 3}),
        ]
    )
    dmp_like = np.full(2, pack(CUBE_CENTERED, 0, 0, 1, 1))  # every win worth 1, every loss 0
    np.testing.assert_allclose(
        Scorer(new, mode).state_values(b, dmp_like, np.zeros(2)),
        Scorer(old, mode).state_values(b, dmp_like, np.zeros(2)),
        atol=1e-6,
    )
    states = np.array([pack(CUBE_CENTERED, 0, 0, 4, 2), pack(CUBE_THEIRS, 1, 0, 2, 4)])
    dice = np.array([[3, 1], [6, 5]])
    dense = Scorer(new, mode, scoring=ScoringSettings(first_layer="dense")).score(b, dice, states)
    incremental = Scorer(new, mode, scoring=ScoringSettings(first_layer="incremental")).score(
        b, dice, states
    )
    np.testing.assert_array_equal(dense[1], incremental[1])
    np.testing.assert_allclose(dense[2], incremental[2], atol=1e-5)
    with pytest.raises(ValueError, match="payoff inputs"):
        new.from_first_hidden(torch.zeros(1, 16))


def test_train_and_play_with_the_outcome_head(tmp_path, ckpts):
    from helpers import assert_one_line_error, run
    from tdbg.net.model import load_checkpoint

    save = tmp_path / "o.pt"
    run(
        "train_batch.py",
        "--warm-start-match",
        ckpts["cubeful"],
        "--match-head",
        "mwc-outcomes",
        "--num-episodes",
        "40",
        "--episodes-per-round",
        "20",
        "--save",
        save,
        "--quiet",
        check=True,
    )
    model, meta, _ = load_checkpoint(str(save))
    assert (
        meta["game_mode"] == "match"
        and model.output_mode == "mwc-outcomes"
        and model.head.out_features == 5
    )
    out = tmp_path / "m.json"
    run(
        "play_models.py",
        "--model1",
        save,
        "--model2",
        ckpts["match"],
        "--game-mode",
        "match",
        "--match-length",
        "3",
        "--games",
        "4",
        "--quiet",
        "--json",
        out,
        check=True,
    )
    assert '"matches": 4' in out.read_text()
    for args, words in (
        (
            ["--resume", ckpts["match"], "--match-head", "mwc-outcomes"],
            "goes with --warm-start-match",
        ),
        (
            ["--warm-start-match", ckpts["dmp"], "--match-head", "mwc-outcomes"],
            "an mwc match model",
        ),
    ):
        proc = run(
            "train_batch.py", *args, "--num-episodes", "10", "--save", tmp_path / "x.pt", "--quiet"
        )
        assert_one_line_error(proc, words)
        assert not (tmp_path / "x.pt").exists()


@pytest.mark.parametrize("mode_name", ["cubeful-money", "match"])
def test_cube_hold_rolls_on_where_the_rule_doubles_and_keeps_greedy_targets(mode_name, monkeypatch):
    """--cube-hold 1: wherever the rule doubles, the mover rolls on instead; where it does not,
    nothing changes; the node's target is the greedy rule's value either way; a lambda trace
    is cut where the held double was the greedy action.  --take-explore 1: every double is
    taken, also where the rule drops, with the same greedy targets."""
    from tdbg.game.cube import CubeAction
    from tdbg.learn.selfplay import _Recorder
    from tdbg.learn.stage_settings import Acting

    mode = game_mode(mode_name)
    torch.manual_seed(2)
    model = TDNetwork(mode.n_inputs, [16], mode.outputs[0])
    boards = np.stack([board({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})] * 6)
    states = (
        mode.initial_states(6, np.random.default_rng(0))
        if mode.is_match
        else np.zeros(6, dtype=np.int64)
    )
    rule = np.array(
        [True, False, True, True, False, True]
    )  # where "the rule" doubles, by construction
    real = type(mode).cube_action
    monkeypatch.setattr(
        type(mode),
        "cube_action",
        lambda self, nd, tk, st=None: CubeAction(
            rule.copy(), np.ones(6, bool), real(self, nd, tk, st).value
        ),
    )
    greedy = _Recorder(SelfPlay(model, SelfPlaySetup(mode)), None, np.random.default_rng(1))
    hold = _Recorder(
        SelfPlay(model, SelfPlaySetup(mode, acting=Acting(cube_hold=1.0, td_lambda=0.5))),
        None,
        np.random.default_rng(1),
    )
    hold.table = type(
        "T", (), {"ply": np.zeros(6, dtype=np.int64)}
    )()  # what a trace reads of the table
    hold.game_of_slot = np.arange(6)
    g_double, _ = greedy.cube(np.arange(6), boards, states)
    h_double, _ = hold.cube(np.arange(6), boards, states)
    np.testing.assert_array_equal(g_double, rule)
    assert not h_double.any() and hold.stats["doubles"] == 0
    np.testing.assert_array_equal(hold.targets[0], greedy.targets[0])
    np.testing.assert_array_equal(hold.cuts[0], rule)  # the trace stops at each held double
    half = _Recorder(
        SelfPlay(model, SelfPlaySetup(mode, acting=Acting(cube_hold=0.5))),
        None,
        np.random.default_rng(1),
    )
    held = sum(int((~half.cube(np.arange(6), boards, states)[0] & rule).sum()) for _ in range(200))
    assert 300 < held < 500  # about half of the 4 x 200 doubles the rule asked for
    # --take-explore 1: every double is taken, where the rule takes (here: 2, 4) and where it drops
    drops = np.array([False, True, False, True, True, True])
    monkeypatch.setattr(
        type(mode),
        "cube_action",
        lambda self, nd, tk, st=None: CubeAction(
            np.ones(6, bool), ~drops, real(self, nd, tk, st).value
        ),
    )
    takes = _Recorder(
        SelfPlay(model, SelfPlaySetup(mode, acting=Acting(take_explore=1.0))),
        None,
        np.random.default_rng(1),
    )
    double, take = takes.cube(np.arange(6), boards, states)
    assert double.all() and take.all() and takes.stats["drops"] == 0
    np.testing.assert_array_equal(takes.targets[0], greedy.targets[0])


def test_cube_hold_and_take_explore_are_refused_without_a_cube(tmp_path):
    from helpers import assert_one_line_error, run
    from tdbg.learn.stage_settings import Acting

    with pytest.raises(ValueError, match="applies to modes with a cube"):
        SelfPlay(
            TDNetwork(196, [8], "probability"),
            SelfPlaySetup(game_mode("dmp"), acting=Acting(cube_hold=0.5)),
        )
    with pytest.raises(ValueError, match="applies to modes with a cube"):
        SelfPlay(
            TDNetwork(196, [8], "probability"),
            SelfPlaySetup(game_mode("dmp"), acting=Acting(take_explore=0.5)),
        )
    proc = run(
        "train_batch.py",
        "--hidden",
        "8",
        "--cube-hold",
        "0.3",
        "--num-episodes",
        "10",
        "--save",
        tmp_path / "x.pt",
        "--quiet",
    )
    assert_one_line_error(proc, "applies to modes with a cube")
    assert not (tmp_path / "x.pt").exists()


def test_a_table_written_as_xml_allows_reads_as_the_same_table(tmp_path):
    """Blanks inside an element's tags, an attribute on it, or single quotes around
    type='explicit' are XML that gnubg's reader takes; the fixed patterns counted ``<me >`` as
    no entry (the table "not square") and refused the quotes ("only explicit tables")."""
    text = open(DEFAULT_MET).read()
    assert text.count('type="explicit"') == 2 and "<me>" in text and "<row>" in text
    edited = (
        text.replace('type="explicit"', "type='explicit'")
        .replace("<me>", "<me >", 5)
        .replace("</me>", "</me\n>", 5)
        .replace("<row>", '<row n="1">', 1)
        .replace("</row>", "</row >", 1)
        .replace("<length>", "<length >", 1)
    )
    path = tmp_path / "m.xml"
    path.write_text(edited)
    shipped, read = load_met(DEFAULT_MET), load_met(str(path))
    assert np.array_equal(read.pre, shipped.pre) and np.array_equal(read.post, shipped.post)
    # a tag whose name only begins with the element's is another element
    path.write_text(text.replace("<me>", "<meta>", 1).replace("</me>", "</meta>", 1))
    with pytest.raises(METError, match="not square"):
        load_met(str(path))
