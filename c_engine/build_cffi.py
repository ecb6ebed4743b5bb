"""Compile the C move generator into the cffi extension ``tdbg.game._bgcore``
(its Python side is ``tdbg/game/c_engine.py``).

``pip install .`` and ``pip install -e .`` build it as part of the package (setup.py's
``cffi_modules`` names ``ffi`` here); ``make setup`` runs this file itself, which builds it
in place from the repository root: ``python c_engine/build_cffi.py``.
"""

import os
import re
import sys

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def cdef_from_header(path: str) -> str:
    """The header without preprocessor lines, with #define constants turned into cffi's form."""
    out = []
    for line in open(path):
        m = re.match(r"#define ((?:BG|LP)_\w+) (-?\d+)", line)
        if m:
            out.append(f"#define {m.group(1)} {m.group(2)}\n")
        elif not line.startswith("#"):
            out.append(line)
    return "".join(out)


def make_ffi() -> FFI:
    """The extension's declarations and sources (paths relative to the repository root, where
    setup.py and this file's main build it)."""
    ffi = FFI()
    ffi.cdef(cdef_from_header(os.path.join(HERE, "bgcore.h")))
    ffi.cdef(
        cdef_from_header(os.path.join(HERE, "mlp_lowp.h"))
    )  # reduced-precision forward (lowp.py)
    ffi.set_source(
        "tdbg.game._bgcore",
        '#include "bgcore.h"\n#include "mlp_lowp.h"',
        sources=[os.path.relpath(os.path.join(HERE, f), ROOT) for f in ("bgcore.c", "mlp_lowp.c")],
        include_dirs=[os.path.relpath(HERE, ROOT)],
        extra_compile_args=["-O3", "-std=c99", "-Wall", "-Wextra"],
    )
    return ffi


ffi = make_ffi()  # setup.py's cffi_modules = ["c_engine/build_cffi.py:ffi"]


def main() -> None:
    os.chdir(ROOT)
    ffi.compile(verbose=False, tmpdir=".")
    print("built tdbg/game/_bgcore")


if __name__ == "__main__":
    sys.exit(main())
