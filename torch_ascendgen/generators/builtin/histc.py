"""torch.histc of a float32 input: the built-in generator's candidates from ``csrc/templates/histc.cpp``.

The plan (bins, the float32 range) comes from sort.py's ``plan_sort``; the variants differ in how a tile's bins
are counted: per bin on the vector unit (a compare and a counting GatherMask per bin: few bins) or one scalar
increment per element (many bins), and in the tile length. The cost model picks between them.
"""

from __future__ import annotations

from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.templates import fill_template
from torch_ascendgen.records import Candidate

VERSION = "builtin-histc-1"
MAX_BINS = 8192  # three arrays of the bins live in UB
_UB_BUDGET = 176 * 1024


def histc_candidates(task: KernelTask, plan, variants: int) -> list[Candidate]:
    """Up to ``variants`` candidates for ``torch.histc`` as ``plan`` (sort.HistcPlan) says."""
    if plan.bins > MAX_BINS:
        raise UnsupportedFunction(f"torch.histc with {plan.bins} bins; the built-in generator keeps at most "
                                  f"{MAX_BINS} bins in UB")
    counting = ["vector", "scalar"] if plan.bins <= 64 else ["scalar", "vector"]
    grid = [(tile, mode) for mode in counting for tile in (4096, 2048) if _ub_bytes(plan.bins, tile) <= _UB_BUDGET]
    return [Candidate(_emit(task, plan, tile, mode), VERSION,
                      {"template": "histc", "tile": tile, "counting": mode, "buffers": 2},
                      f"histc kernel, {plan.bins} bins counted by the {mode} unit, {tile}-element tiles")
            for tile, mode in grid[: max(1, variants)]]


def _ub_bytes(bins: int, tile: int) -> int:
    """UB the histc template's InitBuffer calls take (see HistcKernel::Init)."""
    bins_pad = (bins + 1 + 63) // 64 * 64
    slots = max(1, 8192 // bins_pad) * bins_pad
    return 2 * tile * 4 + 4 * tile * 4 + (2 * bins_pad + slots) * 4 + 2 * tile // 8


def _emit(task: KernelTask, plan, tile: int, mode: str) -> str:
    config = [f"constexpr uint32_t BINS = {plan.bins};",
              f"constexpr float LOW = {plan.low.hex()}f;",
              f"constexpr float HIGH = {plan.high.hex()}f;",
              f"constexpr float SPAN = {_float32_difference(plan.high, plan.low).hex()}f;",
              f"constexpr uint32_t TILE = {tile};",
              "constexpr int32_t BUFFER_NUM = 2;",
              f"constexpr bool SCALAR_COUNT = {'true' if mode == 'scalar' else 'false'};",
              f"constexpr int32_t SOURCE = {plan.source};"]
    params = ", ".join([f"GM_ADDR in{i}" for i in range(len(task.inputs))]
                       + [f"GM_ADDR out{i}" for i in range(len(task.outputs))]) + ","
    return fill_template("histc", {"config": "\n".join(config), "entry_params": params,
                                   "entry_args": f"in{plan.source}, out0,"})


def _float32_difference(high: float, low: float) -> float:
    """high - low in float32 arithmetic (both already float32 values), as torch computes the range's width."""
    import torch

    return (torch.tensor(high, dtype=torch.float32) - torch.tensor(low, dtype=torch.float32)).item()
