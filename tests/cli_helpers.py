import hashlib
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Only a guard against a hung child: no test may fail because a busy 2-core machine is
# slow, so work is bounded by episodes and games, never by seconds.
HANG_GUARD = 3600


def run(script, *args, timeout=HANG_GUARD, check=False):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, script), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if check and proc.returncode != 0:
        raise AssertionError(f"{script} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc


def assert_one_line_error(proc, words=""):
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert words.lower() in lines[0].lower(), lines[0]


def md5(path):
    return hashlib.md5(open(path, "rb").read()).hexdigest()
