"""The scripts that write release figures refuse to start from a tree with uncommitted changes to
tracked files (their result files name the commit): one `error:` line, exit 2, nothing written.
Each runs in a scratch git repository holding a copy of the script and the helper it sources, so
neither this checkout nor its results are touched."""

import os
import shutil
import subprocess

import pytest

from helpers import ROOT

HELPER = "experiments/require_clean_tree.sh"
SOURCED = [HELPER, "experiments/retraining/release_lib.sh"]  # what the scripts source
RELEASE_SCRIPTS = [
    "experiments/retraining/strength_release.sh",
    "experiments/retraining/strength_release_1ply.sh",
    "experiments/retraining/strength_release_money_1ply.sh",
    "experiments/retraining/live_release.sh",
    "experiments/retraining/live_money_release.sh",
    "experiments/head_to_head/remeasure.sh",
    "experiments/head_to_head/remeasure_dirty.sh",
    "experiments/gnubg_eval/run.sh",
    "experiments/benchmarks/decisions/all_models.sh",
]


def git(repo, *args):
    subprocess.run(
        ["git", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
        },
    )


@pytest.fixture
def scratch(tmp_path):
    """A committed git repository with the release scripts, what they source and one tracked file."""
    repo = tmp_path / "repo"
    for rel in RELEASE_SCRIPTS + SOURCED:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), repo / rel)
    (repo / "tracked.txt").write_text("a\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "scratch")
    return repo


def listing(repo):
    return sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if ".git" not in p.parts)


@pytest.mark.parametrize("script", RELEASE_SCRIPTS)
def test_a_release_script_refuses_a_dirty_tree(scratch, script):
    (scratch / "tracked.txt").write_text("changed\n")
    before = listing(scratch)
    proc = subprocess.run(
        ["bash", str(scratch / script)],
        cwd=scratch,
        capture_output=True,
        text=True,
        env={**os.environ, "PY": "/bin/false", "PYTHON": "/bin/false"},
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert (
        len(lines) == 1 and lines[0].startswith("error:") and "uncommitted changes" in lines[0]
    ), proc.stderr
    assert os.path.basename(script) in lines[0] and proc.stdout == ""
    assert listing(scratch) == before  # nothing written, not even an output folder


def test_untracked_files_do_not_count_and_a_clean_tree_passes(scratch):
    (scratch / "untracked.txt").write_text("new\n")
    ok = subprocess.run(
        ["bash", "-c", f". {HELPER}; require_clean_tree; echo clean"],
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "clean\n", "")
    (scratch / "tracked.txt").write_text("changed\n")
    dirty = subprocess.run(
        ["bash", "-c", f". {HELPER}; require_clean_tree; echo clean"],
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert dirty.returncode == 2 and dirty.stdout == "" and "1 tracked file(s)" in dirty.stderr


def test_outside_a_git_checkout_it_refuses_too(tmp_path):
    shutil.copy2(os.path.join(ROOT, HELPER), tmp_path / "h.sh")
    proc = subprocess.run(
        ["bash", "-c", ". ./h.sh; require_clean_tree; echo went on"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)},
    )
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.startswith("error:")
    assert "git checkout" in proc.stderr
