from cli_helpers import assert_one_line_error, run


def test_plot_from_log(tmp_path):
    log = tmp_path / "run.csv"
    log.write_text("round,total_episodes,loss,lr,episodes_per_s,eval_opponent,eval_result,eval_ci_low,eval_ci_high\n"
                   "1,100,0.01,0.001,50,,,,\n2,200,0.008,0.001,55,pubeval,0.3,0.25,0.35\n")
    proc = run("tools/plot_training.py", log, check=True)
    png = tmp_path / "run.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert str(png) in proc.stdout


def test_bad_logs(tmp_path):
    assert_one_line_error(run("tools/plot_training.py", tmp_path / "missing.csv"), "cannot read")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    assert_one_line_error(run("tools/plot_training.py", bad), "not a training log")
