"""Runtime: the pybind11 module that loads kernel libraries and launches them.

It is compiled once per machine, Python and toolchain into the cache directory and imported
from there; it needs no torch headers, so it builds in seconds.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import math
import os
import shutil
import sys
import sysconfig
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import torch
from filelock import FileLock

from torch_ascendgen import config
from torch_ascendgen._paths import csrc_dir
from torch_ascendgen.capture import sizes
from torch_ascendgen.errors import ShapeDeclined
from torch_ascendgen.targets.toolchain import BASE_FLAGS, compile_shared, compiler_identity

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


def runtime_module_path() -> Path:
    """Where the runtime extension's file is (or will be, once built)."""
    return config.cache_dir() / "runtime" / _module_key() / (MODULE_NAME + sysconfig.get_config_var("EXT_SUFFIX"))


def build_runtime_module() -> Path:
    """The runtime extension's file, built first if needed, not loaded. A sandboxed child cannot write the
    cache, so the caller builds it (while the child starts: see search.candidate_worker)."""
    library = runtime_module_path()
    directory = library.parent
    if not library.is_file():
        directory.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(directory) + ".lock"):
            if not library.is_file():
                _build(directory, library.name)
    return library


_handed: Path | None = None  # the file a sandboxed child was handed (use_runtime_module)


def use_runtime_module(library: str) -> None:
    """Make runtime_module() load ``library``, built by the caller, without naming it first: its name comes
    from running the compiler, which a sandboxed child cannot do."""
    global _handed
    _handed = Path(library)


@functools.cache
def runtime_module() -> ModuleType:
    """The runtime extension, built on first use."""
    library = _handed or build_runtime_module()
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


@functools.cache
def load_library(path: str):
    """A loaded kernel library (``KernelLibrary``); loaded once per process and kept."""
    return runtime_module().KernelLibrary(path)


# ---- contract kernels on torch tensors -------------------------------------------------------------


def bind_symbols(specs, shapes) -> dict[str, int]:
    """Symbol values ("s0" -> 64) from the actual input shapes; raises ValueError on a mismatch."""
    return sizes.bind([spec.shape for spec in specs], [tuple(shape) for shape in shapes])


def output_shapes(task, input_shapes) -> list[tuple[int, ...]]:
    """The task's output shapes for these input shapes: symbols bound from the inputs, sizes written as size text
    evaluated (capture/sizes.py). Raises ValueError when the kernel was not made for these shapes (another rank or
    pattern, sizes that break one of the task's guards, or other shapes than a specialised task's)."""
    if task.specialized:
        if tuple(map(tuple, input_shapes)) != task.traced_shapes:
            raise ValueError("the kernel was specialised to other shapes")
    binding = bind_symbols(task.inputs, input_shapes)
    failed = sizes.failing(task.guards, binding)
    if failed is not None:
        raise ValueError(f"the kernel was made for shapes where {failed}")
    return [sizes.shape(spec.shape, binding) for spec in task.outputs]


def nothing_to_compute(input_shapes, output_shapes, task=None) -> bool:
    """Whether a launch at these shapes has nothing to do: every output is empty (the launchers then return the
    empty outputs without asking the kernel's tiling). ShapeDeclined when an input is empty but an output is not
    (a sum over an empty dimension), unless ``task`` was traced with that empty input (``KernelTask.empty_inputs``):
    only a kernel made for empty tensors is asked to tile them."""
    if all(math.prod(shape) == 0 for shape in output_shapes):
        return True
    if any(math.prod(shape) == 0 for shape in input_shapes) and not (task is not None and task.empty_inputs):
        raise ShapeDeclined(f"empty inputs {[list(s) for s in input_shapes]} with non-empty outputs: the original "
                            "computes those", tuple(tuple(s) for s in input_shapes))
    return False


class ContractKernel:
    """Runs a kernel-contract kernel on the simulator: allocates outputs, tiles per shape (memoised).

    ``checked=True``: every launch is a checked one (SimKernel.launch): a raw-pointer access by the kernel
    kills the process after naming the argument and the code, so only expendable processes (the search's
    child, the serving worker) may run model-written kernels this way."""

    def __init__(self, kernel, task, soc: str, checked: bool = False):
        self.kernel = kernel
        self.task = task
        self.soc = soc
        self.checked = checked
        self._tilings: dict[tuple, tuple] = {}
        self._labels = ([f"input {i}" for i in range(len(task.inputs))]
                        + [f"output {i}" for i in range(len(task.outputs))] + ["workspace", "tiling"])

    def plan(self, inputs) -> tuple[list[tuple[int, ...]], object]:
        """Output shapes and the tiling for these inputs; ValueError when the kernel cannot take them."""
        key = tuple([t.shape for t in inputs])  # a torch.Size hashes and compares as the tuple of its sizes
        cached = self._tilings.get(key)
        if cached is None:
            shapes = output_shapes(self.task, key)
            empty = nothing_to_compute(key, shapes, self.task)
            tiling = None if empty else self.kernel.tiling([*key, *shapes], soc=self.soc)
            if tiling is not None and tiling.block_dim == 0:
                raise ShapeDeclined(f"the kernel's tiling function declined shapes {list(map(list, key))}", key)
            cached = self._tilings[key] = (shapes, tiling)
        return cached

    def run(self, *inputs, counters: bool = True, block_order_seed: int = 0):
        """(outputs, the launch's RunReport: an empty one when every output is empty and nothing was launched).
        ``block_order_seed``: see SimKernel.launch."""
        shapes, tiling = self.plan(inputs)
        outputs = tuple([torch.empty(shape, dtype=spec.dtype) for shape, spec in zip(shapes, self.task.outputs)])
        if tiling is None:
            return outputs, self.kernel.idle_report(self.soc)
        workspace = torch.empty(tiling.workspace_bytes, dtype=torch.uint8) if tiling.workspace_bytes else None
        report = self.kernel.launch(tiling.block_dim, *[t.contiguous() for t in inputs], *outputs, workspace,
                                    tiling.data, soc=self.soc, counters=counters, checked=self.checked,
                                    block_order_seed=block_order_seed, labels=self._labels)
        return outputs, report

    def __call__(self, *inputs):
        return self.run(*inputs, counters=False)[0]


# ---- kernels as torch.library ops ---------------------------------------------------------------------

_LIBRARY: torch.library.Library | None = None
_OPS: dict[str, Callable] = {}
_OPS_LOCK = threading.Lock()


def kernel_op(compiled) -> Callable[[list[torch.Tensor]], list[torch.Tensor]]:
    """The kernel as its own op ``torch.ops.ascendgen.k_<key>`` (with a fake implementation), made once.

    A kernel's op name is unique per cache key and kernel source: torch.library refuses to redefine a schema, and
    a loaded kernel library cannot be unloaded, so one kernel is one op for the life of the process. The source is
    part of the name because two caches (or a regenerated entry) may hold different kernels under one key.
    """
    source = hashlib.sha256(compiled.entry.source.encode()).hexdigest()
    name = f"k_{compiled.entry.key[:24]}_{source[:12]}"
    op = _OPS.get(name)
    if op is None:
        with _OPS_LOCK:  # two threads reaching a new kernel at once must not define it twice
            op = _OPS.get(name) or _define_op(name, compiled)
    return op


def _define_op(name: str, compiled) -> Callable:
    global _LIBRARY
    if _LIBRARY is None:
        _LIBRARY = torch.library.Library("ascendgen", "FRAGMENT")
    runner, task = compiled.runner, compiled.runner.task
    _LIBRARY.define(f"{name}(Tensor[] inputs) -> Tensor[]")
    # PrivateUse1 is the dispatch key torch_npu's "npu" device registers under
    _LIBRARY.impl(name, lambda inputs: list(runner(*inputs)), "CPU" if compiled.target.on_host else "PrivateUse1")

    def fake(inputs):
        shapes = output_shapes(task, [tuple(t.shape) for t in inputs])
        return [inputs[0].new_empty(shape, dtype=spec.dtype) for shape, spec in zip(shapes, task.outputs)]

    torch.library.register_fake(f"ascendgen::{name}", fake, lib=_LIBRARY)
    _OPS[name] = getattr(torch.ops.ascendgen, name).default
    return _OPS[name]


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))
