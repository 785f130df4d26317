"""What the backend did with each graph: a report per graph (which regions became kernels, which stayed eager and
why, each region's estimated NPU time against eager's), the last 100 of them, and the backend's warnings.

Light on purpose (no torch, no dynamo): ``import torch_ascendgen`` exports ``last_report`` and ``reports``.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass, field

from torch_ascendgen.errors import AscendGenWarning

_KEPT = 100


@dataclass
class RegionReport:
    """One region of a graph: its ops, whether it runs as a kernel, and the estimated times."""

    name: str
    ops: list[str]
    kernel: bool
    reason: str = ""  # why it stayed eager
    origin: str = ""  # "cache", "seed" or "search" (kernels)
    key: str = ""  # the task key (capture.KernelTask.key)
    kernel_ns: float | None = None  # the simulator's estimate at the graph's shapes (NPU: the entry's timing)
    eager_ns: float = 0.0  # bytes each op moves at the SoC's HBM bandwidth, plus a launch per op
    too_small: bool = False  # fewer ops than min_region_ops
    seconds: float = 0.0  # compile time (capture, cache or search, verification at the graph's shapes)

    def line(self) -> str:
        ops = ", ".join(op.replace("aten.", "").replace(".default", "") for op in self.ops)
        if self.kernel:
            kernel = f"{self.kernel_ns / 1000:8.2f} us" if self.kernel_ns is not None else "       ? us"
            return (f"  {self.name:<22} kernel ({self.origin:<6}, {self.seconds:5.1f} s) {kernel}  vs eager "
                    f"{self.eager_ns / 1000:8.2f} us  [{ops}]")
        return f"  {self.name:<22} eager: {self.reason}  [{ops}]"


@dataclass
class CompileReport:
    """What the backend did with one graph."""

    graph: str
    seconds: float = 0.0
    passthrough: str = ""  # why the whole graph runs unchanged
    regions: list[RegionReport] = field(default_factory=list)
    other_eager_ns: float = 0.0  # estimate of the ops in no kernel (they run eagerly either way)
    soc: str = ""

    @property
    def kernels(self) -> list[RegionReport]:
        return [r for r in self.regions if r.kernel]

    @property
    def compiled_ns(self) -> float:
        """The graph's estimate with the kernels: kernels where there are, eager estimates elsewhere."""
        return self.other_eager_ns + sum(r.kernel_ns if r.kernel_ns is not None else r.eager_ns for r in self.kernels)

    @property
    def eager_ns(self) -> float:
        return self.other_eager_ns + sum(r.eager_ns for r in self.kernels)

    def text(self) -> str:
        if self.passthrough:
            return f"torch_ascendgen backend, {self.graph}: runs unchanged: {self.passthrough}"
        lines = [f"torch_ascendgen backend, {self.graph}: {len(self.kernels)} of {len(self.regions)} region(s) "
                 f"became kernels in {self.seconds:.2f} s (estimated NPU time on {self.soc}: kernels from the "
                 "simulator's cost model; eager as one launch per op, its blocks' dispatch and its bytes at the "
                 "HBM bandwidth; a region whose kernel is not faster stays eager)"]
        lines += [region.line() for region in self.regions]
        lines.append(f"  whole graph: {self.compiled_ns / 1000:.2f} us with kernels vs {self.eager_ns / 1000:.2f} us "
                     f"eager ({self.other_eager_ns / 1000:.2f} us of it in ops that run eagerly either way)")
        return "\n".join(lines)


_REPORTS: list[CompileReport] = []
_REPORTS_LOCK = threading.Lock()


def last_report() -> CompileReport | None:
    """The report of the most recent graph the backend compiled in this process."""
    with _REPORTS_LOCK:
        return _REPORTS[-1] if _REPORTS else None


def reports() -> list[CompileReport]:
    """The reports of every graph compiled in this process (oldest first; the last 100)."""
    with _REPORTS_LOCK:
        return list(_REPORTS)


def keep(report: CompileReport, show: bool) -> None:
    """Adds ``report`` to the reports; ``show`` prints it too (the ``report`` option)."""
    with _REPORTS_LOCK:
        _REPORTS.append(report)
        del _REPORTS[:-_KEPT]
    if show:
        print(report.text(), flush=True)


def warn(message: str) -> None:
    """One AscendGenWarning (a failure of ours, not a region the generator declined: those are log lines)."""
    warnings.warn(f"torch_ascendgen backend: {message}", AscendGenWarning, stacklevel=2)
