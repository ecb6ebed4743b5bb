"""`pip install .` into a fresh virtual environment builds the C engine with the package
(setup.py's cffi build) and gives a working `tdbg`: a short stage trains with --engine c,
from a folder outside the checkout, on the installed copy alone.

The fresh environment reaches the pinned dependencies (torch from the local wheel cache
has no network to come from) through a .pth line naming this environment's site-packages:
a plain path, so this environment's own editable install of tdbg is not on it."""

import os
import subprocess
import sysconfig
import venv

import pytest

from helpers import ROOT
from tdbg.net.model import load_checkpoint

pytestmark = pytest.mark.slow  # a package build and a C compile: about a minute


def _site_packages(env: str) -> str:
    return sysconfig.get_path("purelib", vars={"base": env, "platbase": env})


@pytest.mark.parametrize("editable", [False, True], ids=["install", "editable"])
def test_pip_install_builds_the_c_engine(tmp_path, editable):
    env = str(tmp_path / "env")
    venv.EnvBuilder(with_pip=True).create(env)
    with open(os.path.join(_site_packages(env), "pinned_dependencies.pth"), "w") as fh:
        fh.write(sysconfig.get_path("purelib") + "\n")
    python = os.path.join(env, "bin", "python")
    source = str(tmp_path / "src")  # a clean copy of the tracked tree: no C build products in it
    subprocess.run(
        f"git -C {ROOT} ls-files -z | (cd {ROOT} && xargs -0 tar cf -) | (mkdir -p {source} "
        f"&& tar xf - -C {source})",
        shell=True,
        check=True,
    )
    assert not [
        f for f in os.listdir(os.path.join(source, "tdbg", "game")) if f.startswith("_bgcore")
    ]
    args = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(
        [*args, *(["-e"] if editable else []), source],
        check=True,
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
    )
    where = subprocess.run(
        [
            python,
            "-c",
            "import tdbg.game._bgcore as c, tdbg; print(c.__file__); "
            "print(tdbg.__file__); from tdbg.game import met; met.load_met(); print(met.DEFAULT_MET)",
        ],
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
        check=True,
    )
    core, package, table = where.stdout.split()  # the match equity table shipped with it, too
    assert table == os.path.join(
        source if editable else os.path.join(_site_packages(env), "tdbg"),
        "data",
        "met",
        "Kazaross-XG2.xml",
    )
    home = source if editable else _site_packages(env)
    assert core.startswith(os.path.join(home, "tdbg", "game", "_bgcore")) and package.startswith(
        home
    )
    save = tmp_path / "x.pt"
    proc = subprocess.run(
        [
            os.path.join(env, "bin", "tdbg"),
            "train",
            "batch",
            "--hidden",
            "8",
            "--num-episodes",
            "20",
            "--episodes-per-round",
            "20",
            "--parallel-games",
            "8",
            "--engine",
            "c",
            "--quiet",
            "--save",
            str(save),
        ],
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    _, meta, ts = load_checkpoint(str(save))
    assert meta["episodes"] == 20 and ts["stage"]["config"]["engine"] == "c"
