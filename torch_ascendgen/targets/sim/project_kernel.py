"""An operator project as a pipeline candidate: a file bundle (records.split_files) run under the kernel contract.

The field's models write operator projects (op_host/<op>_tiling.h, op_host/<op>.cpp, op_kernel/<op>.cpp: see
docs/operator_projects.md). The search's child, the cache and the serving worker run every kernel through
ContractKernel's calls, ``tiling(shapes)`` and ``launch(...)``; ProjectKernel gives an operator project those calls.

- ``build_project`` (the parent): the host library (op_host.py, compiled in the build sandbox) and its OpDef
  (described in a sandboxed child), checked against the task: the OpDef's inputs and outputs are the task's, in
  order, and one of its dtype combinations is the task's dtypes; attributes take the values of the bundle's
  ``attrs.json``, else their defaults. Then the kernel, built for that combination (op_kernel.py) and audited.
- ``ProjectKernel.tiling`` runs the op's InferShape, InferDataType and TilingFunc for the shapes. It loads the host
  library into the process it runs in, so it runs only where model-written code may: the search's sandboxed child
  and the sandboxed serving worker. The tiling key travels in front of the tiling bytes.
- ``ProjectKernel.launch`` launches the kernel with that key, as bisheng builds operator projects (auto sync).
"""

from __future__ import annotations

import dataclasses
import functools
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torch_ascendgen.errors import KernelArgumentError, KernelBuildError, OpProjectError, ShapeDeclined
from torch_ascendgen.targets.project_files import ProjectFiles, project_files
from torch_ascendgen.targets.sim import library_audit, op_host
from torch_ascendgen.targets.sim.build import SimBuild, build_sim_kernel
from torch_ascendgen.targets.sim.op_host import AttrDecl, OpDescription, ParamDecl, TensorSpec
from torch_ascendgen.targets.sim.op_kernel import BY_TORCH, ENTRY, built_per_key, dtype_name, kernel_log, kernel_source
from torch_ascendgen.targets.sim.op_project import attr_lines, check_description, check_soc
from torch_ascendgen.targets.sim.simulator import RunReport, SimKernel, Tiling
from torch_ascendgen.targets.soc import get_soc

_KEY = struct.Struct("<Q")  # the tiling key, in front of the op's tiling bytes in the contract's tiling data


@dataclass(frozen=True)
class ProjectBuild:
    """What a project candidate's run needs, built and checked in the parent (picklable, to the child)."""

    kernel: SimBuild
    kernel_text: str
    kernel_file: str  # op_kernel/<op>.cpp: where diagnostics point
    host_library: Path
    description: OpDescription
    combo: int
    attr_lines: tuple[str, ...]

    @property
    def library(self) -> Path:
        """The kernel's library (what the cache publishes; the host library is rebuilt from the source)."""
        return self.kernel.library

    def to_json(self) -> dict:
        """The build as the serving worker's load request carries it (from_json reads it there)."""
        return {"kernel_key": self.kernel.key, "kernel_library": str(self.kernel.library),
                "header_names": [list(pair) for pair in self.kernel.header_names], "kernel_text": self.kernel_text,
                "kernel_file": self.kernel_file, "host_library": str(self.host_library),
                "description": dataclasses.asdict(self.description), "combo": self.combo,
                "attr_lines": list(self.attr_lines)}

    @classmethod
    def from_json(cls, data: dict) -> ProjectBuild:
        library = Path(data["kernel_library"])
        kernel = SimBuild(ENTRY, data["kernel_key"], library.parent, library, 0.0, True,
                          tuple(tuple(pair) for pair in data["header_names"]))
        described = data["description"]
        params = {kind: tuple(ParamDecl(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})
                              for d in described[kind]) for kind in ("inputs", "outputs")}
        description = OpDescription(**{**described, **params,
                                       "attrs": tuple(AttrDecl(**a) for a in described["attrs"]),
                                       "configs": tuple(described["configs"])})
        return cls(kernel, data["kernel_text"], data["kernel_file"], Path(data["host_library"]), description,
                   int(data["combo"]), tuple(data["attr_lines"]))


def build_project(source: str, task, soc: str) -> ProjectBuild:
    """The bundle's host library and kernel for ``task``. KernelBuildError for every fault of the project (compile
    errors naming its files, an OpDef that does not fit the task), as the model's feedback reads them."""
    files = project_files(source)
    try:
        host_library = op_host.build_op_host(files.host_files, f"op_host/{files.name}.cpp")
        profile = get_soc(soc)
        description = _described(host_library, op_host.soc_line(profile))
        check_description(description)
        check_soc(description, profile)
        combo = _task_combo(description, task)
        _require_attr_values(description, files.attrs)
        lines = tuple(attr_lines(description, files.attrs))
    except OpProjectError as exc:
        raise KernelBuildError(str(exc)) from None
    return ProjectBuild(_kernel(files, description, combo), files.op_kernel, files.kernel_file, host_library,
                        description, combo, lines)


@functools.lru_cache(maxsize=64)
def _described(host_library: Path, soc_line: str) -> OpDescription:
    """The OpDef, described once per library and SoC in this process (a sandboxed child each time otherwise)."""
    answer = op_host.ask(host_library, f"mode describe\nop -\n{soc_line}\n", "the OpDef")
    return op_host.parse_description(answer)


def _task_combo(description: OpDescription, task) -> int:
    """The dtype combination that is the task's inputs' and outputs' dtypes; OpProjectError when none is."""
    op = description.op_type
    for what, decls, specs in (("inputs", description.inputs, task.inputs),
                               ("outputs", description.outputs, task.outputs)):
        if len(decls) != len(specs):
            names = ", ".join(d.name for d in decls) or "none"
            raise OpProjectError(f"{op} declares {len(decls)} {what} ({names}); the function has {len(specs)}: declare "
                                 f"one {what[:-1]} per tensor, in order")
        for decl in decls:
            if decl.param_type != "required":
                raise OpProjectError(f"{op}: {decl.name} is {decl.param_type.upper()}; every input and output of a "
                                     "generated kernel is one tensor: declare it REQUIRED")
            if decl.value_depend:
                raise OpProjectError(f"{op}: input {decl.name} is ValueDepend; the tiling sees shapes, not values: "
                                     "drop ValueDepend and read the values in the kernel")
    wanted = [BY_TORCH.get(spec.dtype, -1) for spec in (*task.inputs, *task.outputs)]
    decls = (*description.inputs, *description.outputs)
    for combo in range(description.combo_count):
        if [d.dtype_at(combo) for d in decls] == wanted:
            return combo
    task_text = ", ".join(f"{d.name}={spec.dtype}".replace("torch.", "")
                          for d, spec in zip(decls, (*task.inputs, *task.outputs)))
    declared = "; ".join(", ".join(dtype_name(d.dtype_at(c)) for d in decls) for c in range(description.combo_count))
    raise OpProjectError(f"{op} declares no dtype combination for {task_text}; its DataType lists give: {declared}. "
                         "List the function's dtypes in every input's and output's DataType")


def _require_attr_values(description: OpDescription, given: dict) -> None:
    """Every attribute has a value: a generated op is called with none (the function's constants are fixed)."""
    unset = [f"{a.name} ({a.kind})" for a in description.attrs if not a.has_default and a.name not in given]
    if unset:
        raise OpProjectError(f"{description.op_type}: attribute(s) {', '.join(unset)} have no default value, and the "
                             "op is called with its attributes' defaults: declare each OPTIONAL with the function's "
                             'constant as its default, e.g. this->Attr("scale").AttrType(OPTIONAL).Float(0.5)')


def _kernel(files: ProjectFiles, description: OpDescription, combo: int) -> SimBuild:
    if built_per_key(files.tiling_header, files.op_kernel):
        raise KernelBuildError(f"{files.kernel_file} tests TILING_KEY_VAR in the preprocessor, or the tiling header "
                               "registers a TilingData class per key: a generated kernel is built once; branch on the "
                               "key with `if (TILING_KEY_IS(1)) {...}` and use one TilingData class")
    try:
        source = kernel_source(description, combo, files.tiling_header, files.op_kernel,
                               header_name=f"{files.name}_tiling.h")
        build = build_sim_kernel(source, ENTRY, headers=dict(files.kernel_headers))
    except OpProjectError as exc:
        raise KernelBuildError(str(exc)) from None
    except KernelBuildError as exc:
        name = f"{files.name}.cpp"
        raise KernelBuildError(kernel_log(str(exc), files.op_kernel, name), kernel_log(exc.log, files.op_kernel, name),
                               exc.command) from None
    library_audit.audit_library(build.library)  # before any process loads it, as every model-written kernel
    return build


class ProjectKernel:
    """A ProjectBuild with SimKernel's calls that ContractKernel makes (``tiling``, ``launch``, ``idle_report``)."""

    def __init__(self, build: ProjectBuild):
        self.build = build
        self.kernel = SimKernel(build.kernel, build.kernel_text, build.kernel_file)

    @staticmethod
    def idle_report(soc: str) -> RunReport:
        return SimKernel.idle_report(soc)

    def tiling(self, shapes: Sequence[Sequence[int]], soc: str) -> Tiling:
        """The op's host code for these shapes (inputs, then the task's outputs), run in this process: only in a
        sandboxed one. ShapeDeclined when its TilingFunc refuses them; KernelArgumentError when what it decides
        contradicts the function (output shapes or dtypes)."""
        description, combo = self.build.description, self.build.combo
        count = len(description.inputs)
        inputs = [(i, TensorSpec(True, d.dtype_at(combo), d.format_at(combo), tuple(map(int, s))))
                  for i, (d, s) in enumerate(zip(description.inputs, shapes[:count]))]
        outputs = [TensorSpec(True, d.dtype_at(combo), d.format_at(combo), tuple(map(int, s)))
                   for d, s in zip(description.outputs, shapes[count:])]
        request = op_host.run_request(get_soc(soc), description.op_type, inputs, outputs, list(self.build.attr_lines))
        answer = op_host.answer_in_child(str(self.build.host_library), request)
        if answer.startswith("error "):
            raise KernelArgumentError(f"the host code of {description.op_type}: {answer[6:].strip()}")
        plan = op_host.parse_plan(answer)
        _check_plan(description, combo, plan, shapes[:count], [o.shape for o in outputs])
        return Tiling(_KEY.pack(plan.tiling_key) + plan.tiling, plan.block_dim, max(sum(plan.workspaces), 32))

    def launch(self, block_dim: int, *args: Any, labels: Sequence[str] = (), **options: Any) -> RunReport:
        """ContractKernel's launch (inputs, outputs, workspace, tiling data): the key goes after the tiling."""
        *tensors, tiling = args
        (key,) = _KEY.unpack_from(tiling)
        return self.kernel.launch(block_dim, *tensors, tiling[_KEY.size:] or None, key,
                                  labels=[*labels, "tiling key"], auto_sync=True, **options)


def _check_plan(description: OpDescription, combo: int, plan, input_shapes, output_shapes) -> None:
    op = description.op_type
    shown = ", ".join(str(list(s)) for s in input_shapes)
    if plan.status != 0:
        raise ShapeDeclined(f"TilingFunc of {op} returned failure (ge::graphStatus {plan.status}) for input shapes "
                            f"{shown}", tuple(tuple(s) for s in input_shapes))
    if plan.block_dim == 0:
        raise ShapeDeclined(f"TilingFunc of {op} set block dim 0 for input shapes {shown}",
                            tuple(tuple(s) for s in input_shapes))
    if plan.block_dim > 65535:
        raise KernelArgumentError(f"TilingFunc of {op} set block dim {plan.block_dim} for input shapes {shown}; at "
                                  "most 65535")
    for decl, wanted, got in zip(description.outputs, output_shapes, plan.output_shapes):
        if tuple(got) != tuple(wanted):
            raise KernelArgumentError(f"InferShape of {op} gives output {decl.name} the shape {list(got)} for input "
                                      f"shapes {shown}; the function's output is {list(wanted)}")
    if description.has_infer_dtype:
        for decl, got in zip(description.outputs, plan.output_dtypes):
            if got != decl.dtype_at(combo):
                raise KernelArgumentError(f"InferDataType of {op} sets {decl.name} to {dtype_name(got)}; the "
                                          f"function's output is {dtype_name(decl.dtype_at(combo))}")

