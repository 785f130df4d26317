"""Generate: a KernelTask -> Candidates (AscendC sources following the kernel contract).

The kernel contract every candidate follows, whoever wrote it:

- ``#include "kernel_operator.h"`` and nothing that touches the OS;
- a POD ``struct TilingData``;
- a host tiling function ``extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t
  tensorCount, const int32_t* ranks, const int64_t* dims, TilingData* tiling, uint64_t*
  workspaceBytes)`` that reads the shapes (inputs, then outputs: ``ranks[i]`` dims each,
  concatenated in ``dims``), fills the tiling and returns the number of blocks to launch
  (0: this kernel cannot handle these shapes);
- a kernel entry ``extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR in0, ...,
  GM_ADDR out0, ..., GM_ADDR workspace, GM_ADDR tiling)`` that starts with
  ``GET_TILING_DATA(t, tiling);``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from ._paths import csrc_dir
from .capture import KernelTask

ENTRY = "ascendgen_kernel"
TILING_FUNCTION = "ascendgen_tiling"


@dataclass(frozen=True)
class Candidate:
    """One kernel source for a task, and where it came from."""

    source: str
    generator: str  # "builtin-<version>", or the model that wrote it
    variant: dict = field(default_factory=dict)  # the knobs that distinguish it from its siblings
    description: str = ""

    @property
    def label(self) -> str:
        knobs = ", ".join(f"{k}={v}" for k, v in sorted(self.variant.items()))
        return f"{self.generator}({knobs})" if knobs else self.generator


def fill_template(name: str, regions: dict[str, str]) -> str:
    """``csrc/templates/<name>.cpp`` with the text between ``// <<region`` and ``// >>region`` replaced."""
    lines = (csrc_dir() / "templates" / f"{name}.cpp").read_text().splitlines()
    out: list[str] = []
    skipping = None
    for line in lines:
        marker = line.strip()
        if marker.startswith("// <<"):
            skipping = marker[5:]
            out.append(line)
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + text if text else text for text in regions[skipping].splitlines())
        elif marker.startswith("// >>"):
            skipping = None
            out.append(line)
        elif skipping is None:
            out.append(line)
    return "\n".join(out) + "\n"


def generate(task: KernelTask, variants: int) -> list[Candidate]:
    """Candidates for ``task`` from the built-in generator (raises UnsupportedFunction)."""
    from .builtin_generator import generate_builtin

    return generate_builtin(task, variants)
