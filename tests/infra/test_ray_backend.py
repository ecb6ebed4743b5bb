"""--backend ray gives the local backend's data and results, survives a killed actor,
and fails on bad input in one line; the default path never imports Ray.

The Ray tests share one two-node cluster on this machine (ray.cluster_utils.Cluster,
one CPU per node, so two workers land one on each node).  Nothing is timed: the only
timeout used is one no job can meet."""

from dataclasses import replace
import csv
import glob
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest
import torch

import helpers
from helpers import HANG_GUARD, ROOT, assert_one_line_error, md5
from tdbg.game.modes import game_mode
from tdbg.learn.run_control import Interrupted
from tdbg.net.model import TDNetwork, load_checkpoint, new_metadata, save_checkpoint

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="Ray is not installed (pip install -r requirements-ray.txt)",
)


def run(script, *args, **kwargs):
    """Each script in a process of its own: a Ray connection is per process, so a script run in
    the test process would find Ray already started (by an earlier run, or this file's cluster)
    and skip the connection whose failure a test checks."""
    return helpers.run(script, *args, subprocess_=True, **kwargs)


TINY = [
    "--hidden",
    "8",
    "--parallel-games",
    "8",
    "--episodes-per-round",
    "20",
    "--quiet",
    "--seed",
    "5",
]


def _run_with(shim: str, tmp_path, script, *args):
    """Run a script with a stand-in ``ray`` package first on the path."""
    pkg = tmp_path / "shim" / "ray"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(shim)
    env = {
        **os.environ,
        "PYTHONPATH": f"{tmp_path / 'shim'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    }
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        cwd=ROOT,
        env=env,
    )


def test_the_default_backend_never_imports_ray(tmp_path):
    proc = _run_with(
        "import os\nos._exit(97)\n",
        tmp_path,
        "train_batch.py",
        *TINY,
        "--num-episodes",
        "20",
        "--workers",
        "2",
        "--save",
        tmp_path / "m.pt",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    proc = run(
        "play_models.py",
        "--model1",
        tmp_path / "m.pt",
        "--model2",
        "random",
        "--games",
        "4",
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize("script", ["train_batch.py", "train_prob5.py", "play_models.py"])
def test_missing_ray_is_one_line_naming_the_install(tmp_path, script):
    args = (
        ["--model1", "random", "--model2", "pubeval", "--games", "4"]
        if script == "play_models.py"
        else [*TINY, "--num-episodes", "20", "--save", tmp_path / "m.pt"]
    )
    proc = _run_with(
        "raise ModuleNotFoundError(\"No module named 'ray'\")\n",
        tmp_path,
        script,
        *args,
        "--backend",
        "ray",
    )
    assert_one_line_error(proc, "needs Ray")
    assert "requirements-ray.txt" in proc.stderr and "make setup-ray" in proc.stderr
    assert not (tmp_path / "m.pt").exists()


def test_ray_address_needs_the_ray_backend(tmp_path):
    proc = run(
        "train_batch.py",
        *TINY,
        "--num-episodes",
        "20",
        "--save",
        tmp_path / "m.pt",
        "--ray-address",
        "127.0.0.1:6379",
    )
    assert_one_line_error(proc, "--backend ray")


# --------------------------------------------------------------------------- on a two-node cluster


@pytest.fixture(scope="module")
def cluster():
    import ray
    from ray.cluster_utils import Cluster

    c = Cluster(
        initialize_head=True,
        connect=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    c.add_node(num_cpus=1)
    c.wait_for_nodes()
    yield c
    ray.shutdown()
    c.shutdown()


@needs_ray
def test_a_ray_pool_gives_each_jobs_result_and_reraises_a_jobs_own_error(cluster):
    from tdbg.infra.ray_backend import RayPool

    with RayPool(2, "test worker") as pool:
        shared = pool.share(np.arange(4))  # in the object store once, the value in each job
        tasks = [pool.submit(dict.copy, {"k": k, "v": shared}) for k in range(5)]
        got = pool.results(tasks)
        assert [g["k"] for g in got] == [0, 1, 2, 3, 4]
        assert all(g["v"].tolist() == [0, 1, 2, 3] for g in got)
        with pytest.raises(TypeError):  # int() of a dict: the job's own exception, not Ray's
            pool.results([pool.submit(int, {"k": 0})])
        assert pool.restarts == 0


@needs_ray
def test_an_address_that_is_no_host_and_port_or_unreachable_says_why():
    from tdbg.infra.ray_backend import _reachable

    assert _reachable("head-node") == "expected HOST:PORT, e.g. 10.0.0.1:6379"
    assert _reachable("127.0.0.1:x") == "expected HOST:PORT, e.g. 10.0.0.1:6379"
    assert _reachable("127.0.0.1:1") == "Connection refused"  # nothing listens on port 1


def _tiny_model(output_mode="probability"):
    torch.manual_seed(11)
    return TDNetwork(game_mode("dmp").n_inputs, [8], output_mode)


def _collect(backend, kill_one=False):
    from tdbg.infra.backends import Backend
    from tdbg.learn.selfplay import Collector, FP32_COLLECTION, SelfPlaySetup

    collector = Collector(
        SelfPlaySetup(game_mode("dmp"), replace(FP32_COLLECTION, parallel_games=8, workers=2)),
        where=Backend(backend),
    )
    try:
        where = collector.pool.where() if backend == "ray" else []  # (pid, node) of each actor
        pending = collector.submit(_tiny_model(), 41, np.random.SeedSequence([3, 1, 0]))
        if kill_one:  # mid-round: its share is running (or on its way) on that actor
            os.kill(where[0][0], signal.SIGKILL)
        data = collector.result(pending)
        nodes = {node for _, node in where}
        return data, nodes, getattr(collector.pool, "restarts", 0)
    finally:
        collector.close()


@pytest.fixture(scope="module")
def local_round():
    return _collect("local")[0]


def _same_data(a, b):
    assert a["features"].shape == b["features"].shape and len(a["features"]) > 100
    assert np.array_equal(a["features"], b["features"]) and np.array_equal(
        a["targets"], b["targets"]
    )
    for key in ("episodes", "plies", "gammons", "backgammons", "evaluations"):
        assert a["stats"][key] == b["stats"][key], key


@needs_ray
def test_ray_actors_on_both_nodes_collect_the_local_backends_data(cluster, local_round):
    data, nodes, restarts = _collect("ray")
    assert len(nodes) == 2 and restarts == 0
    _same_data(data, local_round)
    assert data["stats"]["episodes"] == 41


@needs_ray
def test_an_actor_killed_mid_round_is_replaced_and_its_share_collected_exactly_once(
    cluster, local_round
):
    data, _, restarts = _collect("ray", kill_one=True)
    assert restarts == 1
    _same_data(
        data, local_round
    )  # the lost share again, with its own seed: nothing lost or doubled
    assert data["stats"]["episodes"] == 41


def _weights(path):
    model, meta, ts = load_checkpoint(str(path))
    return model.state_dict(), meta, ts


@pytest.fixture(scope="module")
def trained(cluster, tmp_path_factory):
    """The folder of local.pt and ray.pt: the same two rounds trained by each backend."""
    folder = tmp_path_factory.mktemp("trained")
    for backend in ("local", "ray"):
        extra = ["--backend", "ray", "--ray-address", cluster.address] if backend == "ray" else []
        run(
            "train_batch.py",
            *TINY,
            "--num-episodes",
            "40",
            "--workers",
            "2",
            "--save",
            folder / f"{backend}.pt",
            *extra,
            check=True,
        )
    return folder


@needs_ray
def test_train_batch_on_ray_writes_the_local_checkpoint(trained):
    tmp_path = trained
    (a, meta_a, _), (b, meta_b, _) = _weights(tmp_path / "local.pt"), _weights(tmp_path / "ray.pt")
    assert (
        all(torch.equal(a[k], b[k]) for k in a) and meta_a["episodes"] == meta_b["episodes"] == 40
    )
    rows = [list(csv.DictReader(open(tmp_path / f"{b}.csv"))) for b in ("local", "ray")]
    assert [(r["samples"], r["loss"]) for r in rows[0]] == [
        (r["samples"], r["loss"]) for r in rows[1]
    ]


@needs_ray
def test_play_models_on_ray_gives_the_local_results(cluster, tmp_path):
    model = _tiny_model()
    save_checkpoint(str(tmp_path / "m.pt"), model, new_metadata(model, "dmp"))
    lines = {}
    for backend in ("local", "ray"):
        extra = ["--backend", "ray", "--ray-address", cluster.address] if backend == "ray" else []
        run(
            "play_models.py",
            "--model1",
            tmp_path / "m.pt",
            "--model2",
            "random",
            "--games",
            "200",
            "--workers",
            "2",
            "--quiet",
            "--csv",
            tmp_path / f"{backend}.csv",
            *extra,
            check=True,
        )
        lines[backend] = [
            ln
            for ln in open(tmp_path / f"{backend}.csv")
            if not ln.startswith(("# command", "# date"))
        ]
    assert len(lines["local"]) > 200 and lines["local"] == lines["ray"]
    points = [float(ln.split(",")[2]) for ln in lines["ray"] if ln[0].isdigit()]
    assert len(points) == 200 and min(points) < 0 < max(points)  # real games: wins and losses


@needs_ray
def test_ray_bad_input_is_one_line_before_any_work(cluster, tmp_path):
    proc = run(
        "train_batch.py",
        *TINY,
        "--num-episodes",
        "20",
        "--save",
        tmp_path / "m.pt",
        "--backend",
        "ray",
        "--ray-address",
        "127.0.0.1:1",
    )
    assert_one_line_error(proc, "cannot reach a Ray cluster")
    proc = run(
        "play_models.py",
        "--model1",
        "random",
        "--model2",
        "pubeval",
        "--games",
        "4",
        "--workers",
        "3",
        "--backend",
        "ray",
        "--ray-address",
        cluster.address,
    )
    assert_one_line_error(proc, "needs 3 CPUs, but the Ray cluster")
    assert not (tmp_path / "m.pt").exists()


@needs_ray
def test_a_timed_out_round_keeps_the_checkpoint(cluster, trained, tmp_path):
    path = tmp_path / "t.pt"
    shutil.copy(trained / "ray.pt", path)
    ray_args = ["--backend", "ray", "--ray-address", cluster.address, "--workers", "2"]
    before = md5(path)
    # no share of 2,000 episodes is collected within a millisecond
    proc = run(
        "train_batch.py",
        *TINY,
        "--resume",
        path,
        "--save",
        path,
        "--num-episodes",
        "4000",
        "--episodes-per-round",
        "4000",
        *ray_args,
        "--ray-timeout",
        "0.001",
    )
    errors = [ln for ln in proc.stderr.splitlines() if "error:" in ln]
    assert proc.returncode == 2 and len(errors) == 1 and "Traceback" not in proc.stderr, (
        proc.stderr[-2000:]
    )
    assert "--ray-timeout" in errors[0] and "keeps the last checkpoint" in errors[0]
    assert md5(path) == before


def _interrupt_now():
    raise Interrupted("SIGINT")


class _ArrivesDuringDeserialisation:
    """Unpickling it raises what StopSignals' handler raises, as a Ctrl-C landing there would."""

    def __reduce__(self):
        return _interrupt_now, ()


@needs_ray
def test_a_signal_inside_ray_deserialisation_reaches_the_training_loop(cluster):
    # CI once sent Ctrl-C while ray.get was unpickling a result: Ray caught the handler's
    # exception (it caught Exception) and the run ended as a worker failure, not a save
    import ray

    ref = ray.put(_ArrivesDuringDeserialisation())
    with pytest.raises(Interrupted):
        ray.get(ref)


@needs_ray
def test_ctrl_c_on_ray_saves_counts_and_weights_that_agree(cluster, tmp_path):
    path = tmp_path / "c.pt"
    folders = set(glob.glob(os.path.join(tempfile.gettempdir(), "tdbg_ray_*")))
    proc = subprocess.Popen(
        [
            sys.executable,
            os.path.join(ROOT, "train_prob5.py"),
            *TINY,
            "--num-episodes",
            "100000",
            "--workers",
            "2",
            "--save",
            str(path),
            "--backend",
            "ray",
            "--ray-address",
            cluster.address,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + HANG_GUARD
    while not path.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=HANG_GUARD)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "interrupted (SIGINT)" in out + err
    _, meta, ts = _weights(path)
    assert meta["output_mode"] == "prob5"
    assert (
        meta["episodes"] == ts["stage"]["episodes_done"]
        and meta["episodes"] % 20 == 0
        and meta["episodes"] >= 20
    )
    # the actors were ended busy; training ships them no files, so they made no folder to leave behind
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "tdbg_ray_*"))) == folders
