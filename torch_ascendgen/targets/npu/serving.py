"""Serving on the NPU: a kernel a model wrote runs in a sandboxed NPU worker process, never in the caller's.

An NPU kernel library holds the model's host code next to its device kernel: the host tiling function, and
whatever static initialisers the source has, which run when the library is loaded. So the library is loaded
only in a worker confined like the NPU candidate child (Target.candidate_worker: the "npu" sandbox profile,
torch_npu and the NPU runtime module imported there): the tiling runs there, and so does the launch, on that
process's own device context. Tensors make a round trip through host memory (the caller's inputs copied to the
host, sent to the worker, copied to its device; the outputs back the same way), which costs far more than the
launch: correct and contained, not fast. Loading only the device binary into this process (CANN's
aclrtBinaryLoadFromFile) would avoid the round trip, but how bisheng writes a device-only binary of an AscendC
kernel is not documented.

The functions named ``_in_worker_*`` run in the worker (sandbox.Worker calls them by module and name).
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

import torch

from torch_ascendgen import config
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.targets.runtime import ShapeDeclined, nothing_to_compute, output_shapes


class NpuServedKernel:
    """A model-written NPU kernel run by the sandboxed NPU worker; NpuKernel's interface (``task``, ``plan``,
    ``run``, calls). Takes tensors on any device and returns outputs on the inputs' device. ``rechecked``: it has
    passed on fresh data in this process (serve.recheck)."""

    def __init__(self, build, task, target):
        self.build = build
        self.task = task
        self.soc = target.soc
        self.target = target
        self.rechecked = False
        self._plans: dict[tuple, list[tuple[int, ...]]] = {}

    def plan(self, inputs) -> tuple[list[tuple[int, ...]], int]:
        """(output shapes, blocks) for these inputs; ShapeDeclined when the kernel's tiling declines them. The
        tiling function runs in the worker, once per shape."""
        key = tuple(tuple(t.shape) for t in inputs)
        shapes = output_shapes(self.task, key)
        if nothing_to_compute(key, shapes, self.task):  # every output empty: no tiling, no launch
            return shapes, 0
        if key not in self._plans:
            outcome = _call(_in_worker_plan, self.build, self.task, [list(s) for s in key], self.target,
                            what=f"the tiling of a model-written NPU kernel for shapes {[list(s) for s in key]}")
            if isinstance(outcome, str):
                raise ShapeDeclined(outcome)
            self._plans[key] = int(outcome)
        return shapes, self._plans[key]

    def run(self, *inputs, counters: bool = False):
        """(outputs, None), as NpuKernel.run."""
        shapes, blocks = self.plan(inputs)
        device = inputs[0].device if inputs else torch.device("cpu")
        if not blocks:  # every output empty
            return tuple(torch.empty(s, dtype=spec.dtype, device=device)
                         for s, spec in zip(shapes, self.task.outputs)), None
        host = [t.detach().contiguous().cpu() for t in inputs]
        outputs = _call(_in_worker_run, self.build, self.task, host, self.target,
                        what="a model-written NPU kernel")
        return tuple(output.to(device) for output in outputs), None

    def __call__(self, *inputs):
        return self.run(*inputs)[0]


def npu_served_kernel(build, task, target) -> NpuServedKernel:
    """The process's one NpuServedKernel for ``build`` (so that it is re-checked once per process)."""
    identity = (build.key, str(build.library), target.soc, target.device_index)
    with _LOCK:
        kernel = _KERNELS.get(identity)
        if kernel is None:
            kernel = _KERNELS[identity] = NpuServedKernel(build, task, target)
        return kernel


_KERNELS: dict[tuple, NpuServedKernel] = {}
_WORKERS: dict[tuple, tuple[Any, threading.Lock]] = {}  # a sandbox.Worker per NPU, one call at a time
_LOCK = threading.Lock()


def _call(function, build, task, argument, target, what: str):
    """``function(build, task, argument, target)`` in the target's NPU serving worker (started on first use, and
    again after a crash or an overrun, which fail this call with KernelCrashError/KernelTimeoutError)."""
    with _LOCK:
        identity = (target.soc, target.device_index, id(target.toolkit))
        if identity not in _WORKERS:
            _WORKERS[identity] = (target.candidate_worker(), threading.Lock())
        worker, one_call_at_a_time = _WORKERS[identity]
    with one_call_at_a_time:
        return worker.call(function, build, task.portable(), argument, target, timeout=config.run_timeout_s(),
                           what=what)


def _shutdown() -> None:
    for worker, _ in list(_WORKERS.values()):
        worker.__exit__(None, None, None)
    _WORKERS.clear()


atexit.register(_shutdown)


# ---- in the worker -----------------------------------------------------------------------------------------

_LOADED: dict[str, Any] = {}  # the worker's NpuKernel per library


def _kernel(build, task, target):
    from torch_ascendgen.targets.npu.cann import torch_npu_module
    from torch_ascendgen.targets.npu.op_project import npu_kernel

    torch_npu_module()
    kernel = _LOADED.get(str(build.library))
    if kernel is None:
        torch.npu.set_device(target.device)
        kernel = _LOADED[str(build.library)] = npu_kernel(build, task, target.soc)
    return kernel


def _in_worker_plan(build, task, shapes: list[list[int]], target) -> int | str:
    """The blocks the kernel's tiling gives for ``shapes``, or why it declines them (a string)."""
    kernel = _kernel(build, task, target)
    probes = [torch.empty((), dtype=spec.dtype, device=target.device).expand(shape)  # shapes, not memory
              for shape, spec in zip(shapes, task.inputs)]
    try:
        _, tiling = kernel.plan(probes)
    except ShapeDeclined as exc:
        return str(exc)
    return int(tiling.block_dim)


def _in_worker_run(build, task, inputs: list[torch.Tensor], target) -> tuple[torch.Tensor, ...]:
    """The kernel's outputs for host ``inputs``, run on the worker's NPU and copied back to the host."""
    kernel = _kernel(build, task, target)
    on_device = [t.to(target.device) for t in inputs]
    try:
        outputs = kernel(*on_device)
        torch.npu.synchronize()
        return tuple(output.cpu() for output in outputs)
    except (RuntimeError, ValueError) as exc:
        raise UnsupportedFunction(f"the model-written NPU kernel failed in its serving process: "
                                  f"{type(exc).__name__}: {exc}") from None
