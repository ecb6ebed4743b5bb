import pytest

from helpers import assert_one_line_error, run


def test_plot_from_log(tmp_path):
    log = tmp_path / "run.csv"
    log.write_text(
        "round,total_episodes,loss,lr,episodes_per_s,eval_opponent,eval_result,eval_ci_low,eval_ci_high\n"
        "1,100,0.01,0.001,50,,,,\n2,200,0.008,0.001,55,pubeval,0.3,0.25,0.35\n"
    )
    proc = run("tools/plot_training.py", log, check=True)
    png = tmp_path / "run.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert str(png) in proc.stdout


def test_bad_logs(tmp_path):
    assert_one_line_error(run("tools/plot_training.py", tmp_path / "missing.csv"), "cannot read")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    assert_one_line_error(run("tools/plot_training.py", bad), "not a training log")


def test_eval_curve_over_a_chain(tmp_path):
    a, b = tmp_path / "s1.csv", tmp_path / "s2.csv"
    head = "round,total_episodes,loss,lr,cpu_hours,eval_opponent,eval_result,eval_ci_low,eval_ci_high\n"
    a.write_text(
        head
        + "1,100,0.01,0.001,0.1,gnubg-nn,0.2,0.15,0.25\n2,200,0.01,0.001,0.2,gnubg-nn,0.3,0.25,0.35\n"
    )
    b.write_text(head + "1,300,0.01,0.001,0.05,gnubg-nn,0.35,0.3,0.4\n")
    from tdbg.app.eval_curve_plot import load_chain

    pts, ends = load_chain([str(a), str(b)], old_agent_logs=1)
    assert [p["cpu_hours"] for p in pts] == [0.1, 0.2, 0.25]  # CPU-hours add up across stages
    assert [p["old_agent"] for p in pts] == [True, True, False]
    assert [(e["episodes"], e["cpu_hours"]) for e in ends] == [(200, 0.2), (300, 0.25)]
    # a checkpoint inside the first stage, at its round of 200 episodes (the log has no stage_episodes
    # column, so its total episodes count): placed at that row's episodes and CPU-hours
    mid = tmp_path / "mid.csv"  # won 1 of 4 games
    mid.write_text(
        "# seed: 1\n# game_mode: dmp\n# model2: gnubg-nn\ngame,points\n0,1\n1,-1\n2,-1\n3,-1\n"
    )
    from tdbg.app.eval_curve_plot import checkpoint_results

    [at] = checkpoint_results([f"1:150:{mid}"], ends)
    assert (at["episodes"], at["cpu_hours"], at["result"], at["games"]) == (200, 0.2, 0.25, 4)
    for bad, words in (
        (f"3:100:{mid}", "there are 2 logs"),
        (f"1:900:{mid}", "stops before 900"),
        ("x:1:y", "expected LOG_NUMBER"),
    ):
        assert_one_line_error(
            run(
                "tools/plot_eval_curve.py",
                a,
                b,
                "-o",
                tmp_path / "x.png",
                "--checkpoint-results",
                bad,
            ),
            words,
        )
    # a leg on earlier stages: their CPU-hours (0.2, a's last) come first, their evaluations are not drawn
    from tdbg.app.eval_curve_plot import base_cpu_hours

    leg, leg_ends = load_chain([str(b)], cpu_offset=base_cpu_hours([str(a)]))
    assert [p["cpu_hours"] for p in leg] == [0.25] and leg_ends[0]["cpu_hours"] == 0.25
    final = tmp_path / "final.csv"  # a stage-end result: won 3 of 4 games
    final.write_text(
        "# seed: 1\n# game_mode: dmp\n# model2: gnubg-nn\ngame,points\n0,1\n1,1\n2,-1\n3,1\n"
    )
    out = tmp_path / "c.png"
    run(
        "tools/plot_eval_curve.py",
        a,
        b,
        "-o",
        out,
        "--target",
        "0.45",
        "--old-agent-logs",
        "1",
        "--final-results",
        "-",
        final,
        check=True,
    )
    assert out.read_bytes()[:4] == b"\x89PNG"
    from tdbg.app.eval_curve_plot import final_results

    assert final_results(["-", str(final)], ends)[0]["result"] == 0.75
    assert_one_line_error(
        run("tools/plot_eval_curve.py", a, b, "-o", out, "--final-results", final),
        "one entry per log",
    )
    assert_one_line_error(
        run("tools/plot_eval_curve.py", b, "-o", tmp_path / "y.png", "--base-cpu-hours", "-1"),
        "base-cpu-hours",
    )
    assert_one_line_error(
        run("tools/plot_eval_curve.py", tmp_path / "none.csv", "-o", out), "cannot read"
    )


def test_a_branch_counts_cpu_hours_from_its_parent(tmp_path):
    # n1 ends at 0.5 CPU-hours; n2 continues n1; n4 branches from n1's end too (--continues 3:1),
    # so n4's CPU-hours count from 0.5 (+ its own 0.3), not from n2's end (0.5 + 0.2)
    head = "round,total_episodes,loss,lr,cpu_hours,eval_opponent,eval_result,eval_ci_low,eval_ci_high\n"
    n1, n2, n4 = (tmp_path / f"{n}.csv" for n in ("n1", "n2", "n4"))
    n1.write_text(head + "1,100,0.01,0.001,0.5,gnubg-nn,-0.1,-0.2,0.0\n")
    n2.write_text(head + "1,150,0.01,0.001,0.2,gnubg-nn,-0.05,-0.15,0.05\n")
    n4.write_text(head + "1,200,0.01,0.001,0.3,gnubg-nn,-0.2,-0.3,-0.1\n")
    from tdbg.app.eval_curve_plot import continues_arg, load_chain

    pts, ends = load_chain([str(n1), str(n2), str(n4)], continues=continues_arg(["3:1"], 3))
    assert [p["cpu_hours"] for p in pts] == [0.5, 0.7, 0.8]
    assert [e["cpu_hours"] for e in ends] == [0.5, 0.7, 0.8]
    for bad, words in (
        ("1:3", "only an earlier one"),
        ("3", "expected LOG_NUMBER"),
        ("4:1", "only an earlier one"),
    ):
        assert_one_line_error(
            run(
                "tools/plot_eval_curve.py",
                n1,
                n2,
                n4,
                "-o",
                tmp_path / "b.png",
                "--unit",
                "meq",
                "--continues",
                bad,
            ),
            words,
        )
    # no result file and no checkpoint beside the logs: the unit cannot be told, so the tool asks for it
    assert_one_line_error(run("tools/plot_eval_curve.py", n1, "-o", tmp_path / "c.png"), "--unit")
    run(
        "tools/plot_eval_curve.py",
        n1,
        n2,
        n4,
        "--continues",
        "3:1",
        "--unit",
        "meq",
        "-o",
        tmp_path / "d.png",
        check=True,
    )
    from PIL import Image
    import json

    with Image.open(tmp_path / "d.png") as im:
        shown = json.loads(im.text["tdbg:curve"])
    assert shown["unit"] == "meq" and shown["ylabel"].startswith("mEq/game vs gnubg-nn")
    assert shown["series"]["n4"]["y"] == [-200.0]  # points per game -0.2 drawn as mEq/game


def test_a_column_named_twice_is_refused(tmp_path):
    """csv keeps the last of two `loss` columns: the plot drew one of them silently."""
    log = tmp_path / "twice.csv"
    log.write_text("round,total_episodes,loss,lr,episodes_per_s,loss\n1,100,0.01,0.001,50,5\n")
    assert_one_line_error(run("tools/plot_training.py", log), "'loss' twice")
    assert not (tmp_path / "twice.png").exists()


@pytest.mark.parametrize(
    "body, words",
    [
        # rows with no header line: the first row read as a header (it was "column '0' twice")
        ("1,100,0.01,0.001,50,50\n2,200,0.01,0.001,50,50\n", "no rows or no 'loss' column"),
        # a row cut short: csv pads it with None, and the loss was drawn as 0
        ("round,total_episodes,loss,lr,episodes_per_s\n1,100,0.01,0.001,50\n2,200\n", "line 3"),
        ("round,total_episodes,loss,lr,episodes_per_s\n1,100,0.01,0.001,50,7\n", "more fields"),
        # no trainer logs a loss that is not finite (it stops first): nothing was drawn, no word
        (
            "round,total_episodes,loss,lr,episodes_per_s\n1,100,inf,0.001,50\n2,200,inf,0.001,50\n",
            "loss 'inf'",
        ),
        ("round,total_episodes,loss,lr,episodes_per_s\n1,100,0.01,nan,50\n", "lr 'nan'"),
        # rows that repeat or go back in episodes (two runs' logs in one file) were drawn as one
        (
            "round,total_episodes,loss,lr,episodes_per_s\n1,100,0.01,0.001,50\n"
            "2,200,0.01,0.001,50\n1,100,0.02,0.001,50\n",
            "line 4 is at 100 episodes, not after the line before it (200)",
        ),
        (
            "round,total_episodes,loss,lr,episodes_per_s\n1,100,0.01,0.001,50\n"
            "1,100,0.01,0.001,50\n",
            "line 3 is at 100 episodes",
        ),
    ],
    ids=["no header", "short row", "long row", "infinite loss", "nan lr", "goes back", "repeats"],
)
def test_a_log_that_no_trainer_writes_is_one_line(tmp_path, body, words):
    log = tmp_path / "bad.csv"
    log.write_text(body)
    assert_one_line_error(run("tools/plot_training.py", log), words)
    assert not (tmp_path / "bad.png").exists()


def test_a_log_saved_with_a_byte_order_mark_plots(tmp_path):
    """A log saved again from a spreadsheet starts with a byte-order mark, which was read
    into the name of its first column: "loss" here ("not a training log")."""
    log = tmp_path / "run.csv"
    log.write_bytes(
        b"\xef\xbb\xbfloss,round,total_episodes,lr,episodes_per_s\n0.01,1,100,0.001,50\n"
        b"0.008,2,200,0.001,55\n"
    )
    run("tools/plot_training.py", log, check=True)
    assert (tmp_path / "run.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_eval_log_field_that_is_no_number_is_one_line(tmp_path):
    """A result or CPU-hours of 'abc' in a log was a ValueError traceback in plot_eval_curve."""
    head = "round,total_episodes,loss,lr,cpu_hours,eval_opponent,eval_result,eval_ci_low,eval_ci_high\n"
    for row, words in (
        (
            "1,100,0.01,0.001,0.1,gnubg-nn,abc,0.15,0.25\n",
            "eval_result 'abc'",
        ),
        ("1,100,0.01,0.001,x,gnubg-nn,0.2,0.15,0.25\n", "cpu_hours 'x'"),
    ):
        log = tmp_path / "s.csv"
        log.write_text(head + row)
        proc = run("tools/plot_eval_curve.py", log, "-o", tmp_path / "x.png")
        assert_one_line_error(
            proc, f"{log}: line 2 is not a row of a training log with evaluations"
        )
        assert words in proc.stderr
        assert not (tmp_path / "x.png").exists()


LOG_HEAD = (
    "round,total_episodes,loss,lr,episodes_per_s,cpu_hours,"
    "eval_opponent,eval_result,eval_ci_low,eval_ci_high"
)
LOG_ROWS = ["1,100,0.01,0.001,50,0.1,gnubg-nn,0.2,0.15,0.25", "2,200,0.01,0.001,50,0.2,,,,"]


@pytest.mark.parametrize(
    "column, value, tools",
    [
        ("eval_result", "nan", ("plot_training", "plot_eval_curve")),
        ("eval_result", "inf", ("plot_training", "plot_eval_curve")),
        ("eval_ci_low", "abc", ("plot_training", "plot_eval_curve")),
        ("eval_ci_high", "\0", ("plot_training", "plot_eval_curve")),
        ("eval_ci_high", "０.3", ("plot_training", "plot_eval_curve")),
        ("loss", "1_0", ("plot_training",)),
        ("lr", "５e-05", ("plot_training",)),
        ("cpu_hours", "1_0", ("plot_eval_curve",)),
        ("total_episodes", "nan", ("plot_eval_curve",)),
    ],
)
def test_a_logs_numbers_are_read_as_the_trainers_write_them(tmp_path, column, value, tools):
    """float() read a log's "nan", "inf", "1_0" and other scripts' digits, and the evaluation
    columns were not checked at all in plot_training (a word or a NUL in a CI end dropped
    the band, a nan result was drawn as nothing): every number a plotter reads must be a
    finite one in ASCII digits, as the trainers write it, or the log is refused naming it."""
    cols = LOG_HEAD.split(",")
    row = LOG_ROWS[0].split(",")
    row[cols.index(column)] = value
    log = tmp_path / "log.csv"
    log.write_text("\n".join([LOG_HEAD, ",".join(row), LOG_ROWS[1]]) + "\n")
    for tool in tools:
        args = ["--unit", "win-rate"] if tool == "plot_eval_curve" else []
        proc = run(f"tools/{tool}.py", log, *args, "-o", tmp_path / f"{tool}.png")
        assert_one_line_error(proc, "line 2 is not a row of a training log")
        assert repr(value)[1:-1] in proc.stderr
        assert not (tmp_path / f"{tool}.png").exists()


def test_plot_eval_curve_refuses_a_row_cut_short(tmp_path):
    """plot_eval_curve read a short row's missing fields as none (csv pads them with None)."""
    log = tmp_path / "log.csv"
    log.write_text("\n".join([LOG_HEAD, LOG_ROWS[0], "2,200,0.01"]) + "\n")
    proc = run("tools/plot_eval_curve.py", log, "--unit", "win-rate", "-o", tmp_path / "c.png")
    assert_one_line_error(
        proc, "line 3 is not a row of a training log with evaluations (it has fewer"
    )


def test_plot_eval_curve_refuses_rows_that_go_back(tmp_path):
    """A log with its rows appended again (two runs' logs in one file) was drawn as one curve,
    where plot_training refuses it."""
    log = tmp_path / "log.csv"
    log.write_text("\n".join([LOG_HEAD, *LOG_ROWS, *LOG_ROWS]) + "\n")
    proc = run("tools/plot_eval_curve.py", log, "--unit", "win-rate", "-o", tmp_path / "c.png")
    assert_one_line_error(proc, "line 4 is at 100 episodes, not after the line before it (200)")
    assert not (tmp_path / "c.png").exists()
