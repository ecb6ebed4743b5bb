"""The installed package (pyproject.toml, `make setup`'s `pip install -e .`): the console
commands name real scripts and run them as `python script.py` does, the pins stay exact."""
import os
import shutil
import subprocess
import sys
import tomllib

import commands
from helpers import ROOT

PROJECT = tomllib.load(open(os.path.join(ROOT, "pyproject.toml"), "rb"))


def test_every_script_and_tool_is_a_command():
    targets = PROJECT["project"]["scripts"]
    scripts = {f[:-3] for f in os.listdir(ROOT) if f.endswith(".py") and f != "commands.py"}
    tools = {f[:-3] for f in os.listdir(os.path.join(ROOT, "tools")) if f.endswith(".py") and f != "__init__.py"}
    for name in scripts:
        assert targets[name] == f"commands:{name}"
    for name in tools:
        assert targets["tdbg-" + name.replace("_", "-")] == f"commands:{name}"
    assert len(targets) == len(scripts) + len(tools)
    assert set(PROJECT["tool"]["setuptools"]["py-modules"]) == scripts | {"commands"}
    for target in targets.values():
        assert callable(getattr(commands, target.split(":")[1]))


def test_pins_come_from_requirements():
    """The package's dependencies are requirements.txt itself: torch stays at 2.13.0 exactly."""
    assert PROJECT["tool"]["setuptools"]["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}
    assert "torch==2.13.0" in open(os.path.join(ROOT, "requirements.txt")).read().split()


def test_a_command_runs_its_script():
    """`train_batch --help` (from another folder) prints what `python train_batch.py --help`
    prints, after the usage lines (they name the command typed and wrap to its length)."""
    exe = shutil.which("train_batch", path=os.path.dirname(sys.executable))
    assert exe, "make setup installs the package and its commands"
    via_command = subprocess.run([exe, "--help"], capture_output=True, text=True, cwd="/", check=True).stdout
    via_script = subprocess.run([sys.executable, "train_batch.py", "--help"], capture_output=True, text=True,
                                cwd=ROOT, check=True).stdout
    assert via_command.startswith("usage: train_batch [-h]")
    assert via_command.split("\n\n", 1)[1] == via_script.split("\n\n", 1)[1]
