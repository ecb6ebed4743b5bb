"""The C engine as part of the package build: pyproject.toml holds everything else; setup()
here only adds cffi's extension (c_engine/build_cffi.py), which `pip install .` and
`pip install -e .` compile, so the package works without `make`."""

from setuptools import setup

setup(cffi_modules=["c_engine/build_cffi.py:ffi"])
