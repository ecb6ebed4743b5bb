"""The figures (tdbg/app/cube_curve_plot.py, training_plot.py, eval_curve_plot.py) drawn on the
Agg canvas from data written here: each axis's label and unit, the values plotted in that unit
(worked out by hand from the fractions given), and the checks of the files read."""

import json
import warnings

import pytest
from matplotlib.transforms import Bbox
from PIL import Image

from tdbg.app import cli, cube_curve_plot, eval_curve_plot, training_plot
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint

# ---- the cube curve ----

CUBE_ROWS = [  # two runs, their rows out of order
    {
        "run": "b",
        "episodes": 20000,
        "ownership_gap": -0.004,
        "dropped_takes": 7,
        "gnubg_takes": 120,
        "double_agrees": 0.9,
    },
    {
        "run": "a",
        "episodes": 20000,
        "ownership_gap": 0.012,
        "dropped_takes": 30,
        "gnubg_takes": 120,
        "double_agrees": 0.75,
    },
    {
        "run": "a",
        "episodes": 10000,
        "ownership_gap": 0.025,
        "dropped_takes": 41,
        "gnubg_takes": 120,
        "double_agrees": 0.625,
    },
]


def test_cube_curve_rows_read_back_as_written(tmp_path):
    path = str(tmp_path / "cube.csv")
    cube_curve_plot.write_rows(CUBE_ROWS, path)
    assert cube_curve_plot.read_rows(path) == CUBE_ROWS


@pytest.mark.parametrize(
    "text, words",
    [
        ("run,episodes,ownership_gap\na,1,0.1\n", "is not a cube-curve CSV (no dropped_takes, "),
        (
            "run,episodes,ownership_gap,dropped_takes,gnubg_takes,double_agrees\na,x,0.1,1,2,0.5\n",
            "a row that is not numbers",
        ),
    ],
)
def test_a_file_that_is_no_cube_curve_is_one_usage_error(tmp_path, text, words):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(cli.UsageError) as info:
        cube_curve_plot.read_rows(str(path))
    assert words in str(info.value)


def test_the_cube_curve_is_in_points_of_percent_against_thousands_of_episodes(tmp_path):
    out = tmp_path / "cube.png"
    shown = cube_curve_plot.plot(CUBE_ROWS, str(out), "t")
    # run a's rows sorted by episodes: gap 0.025, 0.012 of MWC -> 2.5, 1.2 points; agrees 62.5, 75%
    assert shown["series"]["a"] == {
        "episodes": [10000, 20000],
        "ownership_gap": [pytest.approx(2.5), pytest.approx(1.2)],
        "dropped_takes": [41, 30],
        "double_agrees": [62.5, 75.0],
    }
    assert shown["series"]["b"]["ownership_gap"] == [pytest.approx(-0.4)]
    assert shown["ylabels"] == [
        "ownership gap, match-winning chances, % points\n(0 = gnubg's)",
        "gnubg's 120 takes the model drops",
        "double / no double agrees with gnubg, %",
    ]
    assert shown["xlabel"] == "episodes in the stage (thousands)"
    fig, _ = cube_curve_plot.figure(CUBE_ROWS, "t")
    (line,) = [ln for ln in fig.axes[0].lines if ln.get_label() == "a"]
    assert list(line.get_xdata()) == [10.0, 20.0]  # thousands
    # the PNG carries what it shows
    assert json.loads(Image.open(out).text[cube_curve_plot.PNG_KEY]) == shown


# ---- a training log ----

LOG_HEAD = "total_episodes,loss,lr,episodes_per_s,gammon_rate,eval_opponent,eval_result,eval_ci_low,eval_ci_high\n"


def _log(tmp_path, rows: str, name: str = "run.csv") -> str:
    path = tmp_path / name
    path.write_text(LOG_HEAD + rows)
    return str(path)


def test_the_moving_average_by_hand():
    # 1; 0.9 x 1 + 0.1 x 2 = 1.1; 0.9 x 1.1 + 0.1 x 3 = 1.29
    assert training_plot.smooth([1.0, 2.0, 3.0]) == pytest.approx([1.0, 1.1, 1.29])
    assert training_plot.smooth([4.0, 0.0], alpha=0.5) == [4.0, 2.0]


@pytest.mark.parametrize(
    "rows, words",
    [
        ("100,x,0.001,50,0.1,,,,\n", "line 2 is not a row of a training log (loss 'x')"),
        (
            "100,0.1,0.001,50,0.1,,,,\n-5,0.1,0.001,50,0.1,,,,\n",
            "line 3 is not a row of a training log (total_episodes '-5')",
        ),
        ("100,0.1,0.001,fast,0.1,,,,\n", "(episodes_per_s 'fast')"),
    ],
)
def test_a_row_that_is_not_a_training_logs_is_one_usage_error(tmp_path, rows, words):
    with pytest.raises(cli.UsageError) as info:
        training_plot.read_log(_log(tmp_path, rows))
    assert words in str(info.value)


def test_a_blank_learning_rate_is_read_and_a_log_without_the_columns_is_not(tmp_path):
    assert len(training_plot.read_log(_log(tmp_path, "100,0.1,,50,0.1,,,,\n"))) == 1
    other = tmp_path / "other.csv"
    other.write_text("total_episodes,loss\n1,0.2\n")
    with pytest.raises(
        cli.UsageError, match="is not a training log \\(no lr, episodes_per_s column\\)"
    ):
        training_plot.read_log(str(other))


ROWS = [
    {
        "total_episodes": "100",
        "loss": "0.04",
        "lr": "0.001",
        "episodes_per_s": "50",
        "gammon_rate": "0.2",
        "eval_opponent": "",
        "eval_result": "",
        "eval_ci_low": "",
        "eval_ci_high": "",
    },
    {
        "total_episodes": "200",
        "loss": "0.02",
        "lr": "0.001",
        "episodes_per_s": "60",
        "gammon_rate": "0.25",
        "eval_opponent": "pubeval",
        "eval_result": "0.55",
        "eval_ci_low": "0.5",
        "eval_ci_high": "0.6",
    },
]


def test_a_dmp_log_plots_its_evaluations_as_a_win_rate():
    fig, shown = training_plot.figure(ROWS, "run", {"game_mode": "dmp"})
    assert shown["title"] == "run; constant lr 0.001"  # a constant lr: in the title, not a panel
    assert shown["ylabels"] == [
        "loss (MSE)",
        "episodes/s",
        "gammon rate (self-play)",
        "win rate vs pubeval, % (95% CI)",
    ]
    assert shown["xlabel"] == "episodes (model total)"
    ev = shown["evaluation"]
    assert (ev["unit"], ev["episodes"], ev["y"]) == ("win-rate", [200.0], [pytest.approx(55.0)])
    even = [ln for ln in fig.axes[3].lines if ln.get_label() == "50.00% (even)"]
    assert len(even) == 1 and list(even[0].get_ydata()) == [50.0, 50.0]


def test_a_changing_learning_rate_gets_its_panel_and_millions_of_episodes_their_axis():
    rows = [dict(ROWS[0], lr="0.001"), dict(ROWS[1], lr="0.0005", total_episodes="2000000")]
    _, shown = training_plot.figure(rows, "run", {"game_mode": "dmp"})
    assert shown["title"] == "run" and shown["ylabels"][2] == "learning rate"
    assert shown["xlabel"] == "episodes, millions (model total)"


def test_cubeful_money_against_a_cube_opponent_is_capped_equity():
    rows = [dict(r, eval_opponent="gnubg-nn-cubeful" if r["eval_opponent"] else "") for r in ROWS]
    rows[1].update(eval_result="-0.0125")
    _, shown = training_plot.figure(rows, "run", {"game_mode": "cubeful-money"})
    ev = shown["evaluation"]
    assert ev["unit"] == "meq" and ev["y"] == [pytest.approx(-12.5)]  # 1000 x -0.0125
    assert ev["ylabel"] == "mEq/game vs gnubg-nn-cubeful\n(capped at +-128, 95% CI)"


def test_without_a_checkpoint_the_logged_value_is_drawn_as_it_is(tmp_path):
    log = _log(tmp_path, "200,0.02,0.001,60,0.25,pubeval,0.55,0.5,0.6\n")
    assert training_plot.run_info(log) is None
    shown = training_plot.draw(log, str(tmp_path / "run.png"))
    assert shown["title"] == "run.csv; constant lr 0.001"
    assert shown["evaluation"]["unit"] is None and shown["evaluation"]["y"] == [0.55]
    assert (
        shown["evaluation"]["ylabel"] == "logged result vs pubeval (no checkpoint beside the log)"
    )


def test_the_checkpoint_beside_the_log_names_the_run(tmp_path):
    log = _log(tmp_path, "200,0.02,0.001,60,0.25,pubeval,0.55,0.5,0.6\n")
    model = TDNetwork(196, [8, 4])
    meta = {**new_metadata(model, "dmp"), "episodes": 12345}
    save_checkpoint(str(tmp_path / "run.pt"), model, meta)
    info = training_plot.run_info(log)
    assert info["name"] == "run.pt" and info["game_mode"] == "dmp"
    assert training_plot.run_title(log, info) == "run.pt: dmp probability [8,4], 12,345 episodes"
    # the checkpoint's mode: the evaluations are a win rate, even at 50%
    assert training_plot.eval_axis(training_plot.read_log(log), info) == (
        "win-rate",
        "win rate vs pubeval, % (95% CI)",
        50.0,
    )


# ---- the evaluation curve of a chain ----


def point(stage, episodes, cpu, result, low, high, opponent="gnubg-nn", old=False):
    return {
        "stage": stage,
        "episodes": episodes,
        "cpu_hours": cpu,
        "result": result,
        "low": low,
        "high": high,
        "opponent": opponent,
        "old_agent": old,
    }


def final(episodes, cpu, result, low, high, opponent="gnubg-nn", mode="dmp", metric="win_rate"):
    return {
        "episodes": episodes,
        "cpu_hours": cpu,
        "result": result,
        "low": low,
        "high": high,
        "games": 10000,
        "opponent": opponent,
        "source": "f.csv",
        "metric": metric,
        "game_mode": mode,
    }


POINTS = [point("s1", 1000, 0.5, 0.40, 0.35, 0.45), point("s1", 2000, 1.0, 0.46, 0.41, 0.51)]


def test_a_chain_is_drawn_in_percent_against_episodes_and_cpu_hours():
    finals = [final(2000, 1.0, 0.485, 0.475, 0.495)]
    fig, shown = eval_curve_plot.figure(POINTS, "chain", 0.5, finals, "win-rate")
    assert shown["ylabel"] == "win rate vs gnubg-nn, % (95% CI)"
    assert shown["xlabels"] == ["episodes", "CPU-hours"]
    assert shown["series"]["s1"]["y"] == [pytest.approx(40.0), pytest.approx(46.0)]
    (f,) = shown["finals"]
    assert f["y"] == pytest.approx(48.5) and f["label"] == "48.50%"
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["s1", "checkpoints, 10,000 games", "target 50.00%"]
    # against CPU-hours, the same results at 0.5 and 1.0 hours
    assert list(fig.axes[1].lines[0].get_xdata()) == [0.5, 1.0]


def test_money_in_meq_and_several_opponents_in_the_legend():
    points = [
        point("m1", 3e6, 10.0, -0.1024, -0.12, -0.08, opponent="gnubg-nn"),
        point("m2", 4e6, 12.0, -0.05, -0.07, -0.03, opponent="pubeval"),
    ]
    fig, shown = eval_curve_plot.figure(points, "money", None, (), "meq")
    assert shown["ylabel"] == "mEq/game (95% CI)"  # no one opponent to name on the axis
    assert shown["xlabels"] == ["episodes (millions)", "CPU-hours"]
    assert shown["series"]["m1"]["y"] == [pytest.approx(-102.4)]
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["m1 (vs gnubg-nn)", "m2 (vs pubeval)"]


def test_value_labels_stay_inside_their_axes_and_apart():
    """Two finals a few episodes apart: their labels neither overlap nor leave the axes."""
    finals = [final(2000, 1.0, 0.485, 0.475, 0.495), final(2010, 1.01, 0.49, 0.48, 0.50)]
    fig, shown = eval_curve_plot.figure(POINTS, "chain", None, finals, "win-rate")
    renderer = fig.canvas.get_renderer()
    for ax, label in zip(fig.axes, shown["xlabels"], strict=True):
        frame = ax.get_window_extent(renderer)
        boxes = [Bbox.from_extents(*b) for b in shown["label_boxes"][label]]
        assert len(boxes) == 2 and not boxes[0].overlaps(boxes[1])
        assert all(frame.y0 - 0.5 <= b.y0 and b.y1 <= frame.y1 + 0.5 for b in boxes)


def test_the_unit_of_the_chain(tmp_path):
    assert eval_curve_plot.chain_unit([final(1, 1, 0.5, 0.4, 0.6, mode="match")], []) == "mwc"
    with pytest.raises(cli.UsageError, match="game modes that plot in different units"):
        eval_curve_plot.chain_unit(
            [
                final(1, 1, 0.5, 0.4, 0.6, mode="dmp"),
                final(1, 1, 0.1, 0, 0.2, mode="cubeful-money"),
            ],
            [],
        )
    # no result file: the mode of the checkpoint beside the last log, else none
    log = _log(tmp_path, "200,0.02,0.001,60,0.25,pubeval,0.55,0.5,0.6\n")
    assert eval_curve_plot.chain_unit([], [log]) is None
    model = TDNetwork(196, [8])
    save_checkpoint(str(tmp_path / "run.pt"), model, new_metadata(model, "dmp"))
    assert eval_curve_plot.chain_unit([], [log]) == "win-rate"


@pytest.mark.parametrize(
    "capped, metric, mean", [(False, "points", -63.0), (True, "capped", -31.0)]
)
def test_a_cubeful_stage_result_is_capped_when_asked(tmp_path, capped, metric, mean):
    """Games of +1, -256, +2 and +1 points: a mean of -252 / 4 = -63; capped at 128 a game,
    -124 / 4 = -31."""
    path = tmp_path / "final.csv"
    path.write_text(
        "# seed: 1\n# game_mode: cubeful-money\n# model2: gnubg-nn-cubeful\n"
        "game,points\n0,1\n1,-256\n2,2\n3,1\n"
    )
    ends = [{"stage": "s1", "episodes": 2000.0, "cpu_hours": 1.0, "marks": []}]
    (f,) = eval_curve_plot.final_results([str(path)], ends, capped=capped)
    assert (f["metric"], f["result"], f["games"]) == (metric, mean, 4)
    assert (f["episodes"], f["cpu_hours"], f["opponent"]) == (2000.0, 1.0, "gnubg-nn-cubeful")


def test_a_file_that_is_no_result_file_is_one_usage_error(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("not, a result file\n")
    ends = [{"stage": "s1", "episodes": 2000.0, "cpu_hours": 1.0, "marks": []}]
    with pytest.raises(cli.UsageError, match="not a per-game result file"):
        eval_curve_plot.final_results([str(bad)], ends)


def test_result_files_of_another_unit_than_the_logs_are_refused(tmp_path):
    """A DMP result file as --final-results of a money chain drew the logs' points per game as a
    win rate (-0.312 as -31%): the logs' mode (the checkpoint beside the last log) must agree."""
    log = _log(tmp_path, "200,0.02,0.001,60,0.25,gnubg-nn,-0.3,-0.4,-0.2\n")
    model = TDNetwork(196, [8], "equity")  # (cubeless money plays an equity head)
    save_checkpoint(str(tmp_path / "run.pt"), model, new_metadata(model, "cubeless-money"))
    with pytest.raises(cli.UsageError, match="plot in different units"):
        eval_curve_plot.chain_unit([final(1, 1, 0.5, 0.4, 0.6, mode="dmp")], [log])
    money = final(1, 1, 0.1, 0.0, 0.2, mode="cubeful-money")
    assert eval_curve_plot.chain_unit([money], [log]) == "meq"  # both in mEq


def test_a_log_number_or_episodes_is_read_as_every_number_on_the_command_line(tmp_path):
    """int() and float() took `1_0` as 10 and a fullwidth `１` as log 1, and `-inf` episodes
    placed a checkpoint's result at the first row; --old-agent-logs beyond the logs was taken."""
    log = _log(tmp_path, "200,0.02,0.001,60,0.25,gnubg-nn,0.55,0.5,0.6\n")
    _, ends = eval_curve_plot.load_chain([log])
    for spec in ("１:100:x.csv", "1:-inf:x.csv", "1:nan:x.csv", "1:1_0:x.csv"):
        with pytest.raises(cli.UsageError, match="expected LOG_NUMBER:STAGE_EPISODES:CSV"):
            eval_curve_plot.checkpoint_results([spec], ends)
    with pytest.raises(cli.UsageError, match="expected LOG_NUMBER:EARLIER_LOG_NUMBER"):
        eval_curve_plot.continues_arg(["２:1"], 2)
    args = eval_curve_plot.parser().parse_args([log, "-o", str(tmp_path / "x.png")])
    args.old_agent_logs = 2
    with pytest.raises(cli.UsageError, match="--old-agent-logs 2: there are 1 logs"):
        eval_curve_plot.load(args)


def test_a_unit_named_against_the_results_mode_is_refused(tmp_path):
    """--unit meq with a DMP result file drew its win rate of 0.65 as +650 mEq/game."""
    log = _log(tmp_path, "200,0.02,0.001,60,0.25,gnubg-nn,0.55,0.5,0.6\n")
    model = TDNetwork(196, [8])
    save_checkpoint(str(tmp_path / "run.pt"), model, new_metadata(model, "dmp"))
    args = eval_curve_plot.parser().parse_args(
        [log, "-o", str(tmp_path / "x.png"), "--unit", "meq"]
    )
    points, finals = eval_curve_plot.load(args)
    with pytest.raises(cli.UsageError, match="--unit meq: .* plot in win-rate"):
        eval_curve_plot.build(args, points, finals)
    args.unit = "win-rate"
    with warnings.catch_warnings():  # (one log row and no CPU-hours: an empty legend)
        warnings.simplefilter("ignore")
        assert eval_curve_plot.build(args, points, finals)[1]["ylabel"].startswith("win rate")


def test_evaluations_that_are_no_rate_are_refused_in_a_rate_unit(tmp_path):
    """A money log (evaluations in points, -0.3) with no checkpoint beside it and a DMP result
    file took the file's unit: its evaluations were drawn as a win rate of -30%."""
    log = _log(tmp_path, "200,0.02,0.001,60,0.25,gnubg-nn,-0.3,-0.4,-0.2\n")
    args = eval_curve_plot.parser().parse_args([log, "-o", str(tmp_path / "x.png")])
    points, _ = eval_curve_plot.load(args)
    with pytest.raises(cli.UsageError, match="an evaluation of -0.3 .* is no rate"):
        eval_curve_plot.build(args, points, [final(1, 1, 0.5, 0.4, 0.6, mode="dmp")])
    args.unit = "meq"
    with warnings.catch_warnings():  # (one log row and no CPU-hours: an empty legend)
        warnings.simplefilter("ignore")
        assert eval_curve_plot.build(args, points, [])[1]["ylabel"].startswith("mEq")
