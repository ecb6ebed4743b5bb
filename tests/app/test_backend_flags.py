"""Where the workers run (tdbg/app/backend_flags.py): the flags, --workers' limit on each
backend, and the checks made before any work (Ray itself replaced by stand-ins here)."""

import argparse
import sys
import types

import pytest

import tdbg.infra
from tdbg.app import backend_flags, cli
from tdbg.infra.backends import DEFAULT_RAY_TIMEOUT, RAY_INSTALL, Backend
from tdbg.infra.errors import InputError


def parser() -> cli.Parser:
    p = cli.Parser(prog="t")
    p.add_argument("--workers", type=cli.workers_arg, default=1, help="processes")
    backend_flags.add_backend_args(p, "game-playing")
    return p


def test_the_flags_default_to_the_local_backend():
    args = parser().parse_args([])
    assert (args.backend, args.ray_address, args.ray_timeout) == (
        "local",
        None,
        DEFAULT_RAY_TIMEOUT,
    )


def test_workers_are_limited_by_the_cluster_not_this_machine_when_parsed(monkeypatch):
    """Parsed, --workers goes up to 4096 (a Ray cluster's CPUs are not this machine's);
    the local backend's limit, 4 per core, is checked when the run starts."""
    monkeypatch.setattr(cli, "cores", lambda: 2)
    p = parser()
    assert p.parse_args(["--workers", "4096"]).workers == 4096
    with pytest.raises(SystemExit):
        p.parse_args(["--workers", "4097"])
    workers = next(a for a in p._actions if a.dest == "workers")
    assert workers.help == "processes; with --backend ray: at most the Ray cluster's CPUs"


def test_the_local_backend_takes_four_workers_per_core(monkeypatch):
    monkeypatch.setattr(cli, "cores", lambda: 2)
    backend_flags.start_backend(Backend(), 8)  # 4 x 2 cores: allowed
    with pytest.raises(InputError) as info:
        backend_flags.start_backend(Backend(), 9)
    assert str(info.value).startswith("argument --workers: ")
    assert "4 per core, 2 cores" in str(info.value)


def test_a_ray_address_needs_the_ray_backend():
    with pytest.raises(InputError, match="--ray-address applies to --backend ray"):
        backend_flags.start_backend(Backend("local", "10.0.0.1:6379"), 1)


def test_ray_missing_is_one_input_error_saying_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, installed or not
    with pytest.raises(InputError) as info:
        backend_flags.start_backend(Backend("ray"), 4)
    assert str(info.value) == f"--backend ray needs Ray, which is not installed: {RAY_INSTALL}"


def test_the_ray_backend_connects_with_the_flags_given(monkeypatch):
    """With Ray there, the run joins the cluster at --ray-address with --workers and
    --ray-timeout (the connection itself is ray_backend's)."""
    seen = []
    fake_backend = types.ModuleType("tdbg.infra.ray_backend")
    fake_backend.connect = lambda address, workers, timeout: seen.append(
        (address, workers, timeout)
    )
    monkeypatch.setitem(sys.modules, "ray", types.ModuleType("ray"))
    monkeypatch.setitem(sys.modules, "tdbg.infra.ray_backend", fake_backend)
    monkeypatch.setattr(tdbg.infra, "ray_backend", fake_backend, raising=False)
    args = parser().parse_args(
        ["--backend", "ray", "--ray-address", "auto", "--ray-timeout", "30", "--workers", "64"]
    )
    backend_flags.start(args)
    assert seen == [("auto", 64, 30.0)]


def test_a_parser_without_backend_flags_starts_locally(monkeypatch):
    """Parsed flags without --backend (a parser that offers none): the local backend, whose
    limit on --workers is checked."""
    monkeypatch.setattr(cli, "cores", lambda: 1)
    backend_flags.start(argparse.Namespace(workers=4))
    with pytest.raises(InputError, match="argument --workers"):
        backend_flags.start(argparse.Namespace(workers=5))
