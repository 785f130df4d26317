"""Records: the plain data that passes between stages, and the kernel contract's names.

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

A candidate may instead be an operator project (the msopgen layout the field's models write: op_host/<op>_tiling.h,
op_host/<op>.cpp, op_kernel/<op>.cpp): its ``source`` is then a *file bundle* (``join_files``), each file after a
banner line, and the targets run it under the same contract (its TilingFunc plans each launch).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import torch

from torch_ascendgen import config

ENTRY = "ascendgen_kernel"
TILING_FUNCTION = "ascendgen_tiling"
TARGETS = ("auto", "sim", "npu")
ATTRS_FILE = "attrs.json"  # an operator-project bundle's attribute values, by OpDef name (sim/project_kernel.py)
DIRECT_LAUNCH_FILE = "direct_launch.json"  # marks a direct-launch bundle and names its parts (sim/direct_kernel.py)
FILE_BANNER = "// ==== ascendgen file: "  # a bundle's line before each file: the banner, the file's relative path
_BANNER_LINE = re.compile(r"^// ==== ascendgen file: (\S+)$", re.M)


def join_files(files: Mapping[str, str]) -> str:
    """Several files as one source text (a *bundle*), in the order given; ``split_files`` gives them back."""
    if not files:
        raise ValueError("a file bundle needs at least one file")
    parts = []
    for path, text in files.items():
        if not re.fullmatch(r"[\w.+-]+(?:/[\w.+-]+)*", path) or ".." in path.split("/"):
            raise ValueError(f"{path!r} is not a relative file path (letters, digits, _.+- and /, no ..)")
        parts.append(f"{FILE_BANNER}{path}\n{text if text.endswith(chr(10)) else text + chr(10)}")
    return "".join(parts)


def split_files(source: str) -> dict[str, str] | None:
    """A bundle's files (relative path -> text), or None when ``source`` is one kernel-contract file."""
    if not source.startswith(FILE_BANNER):
        return None
    banners = list(_BANNER_LINE.finditer(source))
    files = {}
    for banner, following in zip(banners, [*banners[1:], None]):
        end = following.start() if following else len(source)
        files[banner.group(1)] = source[banner.end() + 1:end]
    return files


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


@dataclass(frozen=True)
class Tolerance:
    """How close a float output must be to the reference.

    A user's tolerance (``ulps`` None): ``|got - ref| <= atol + rtol * |ref|`` element-wise, as ``torch.isclose``,
    with ``ref`` the original's value or the exact (float64) one (see _compare_outputs). The defaults
    (default_tolerance) set ``ulps`` instead: ``|got - ref| <= atol + ulps * ulp(ref)`` in ulps of the output dtype,
    and ``bias_ulps`` bounds the median of the signed error (see _require_unbiased); ``rtol`` then bounds only an
    output's relative L2 error as a whole (NORM_FACTOR * rtol)."""

    rtol: float
    atol: float
    ulps: float | None = None
    bias_ulps: float | None = None


GENERATORS = ("auto", "builtin", "llm")


@dataclass(frozen=True)
class Options:
    """What the decorator (or torch.compile's options) asked for."""

    variants: int = 4
    target: str = "auto"  # "auto", "sim" or "npu"
    generator: str = "auto"  # "auto", "builtin" or "llm" (see compile_task)
    tolerance: Tolerance | None = None  # None: dtype-aware defaults
    strict: bool = False  # raise instead of falling back to the original function
    cache_dir: Path | None = None
    soc: str | None = None  # the SoC to simulate; None: config.default_soc() (on an NPU: the device's own)
    progress: bool = True
    llm_url: str | None = None  # the model server; None: config.llm_url()
    llm_model: str | None = None  # None: config.llm_model()

    @classmethod
    def from_arguments(cls, *, variants: int | None = None, target: str | None = None, generator: str | None = None,
                       rtol: float | None = None, atol: float | None = None, strict: bool | None = None,
                       cache_dir: str | Path | None = None, soc: str | None = None, progress: bool | None = None,
                       llm_url: str | None = None, llm_model: str | None = None) -> Options:
        """The decorator's keyword arguments (and torch.compile's options) as Options; unset ones from the
        environment (config.py). Raises ValueError naming a bad value."""
        if (rtol is None) != (atol is None):
            raise ValueError("give both rtol and atol, or neither (dtype-aware defaults)")
        options = cls(
            variants=int(variants) if variants is not None else config.variants(),
            target=target or config.target(), generator=generator or config.generator(),
            tolerance=Tolerance(float(rtol), float(atol)) if rtol is not None else None,
            strict=config.strict() if strict is None else bool(strict),
            cache_dir=Path(cache_dir) if cache_dir is not None else None, soc=soc,
            progress=config.progress() if progress is None else bool(progress), llm_url=llm_url, llm_model=llm_model,
        )
        if options.target not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(map(repr, TARGETS))}, not {options.target!r}")
        if options.generator not in GENERATORS:
            raise ValueError(f"generator must be one of {', '.join(GENERATORS)}, not {options.generator!r}")
        if options.variants < 1:
            raise ValueError(f"variants must be at least 1, not {options.variants}")
        return options


@dataclass(frozen=True)
class InputSet:
    """Named inputs for one check, e.g. ``"tail [7, 33], [33]"``."""

    name: str
    tensors: tuple[torch.Tensor, ...] = field(compare=False, repr=False)
    seed: int | None = None  # the seed make_input_sets drew the values from (in failure reasons, to reproduce)
    optional: bool = False  # skipped, not failed, when the reference itself raises on it (values it may reject)

    @property
    def shapes(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(t.shape) for t in self.tensors)


class FailureKind(enum.Enum):
    """Why a candidate lost, set where the failure happens (never parsed from its sentence)."""

    SCREEN = "screen"  # a model's reply was refused before any build (generators/llm/screen.py)
    BUILD = "build"  # the compiler rejected the source
    AUDIT = "audit"  # the built library was refused before anything loaded it (library_audit.py)
    DECLINED = "declined"  # its tiling refused the traced shapes
    RUN = "run"  # the kernel failed while running: a hardware rule broken, a device fault, bad launch arguments
    CRASH = "crash"  # it killed the process it ran in
    TIMEOUT = "timeout"  # it did not finish within its time limit
    MODIFIED_INPUT = "modified_input"  # it wrote to its inputs
    WRONG = "wrong"  # its outputs are not the original's (verification)
    BUDGET = "budget"  # not evaluated: the search ran out of time


@dataclass(frozen=True)
class Repeat:
    """A later launch on an input set whose outputs differ bitwise from the first launch's."""

    launch: int  # the launch's number in the candidate's run, from 1
    block_order_seed: int
    outputs: tuple[torch.Tensor, ...]


@dataclass(frozen=True)
class SetRun:
    """A candidate's run on one input set, as the child saw it."""

    outputs: tuple[torch.Tensor, ...] = ()
    modified_inputs: tuple[int, ...] = ()
    error: str = ""
    measurement: Measurement | None = None
    declined: bool = False  # the kernel's tiling refused these shapes
    repeats: tuple[Repeat, ...] = ()  # later launches that gave other outputs (at most MAX_REPEATS_KEPT)
    error_kind: FailureKind | None = None  # set with ``error``: RUN, or DECLINED (with ``declined``)


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking a candidate; ``reason`` is one sentence a person or a model can act on.

    ``kind`` is "" when ok, else one of: raised, modified_input, not_tensors, aliasing, count,
    shape, dtype, device, values. The mismatch fields describe the failing output (or, when ok,
    the largest errors seen); ``passed_shapes`` lists the input shapes of the sets that passed.
    """

    ok: bool
    reason: str
    kind: str = ""
    input_set: str = ""
    output_index: int | None = None
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    mismatches: int = 0
    first_mismatch: tuple[int, ...] | None = None
    expected: float | None = None
    got: float | None = None
    passed_shapes: tuple[tuple[tuple[int, ...], ...], ...] = ()
    seed: int | None = None  # the input sets' seed (config.VERIFY_SEED_ENV reproduces them)
    max_ulps: float = 0.0  # the largest error from the exact result in ulps of the output dtype
    bias_ulps: float = 0.0  # the largest systematic error (median signed error, in ulps) of an output
    # a model's kernel that passed at the traced shapes: the other shapes it failed at, each with why (never run there)
    failed_shapes: tuple[tuple[tuple[tuple[int, ...], ...], str], ...] = ()


@dataclass(frozen=True)
class Measurement:
    """The figure candidates are ranked by, and how it was obtained."""

    time_ns: float  # estimated (simulator) or measured (NPU, median) kernel time
    method: str  # "sim-estimate" or "npu-events"
    cpu_ns: float = 0.0  # wall time of one simulated launch on this CPU, for information
    samples: int = 0  # how many timed calls the NPU figure is the median of
    spread_ns: float = 0.0  # interquartile range of those calls
    sample_ns: tuple[float, ...] = field(default=(), repr=False)  # every timed call, in call order


@dataclass(frozen=True)
class CandidateRecord:
    """What happened to one candidate."""

    candidate: Candidate
    verdict: Verdict | None  # None when it never produced outputs
    failure: str  # why it lost ("" when it passed)
    measurement: Measurement | None
    seconds: float  # wall time to build, run and check it
    # its library (a target's Build) when it built
    build: object | None = field(default=None, compare=False, repr=False)
    failure_kind: FailureKind | None = None  # why it lost (None when it passed)

    @property
    def ok(self) -> bool:
        return not self.failure

    @property
    def failed_shapes(self) -> tuple:
        """The shapes a passing kernel failed at, with why (see Verdict.failed_shapes)."""
        return self.verdict.failed_shapes if self.verdict else ()

    def rank(self) -> tuple[bool, float]:
        """Passing records sort by this: kernels right at every shape first, then the fastest."""
        return bool(self.failed_shapes), self.measurement.time_ns

    def summary(self) -> dict:
        return {"label": self.candidate.label, "variant": self.candidate.variant, "ok": self.ok,
                "failure": self.failure, "failure_kind": self.failure_kind.value if self.failure_kind else None,
                "time_ns": self.measurement.time_ns if self.measurement else None,
                "cpu_ns": self.measurement.cpu_ns if self.measurement else None, "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class SearchResult:
    records: tuple[CandidateRecord, ...]

    @property
    def winner(self) -> CandidateRecord | None:
        passing = [r for r in self.records if r.ok]
        return min(passing, key=CandidateRecord.rank) if passing else None
