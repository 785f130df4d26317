"""A candidate's run on the NPU, in the sandboxed NPU child: inputs copied to the device, outputs copied back,
the first set's launches timed with NPU events."""

from __future__ import annotations

import torch

from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import ShapeDeclined
from torch_ascendgen.records import FailureKind, InputSet, SetRun
from torch_ascendgen.targets.npu.build import NpuBuild
from torch_ascendgen.targets.runtime import same_bits

NPU_WARMUP, NPU_REPEATS = 5, 50  # a candidate's timing on the NPU (the winner is timed again against the original)


def prepare_npu_child(npu_runtime_library: str) -> None:
    """The NPU worker child's warm-up: torch_npu imported and the NPU runtime module the parent built loaded."""
    from torch_ascendgen.targets.npu.cann import torch_npu_module
    from torch_ascendgen.targets.npu.runtime import npu_runtime_module, use_npu_runtime_module

    torch_npu_module()
    use_npu_runtime_module(npu_runtime_library)
    npu_runtime_module()


def run_npu_candidate(build: NpuBuild, task: KernelTask, input_sets: list[InputSet], target) -> list[SetRun]:
    """Run ``build`` on the NPU on every input set (copied to the device; outputs copied back); the first set's
    launches timed with NPU events. Stops at the first error.

    A kernel's failures arrive from torch_npu and the NPU runtime module untyped: a device fault as a RuntimeError
    (at a synchronisation or a copy), a launch its tiling made impossible (too many blocks) as a ValueError. Each
    is caught only around the calls that run the kernel; anywhere else it is a bug of ours and leaves the child."""
    from torch_ascendgen.targets.npu.cann import torch_npu_module
    from torch_ascendgen.targets.npu.op_project import npu_kernel

    torch_npu_module()
    npu = torch.npu
    npu.set_device(target.device)
    kernel = npu_kernel(build, task, target.soc)  # an operator project's: its TilingFunc plans each shape here
    runs: list[SetRun] = []
    for input_set in input_sets:
        on_device = [t.to(target.device) for t in input_set.tensors]
        try:
            kernel.plan(on_device)  # loads the library and runs its tiling; a ValueError here is a bug of ours
            runs.append(_run_on_device(kernel, input_set, on_device, npu, timed=not runs))
        except ShapeDeclined as exc:
            runs.append(SetRun(error=str(exc), error_kind=FailureKind.DECLINED, declined=True))
            continue
        except RuntimeError as exc:  # the library would not load, or its tiling failed
            runs.append(_failed(exc))
        if runs[-1].error:
            break
    return runs


def _run_on_device(kernel, input_set: InputSet, on_device: list[torch.Tensor], npu, timed: bool) -> SetRun:
    """Every launch and copy of one input set: a fault on the device surfaces at any of them, as a RuntimeError,
    and a launch the runtime module refuses (its tiling asked for too many blocks) as a ValueError."""
    from torch_ascendgen.targets.measure import measure_npu

    try:
        outputs = kernel(*on_device)
        npu.synchronize()
        host = tuple(output.cpu() for output in outputs)
        modified = tuple(i for i, (a, b) in enumerate(zip(input_set.tensors, on_device)) if not same_bits(a, b.cpu()))
        measurement = (measure_npu(lambda: kernel(*on_device), npu, warmup=NPU_WARMUP, repeats=NPU_REPEATS)
                       if timed else None)
    except ShapeDeclined:
        raise
    except (RuntimeError, ValueError) as exc:
        return _failed(exc)
    return SetRun(host, modified, "", measurement=measurement)


def _failed(exc: Exception) -> SetRun:
    return SetRun(error=f"{type(exc).__name__}: {exc}", error_kind=FailureKind.RUN)
