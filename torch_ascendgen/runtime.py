"""Runtime: the pybind11 module that loads kernel libraries and launches them.

It is compiled once per machine, Python and toolchain into the cache directory and imported
from there; it needs no torch headers, so it builds in seconds.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

from filelock import FileLock

from . import config
from ._paths import csrc_dir
from .toolchain import BASE_FLAGS, compile_shared, compiler_identity

MODULE_NAME = "ascendgen_sim_runtime"


def _sources() -> list[Path]:
    root = csrc_dir()
    return [root / "runtime" / "sim_runtime.cpp", root / "ascendc_sim" / "sim" / "launch_abi.h"]


def _module_key() -> str:
    import pybind11

    digest = hashlib.sha256()
    for path in _sources():
        digest.update(path.read_bytes())
    digest.update(json.dumps([sys.version, pybind11.__version__, compiler_identity(config.cxx()), BASE_FLAGS]).encode())
    return digest.hexdigest()[:32]


@functools.lru_cache(maxsize=None)
def runtime_module() -> ModuleType:
    """The runtime extension, built on first use."""
    directory = config.cache_dir() / "runtime" / _module_key()
    library = directory / (MODULE_NAME + sysconfig.get_config_var("EXT_SUFFIX"))
    if not library.is_file():
        directory.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(directory) + ".lock"):
            if not library.is_file():
                _build(directory, library.name)
    spec = importlib.util.spec_from_file_location(MODULE_NAME, library)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build(directory: Path, filename: str) -> None:
    import pybind11

    staging = directory.with_name(f".{directory.name}.{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        includes = [f"-I{pybind11.get_include()}", f"-I{sysconfig.get_paths()['include']}"]
        source = csrc_dir() / "runtime" / "sim_runtime.cpp"
        compile_shared([*BASE_FLAGS, "-fvisibility=hidden", *includes, str(source), "-o", filename], staging,
                       "the runtime module")
        shutil.rmtree(directory, ignore_errors=True)
        os.replace(staging, directory)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@functools.lru_cache(maxsize=None)
def load_library(path: str):
    """A loaded kernel library (``KernelLibrary``); loaded once per process and kept."""
    return runtime_module().KernelLibrary(path)
