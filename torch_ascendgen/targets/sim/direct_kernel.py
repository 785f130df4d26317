"""A direct-launch submission as a pipeline candidate: a file bundle whose ``direct_launch.json`` describes it.

MultiKernelBench's direct-launch format (direct_launch.py) has no tiling function: its pybind function computes the
tiling, allocates its outputs and launches the kernels itself. DirectLaunchKernel gives it the calls ContractKernel
makes of a kernel (``tiling``, ``launch``, ``idle_report``), so the search's child, the cache and the serving worker
run it as they run every kernel:

- ``build_direct`` (the parent): the submission built in the build sandbox (direct_launch.build_direct_launch); the
  function to call is the one ``ModelNew.forward`` calls (read with ``ast``, never run); its arguments are the
  function's inputs, in order.
- ``tiling`` asks for one block and no workspace (the host code decides both).
- ``launch`` calls the function in this process through the extension shim's driver: only in a sandboxed one (the
  search's child, the serving worker), in a folder of its scratch directory (its HOME). What it returns must be the
  function's outputs in number, shape and dtype; they are copied into the outputs ContractKernel allocated. The
  estimate is the sum of its launches'. A block order cannot be imposed on launches the host code makes:
  ``block_order_seed`` is ignored.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torch_ascendgen.errors import KernelArgumentError, KernelBuildError, ScreenRejected
from torch_ascendgen.records import DIRECT_LAUNCH_FILE, split_files
from torch_ascendgen.targets.sim import direct_launch
from torch_ascendgen.targets.sim.simulator import RunReport, SimKernel, Tiling


@dataclass(frozen=True)
class DirectCandidateBuild:
    """A built direct-launch candidate, the function its model calls and how many inputs it takes (picklable)."""

    build: direct_launch.DirectBuild
    function: str
    inputs: int

    @property
    def library(self) -> Path:
        return self.build.library

    def to_json(self) -> dict:
        build = {**dataclasses.asdict(self.build), "directory": str(self.build.directory),
                 "library": str(self.build.library)}
        return {"build": build, "function": self.function, "inputs": self.inputs}

    @classmethod
    def from_json(cls, data: dict) -> DirectCandidateBuild:
        fields = data["build"]
        build = direct_launch.DirectBuild(**{**fields, "directory": Path(fields["directory"]),
                                             "library": Path(fields["library"]),
                                             "functions": tuple(fields["functions"])})
        return cls(build, data["function"], int(data["inputs"]))


def build_direct(source: str, task) -> DirectCandidateBuild:
    """The bundle's submission built, and its function; KernelBuildError for every fault of the submission."""
    files = split_files(source)
    try:
        described = json.loads(files[DIRECT_LAUNCH_FILE])
        model_path, _, model_class = str(described.get("model", "ModelNew.py::ModelNew")).partition("::")
        suffixes = direct_launch.SOURCE_SUFFIXES + direct_launch.HEADER_SUFFIXES
        code = {p: t for p, t in files.items() if p.endswith(suffixes)}
        binding = (described.get("binding") or [None])[0]
        build = direct_launch.build_direct_launch(code, binding, described.get("kernels") or None,
                                                  described.get("module"))
        function = direct_launch.forward_function(files.get(model_path, ""), build.functions, model_class or "ModelNew")
    except (ValueError, KeyError, AttributeError, ScreenRejected, KernelArgumentError) as exc:
        raise KernelBuildError(f"the direct-launch submission: {exc}") from None
    return DirectCandidateBuild(build, function, len(task.inputs))


class DirectLaunchKernel:
    """A DirectCandidateBuild with the calls ContractKernel makes of a kernel (run only in a sandboxed process)."""

    def __init__(self, built: DirectCandidateBuild):
        self.built = built

    @staticmethod
    def idle_report(soc: str) -> RunReport:
        return SimKernel.idle_report(soc)

    def tiling(self, shapes: Sequence[Sequence[int]], soc: str) -> Tiling:
        return Tiling(b"", 1, 0)

    def launch(self, block_dim: int, *args: Any, soc: str, labels: Sequence[str] = (), **options: Any) -> RunReport:
        """ContractKernel's launch (inputs, outputs, workspace, tiling): the function called on the inputs, what it
        returns copied into the outputs."""
        inputs, outputs = args[:self.built.inputs], args[self.built.inputs:-2]
        scratch = Path(os.environ.get("HOME") or tempfile.gettempdir())
        run = direct_launch.call_here(self.built.build, self.built.function, [t.contiguous() for t in inputs],
                                      scratch, soc)
        self._check(run.outputs, outputs)
        for target, result in zip(outputs, run.outputs):
            target.copy_(result)
        estimate = sum(launch.estimated_ns for launch in run.launches)
        blocks = max((launch.block_dim for launch in run.launches), default=0)
        return RunReport(soc, blocks, estimate, 0.0, 0.0, cores=[], debug_text=run.debug_text)

    def _check(self, got: Sequence, wanted: Sequence) -> None:
        function = self.built.function
        if len(got) != len(wanted):
            raise KernelArgumentError(f"{function} returned {len(got)} tensors; the function returns {len(wanted)}")
        for index, (result, output) in enumerate(zip(got, wanted)):
            if result.shape != output.shape or result.dtype != output.dtype:
                raise KernelArgumentError(f"{function} returned output {index} as {result.dtype} {list(result.shape)}; "
                                          f"the function's is {output.dtype} {list(output.shape)}")
