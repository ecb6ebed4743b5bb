"""The thread count the environment asks for (TDBG_THREADS, OMP_NUM_THREADS), read without
torch: every entry point checks it first (stop_signals.exit_on_signals), because OpenMP reads
OMP_NUM_THREADS as torch loads and, for a value it cannot parse, prints its own warning before
any error line of ours.  threads.py makes the choice; this module only reads and bounds it."""

from __future__ import annotations

import os
import re

from tdbg.infra.errors import InputError

# the most threads a process may ask for: far beyond any core count this runs on, far below
# what breaks OpenMP (about 32,768 threads: libgomp aborts; 70,000: a segmentation fault)
MAX_THREADS = 1024
ENV_VARS = ("TDBG_THREADS", "OMP_NUM_THREADS")  # in order of precedence, after --threads


def requested(flag: int | None, environ=os.environ) -> tuple[int | None, str]:
    """(threads asked for, by what): --threads, else TDBG_THREADS (a positive whole number,
    or InputError), else OMP_NUM_THREADS (its first level, "4,2" is 4; a value OpenMP itself
    rejects, with its own warning, is passed over), else (None, "default").  More than
    MAX_THREADS, from either variable, is an InputError."""
    if flag is not None:
        return flag, "--threads"
    for name in ENV_VARS:
        text = environ.get(name, "").strip()
        if name == "OMP_NUM_THREADS":
            text = text.split(",")[0].strip()
        if not text:
            continue
        # ASCII digits only, as --threads reads them: isdigit() also passed ² (then a ValueError
        # traceback) and other scripts' digits (١٢ ran 12 threads)
        value = int(text) if re.fullmatch(r"[0-9]+", text, flags=re.ASCII) else 0
        if value > MAX_THREADS:
            raise InputError(f"{name}={text}: at most {MAX_THREADS:,} threads")
        if value >= 1:
            return value, name
        if name == "TDBG_THREADS":
            raise InputError(
                f"{name}={text!r}: the number of threads must be a positive whole number"
            )
    return None, "default"
