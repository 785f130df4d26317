"""Simulator demo: build an AscendC kernel for the simulator, run it on CPU tensors, read its report.

    python examples/simulator_demo.py

The kernel (examples/swiglu_kernel.cpp) is ordinary AscendC, written as it would be for an
Ascend NPU. The simulator builds it with g++ (once; later runs reuse the build), runs it on 8
logical cores, checks the hardware rules as it goes and estimates the NPU time.
"""

from __future__ import annotations

import struct
import time
from pathlib import Path

import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

SOURCE = Path(__file__).with_name("swiglu_kernel.cpp")
TILE = 2048  # elements per tile: 3 double-buffered queues + 1 scratch buffer stay well inside the UB
BLOCKS = 8


def tiling(total: int) -> bytes:
    return struct.pack("<II", total, TILE)  # struct TilingData { uint32_t totalLength, tileLength; }


def swiglu_reference(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(gate) * up


def main() -> None:
    started = time.perf_counter()
    kernel = compile_kernel(SOURCE.read_text(), filename=SOURCE.name)
    how = "reused the cached build" if kernel.build.cached else f"built in {kernel.build.seconds:.1f} s"
    print(f"kernel {kernel.entry}: {how} ({time.perf_counter() - started:.1f} s including the runtime module)")

    print(f"\n{'elements':>10} {'max |error|':>12} {'est. NPU us':>12} {'GM bytes':>10}  vector instructions")
    for total in (1, 1000, 4096, 100_003, 1 << 20):
        gate, up = torch.randn(total), torch.randn(total)
        out = torch.full_like(gate, float("nan"))
        report = kernel.launch(BLOCKS, gate, up, out, None, tiling(total), soc="Ascend910B2")
        error = (out - swiglu_reference(gate, up)).abs().max().item()
        ops = ", ".join(f"{name} x{count}" for name, (count, _) in sorted(report.vector_ops().items()))
        print(f"{total:>10} {error:>12.2e} {report.estimated_ns / 1000:>12.1f} {report.gm_bytes:>10}  {ops}")

    print("\nA hardware rule broken on purpose (the output tensor is too short):")
    gate = up = torch.randn(4096)
    try:
        kernel.launch(BLOCKS, gate, up, torch.empty(4000), None, tiling(4096))
    except SimulatorError as error:
        print(f"  {error}")

    print("\nThe same kernel in a child process with a time limit (how generated kernels are run):")
    out = torch.empty(4096)
    report = kernel.launch_isolated(BLOCKS, gate, up, out, None, tiling(4096), timeout=60)
    print(f"  correct: {torch.allclose(out, swiglu_reference(gate, up), atol=1e-5)}, "
          f"estimated NPU time {report.estimated_ns / 1000:.1f} us")


if __name__ == "__main__":
    main()
