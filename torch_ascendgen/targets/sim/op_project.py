"""Operator projects (the msopgen layout LLM kernel benchmarks ask for) on the simulator, called like custom ops.

    project = OpProject.from_directory("add_custom")     # op_host/add_custom{_tiling.h,.cpp}, op_kernel/add_custom.cpp
    z = project(x, y)                                    # attributes by name: project(x, scale=0.5)

A call reads the OpDef (inputs, outputs, attributes, dtype combinations; op_host.py), builds the kernel for the
dtype combination the inputs match (op_kernel.py), then, in one sandboxed child, runs the op's InferShape,
InferDataType and TilingFunc for the inputs' shapes, dtypes, ValueDepend values and the attributes, allocates the
outputs, the workspace and the tiling bytes, and launches the kernel with the block dim and tiling key the
TilingFunc set (``isolated=False``: the host code in a child, the kernel in this process). A DYNAMIC input is a
list of tensors; its kernel parameter receives a ListTensorDesc block (list_tensor.py).

Output shapes: the op's InferShape when its OpDef sets one; else ``output_shapes=`` of the call; else each output
takes the first input's shape. Output dtypes: the matched combination's. Outputs are filled with a poison value
(NaN, or the integer minimum) before the launch, so that an element the kernel does not write never passes.
The workspace is the sum of GetWorkspaceSizes (at least 32 bytes, so the kernel always gets a pointer).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from torch_ascendgen import config
from torch_ascendgen.errors import KernelBuildError, OpProjectError, SimulatorError
from torch_ascendgen.targets.runtime import build_runtime_module, use_runtime_module
from torch_ascendgen.targets.sandbox import Worker, run_in_child
from torch_ascendgen.targets.sim import library_audit, op_host
from torch_ascendgen.targets.sim.build import SimBuild, build_sim_kernel
from torch_ascendgen.targets.sim.list_tensor import list_tensor_desc
from torch_ascendgen.targets.sim.op_host import HostPlan, OpDescription, ParamDecl, TensorSpec
from torch_ascendgen.targets.sim.op_kernel import (
    BY_TORCH,
    BY_VALUE,
    ENTRY,
    PLAIN_FORMATS,
    built_per_key,
    dtype_name,
    kernel_log,
    kernel_source,
)
from torch_ascendgen.targets.sim.simulator import RunReport, SimKernel
from torch_ascendgen.targets.soc import SocProfile, get_soc


@dataclass(frozen=True)
class OpRun:
    """One call's outputs, what the host code decided and the launch's report."""

    outputs: tuple[torch.Tensor, ...]
    plan: HostPlan
    report: RunReport


@dataclass(frozen=True)
class _Call:
    """A call resolved against the OpDef: the matched combination and what goes to the host code."""

    combo: int
    inputs: tuple[torch.Tensor | tuple[torch.Tensor, ...] | None, ...]  # per OpDef input; a tuple: DYNAMIC
    input_specs: tuple[tuple[int, TensorSpec], ...]  # (OpDef input index, spec) per instance; absent: not present
    output_specs: tuple[TensorSpec, ...]
    attr_lines: tuple[str, ...]

    @property
    def listed(self) -> tuple[torch.Tensor, ...]:
        """The tensors of the DYNAMIC inputs, in order: their GM goes to the launch as extra regions."""
        return tuple(t for value in self.inputs if isinstance(value, tuple) for t in value)


class OpProject:
    """An operator project: tiling header, op_host source and op_kernel source, with their file names."""

    def __init__(self, tiling_header: tuple[str, str], op_host: tuple[str, str], op_kernel: tuple[str, str],
                 host_headers: Sequence[tuple[str, str]] = (), op_type: str | None = None,
                 kernel_headers: Sequence[tuple[str, str]] = ()):
        self.tiling_header = tiling_header  # (file name in op_host/, text)
        self.op_host = op_host
        self.op_kernel = op_kernel
        self.host_headers = tuple(host_headers)
        self.kernel_headers = tuple(kernel_headers)  # (name as the kernel's #include "..." gives it, text)
        self.op_type = op_type
        self._kernels: dict[tuple, SimKernel] = {}
        self._worker: Worker | None = None  # inside ``with project:``, the child every call runs in

    def __enter__(self) -> OpProject:
        """Inside ``with project:`` calls share one sandboxed child (started once, restarted after a call that
        crashed it or overran its time), instead of one child each: a series of calls pays one start."""
        if self._worker is None:
            self._worker = Worker(_warm_up, config.build_timeout_s(), f"the process that runs {self.op_kernel[0]}",
                                  warm_up_args=(str(build_runtime_module()),))
        return self

    def __exit__(self, *exc_info: Any) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.__exit__(*exc_info)

    @classmethod
    def from_sources(cls, tiling_header: str, op_host: str, op_kernel: str, *, name: str = "op",
                     op_type: str | None = None) -> OpProject:
        """A project from its three sources; ``name`` is the op's file name (add_custom)."""
        return cls((f"{name}_tiling.h", tiling_header), (f"{name}.cpp", op_host), (f"{name}.cpp", op_kernel),
                   op_type=op_type)

    @classmethod
    def from_directory(cls, path: str | Path, name: str | None = None, op_type: str | None = None) -> OpProject:
        """A project laid out as msopgen does: op_host/<name>_tiling.h, op_host/<name>.cpp, op_kernel/<name>.cpp
        (other op_host/*.h are given to the host build too, op_kernel/*.h to the kernel build)."""
        root = Path(path)
        kernels = sorted(p.stem for p in (root / "op_kernel").glob("*.cpp"))
        if name is None and len(kernels) != 1:
            raise OpProjectError(f"{root}/op_kernel holds {len(kernels)} kernels ({', '.join(kernels) or 'none'}); "
                                 "pass name= to pick one")
        name = name or kernels[0]
        wanted = [root / "op_host" / f"{name}_tiling.h", root / "op_host" / f"{name}.cpp",
                  root / "op_kernel" / f"{name}.cpp"]
        missing = [str(p.relative_to(root)) for p in wanted if not p.is_file()]
        if missing:
            raise OpProjectError(f"the operator project {root} lacks {', '.join(missing)}")
        headers = [(p.name, p.read_text()) for p in sorted((root / "op_host").glob("*.h")) if p != wanted[0]]
        kernel_headers = [(p.name, p.read_text()) for p in sorted((root / "op_kernel").glob("*.h"))]
        return cls(*((p.name, p.read_text()) for p in wanted), host_headers=headers, op_type=op_type,
                   kernel_headers=kernel_headers)

    # ---- the host half -----------------------------------------------------------------------------------

    @functools.cached_property
    def host_library(self) -> Path:
        files = {f"op_host/{n}": t for n, t in (self.tiling_header, *self.host_headers, self.op_host)}
        return op_host.build_op_host(files, f"op_host/{self.op_host[0]}")

    def describe(self, soc: str | None = None) -> OpDescription:
        """What the OpDef declares on ``soc`` (its AddConfig's own lists when it has any)."""
        return self._describe(op_host.soc_family(self._soc(soc)))

    @functools.lru_cache(maxsize=8)  # noqa: B019 -- one project object lives as long as its users
    def _describe(self, family: str) -> OpDescription:
        profile = next(p for p in _profiles() if op_host.soc_family(p) == family)
        description = op_host.describe(self.host_library, profile, self.op_type)
        check_description(description)
        return description

    def plan(self, *inputs: torch.Tensor | None, soc: str | None = None,
             output_shapes: Sequence[Sequence[int]] | None = None, **attrs: Any) -> HostPlan:
        """What the op's host code (InferShape, InferDataType, TilingFunc) decides for these inputs."""
        return self._plan(self._resolve(inputs, attrs, output_shapes, self._soc(soc)), self._soc(soc))[1]

    # ---- a call ------------------------------------------------------------------------------------------

    def __call__(self, *inputs: torch.Tensor | None, **attrs: Any) -> torch.Tensor | tuple[torch.Tensor, ...]:
        outputs = self.run(*inputs, **attrs).outputs
        return outputs[0] if len(outputs) == 1 else outputs

    def run(self, *inputs: torch.Tensor | Sequence[torch.Tensor] | None, soc: str | None = None,
            isolated: bool = True, output_shapes: Sequence[Sequence[int]] | None = None, **attrs: Any) -> OpRun:
        """Run the op on CPU tensors: one per REQUIRED input, a tensor or None per OPTIONAL one, a list of tensors
        per DYNAMIC one; attributes by their OpDef names.

        The host code and the kernel run in one sandboxed child (kernels built per tiling key: the host code
        first, in a child of its own). ``isolated=False`` launches the kernel in this process (the host code
        still runs in a child): only for kernels you trust."""
        profile = self._soc(soc)
        call = self._resolve(inputs, attrs, output_shapes, profile)
        description = self._describe(op_host.soc_family(profile))
        if not isolated:
            description, plan = self._plan(call, profile)
            outputs, args = _launch_args(description, call, plan)
            report = _launch(self._kernel(description, call, plan.tiling_key), plan, args, profile.name)
            return OpRun(tuple(outputs), plan, report)
        plan = self._plan(call, profile)[1] if self._per_key else None
        kernel = self._kernel(description, call, plan.tiling_key if plan else 0)  # the child may not write the cache
        request, what = self._request(description, call, profile)
        args = (str(self.host_library), request, what, description, call, kernel.build, kernel.source,
                kernel.filename, profile.name, str(build_runtime_module()), plan)
        run = self._worker.call if self._worker is not None else run_in_child
        plan, outputs, report = _unwrap(run(_host_and_launch, *args, timeout=config.run_timeout_s(),
                                            what=f"{description.op_type} (its host code and kernel)"))
        return OpRun(tuple(outputs), plan, report)

    def _soc(self, soc: str | None) -> SocProfile:
        return get_soc(soc or config.default_soc())

    def _resolve(self, inputs: Sequence, attrs: dict, output_shapes, profile: SocProfile,
                 check_attrs: bool = True) -> _Call:
        description = self._describe(op_host.soc_family(profile))
        check_soc(description, profile)
        tensors = _input_tensors(description, inputs)
        combo = _match_combo(description, tensors)
        input_specs = tuple((ir, _spec(t, decl, combo))
                            for ir, (value, decl) in enumerate(zip(tensors, description.inputs))
                            for t in (value if isinstance(value, tuple) else (value,)))
        shapes = _fallback_output_shapes(description, tensors, output_shapes)
        output_specs = tuple(TensorSpec(True, d.dtype_at(combo), d.format_at(combo), s)
                             for d, s in zip(description.outputs, shapes))
        attrs_given = tuple(attr_lines(description, attrs)) if check_attrs else ()
        return _Call(combo, tensors, input_specs, output_specs, attrs_given)

    def _request(self, description: OpDescription, call: _Call, profile: SocProfile) -> tuple[str, str]:
        request = op_host.run_request(profile, description.op_type, list(call.input_specs), list(call.output_specs),
                                      list(call.attr_lines))
        return request, f"the host code (InferShape, TilingFunc) of {description.op_type}"

    def _plan(self, call: _Call, profile: SocProfile) -> tuple[OpDescription, HostPlan]:
        description = self._describe(op_host.soc_family(profile))
        request, what = self._request(description, call, profile)
        plan = op_host.parse_plan(op_host.ask(self.host_library, request, what))
        check_plan(description, call, plan)
        return description, plan

    # ---- the kernel half ---------------------------------------------------------------------------------

    def kernel(self, *inputs: torch.Tensor | Sequence[torch.Tensor] | None, soc: str | None = None,
               tiling_key: int = 0) -> SimKernel:
        """The kernel built for these inputs' dtype combination, to launch directly: its arguments are the inputs,
        the outputs, the workspace, the tiling bytes, then the tiling key (and a DYNAMIC input's tensors)."""
        profile = self._soc(soc)
        call = self._resolve(inputs, {}, None, profile, check_attrs=False)
        return self._kernel(self._describe(op_host.soc_family(profile)), call, tiling_key)

    @property
    def _per_key(self) -> bool:
        return built_per_key(self.tiling_header[1], self.op_kernel[1])

    def _kernel(self, description: OpDescription, call: _Call, tiling_key: int) -> SimKernel:
        name, text = self.op_kernel
        cache_key = (call.combo, tiling_key if self._per_key else None, len(call.listed))
        if cache_key not in self._kernels:
            source = kernel_source(description, call.combo, self.tiling_header[1], text, cache_key[1], cache_key[2],
                                   header_name=self.tiling_header[0])
            try:
                build = build_sim_kernel(source, ENTRY, headers=dict(self.kernel_headers))
            except KernelBuildError as exc:
                raise KernelBuildError(kernel_log(str(exc), text, name), kernel_log(exc.log, text, name),
                                       exc.command) from None
            library_audit.audit_library(build.library)  # before any process loads it, as every model-written kernel
            self._kernels[cache_key] = SimKernel(build, text, f"op_kernel/{name}")
        return self._kernels[cache_key]


# ---- checks, each naming the problem and the fix -------------------------------------------------------------

@functools.cache
def _profiles() -> tuple[SocProfile, ...]:
    from torch_ascendgen.targets.soc import SOCS

    return tuple(SOCS.values())


def check_description(description: OpDescription) -> None:
    op = description.op_type
    for decl in description.outputs:
        if decl.param_type == "dynamic":
            raise OpProjectError(f"{op}: output {decl.name} is DYNAMIC (a tensor list); the simulator runs REQUIRED "
                                 "and OPTIONAL outputs only")
    for decl in (*description.inputs, *description.outputs):
        if not decl.dtypes:
            raise OpProjectError(f"{op}: {decl.name} declares no DataType({{...}}); list its dtypes")
    counts = {len(d.dtypes) for d in (*description.inputs, *description.outputs) if not d.dtype_list}
    if len(counts) > 1:
        raise OpProjectError(f"{op}: the DataType lists have different lengths ({sorted(counts)}); every input and "
                             "output lists one dtype per combination (or uses DataTypeList)")
    untyped = [a.name for a in description.attrs if not a.kind]
    if untyped:
        raise OpProjectError(f"{op}: attribute(s) {', '.join(untyped)} declare no type (.Float(), .Int(), ...)")


def check_soc(description: OpDescription, profile: SocProfile) -> None:
    family = op_host.soc_family(profile)
    if description.configs and family not in description.configs:
        raise OpProjectError(f"{description.op_type} is configured for {', '.join(description.configs)} "
                             f"(AICore().AddConfig); the simulated SoC {profile.name} is {family}: add "
                             f'this->AICore().AddConfig("{family}") or run on one of those SoCs (soc=)')


def _input_tensors(description: OpDescription, inputs: Sequence) -> tuple:
    names = [d.name for d in description.inputs]
    if len(inputs) != len(names):
        raise OpProjectError(f"{description.op_type} takes {len(names)} inputs ({', '.join(names)}), got "
                             f"{len(inputs)}; pass None for an OPTIONAL input left out")
    return tuple(_input(description.op_type, decl, value) for decl, value in zip(description.inputs, inputs))


def _input(op: str, decl: ParamDecl, value: Any) -> torch.Tensor | tuple[torch.Tensor, ...] | None:
    """One input as the call holds it: a contiguous CPU tensor, a tuple of them (DYNAMIC) or None (absent)."""
    if decl.param_type == "dynamic":
        if not isinstance(value, (list, tuple)) or not value:
            raise OpProjectError(f"{op}: input {decl.name} is DYNAMIC; pass a non-empty list of tensors")
        return tuple(_cpu_tensor(op, decl, v) for v in value)
    if value is None:
        if decl.param_type != "optional":
            raise OpProjectError(f"{op}: input {decl.name} is REQUIRED; pass a tensor")
        return None
    return _cpu_tensor(op, decl, value)


def _cpu_tensor(op: str, decl: ParamDecl, value: Any) -> torch.Tensor:
    if not isinstance(value, torch.Tensor) or value.device.type != "cpu":
        raise OpProjectError(f"{op}: input {decl.name} must be a CPU tensor, got "
                             f"{getattr(value, 'device', type(value).__name__)}")
    return value.contiguous()


def _match_combo(description: OpDescription, tensors: Sequence) -> int:
    given = [(d, BY_TORCH.get(t.dtype, -1)) for d, value in zip(description.inputs, tensors)
             for t in (value if isinstance(value, tuple) else (value,)) if t is not None]
    for combo in range(description.combo_count):
        if all(decl.dtype_at(combo) == value for decl, value in given):
            return combo
    declared = "; ".join(_combo_text(description, c) for c in range(description.combo_count))
    got = ", ".join(f"{d.name}={t.dtype}" for d, t in zip(description.inputs, tensors) if t is not None
                    and not isinstance(t, tuple))
    got += "".join(f", {d.name}=[{', '.join(str(x.dtype) for x in t)}]" for d, t in zip(description.inputs, tensors)
                   if isinstance(t, tuple))
    raise OpProjectError(f"{description.op_type} declares no dtype combination for {got.lstrip(', ')}; it declares: "
                         f"{declared} (add the combination to every input's and output's DataType list, or cast the "
                         "inputs)")


def _combo_text(description: OpDescription, combo: int) -> str:
    inputs = ", ".join(dtype_name(d.dtype_at(combo)) for d in description.inputs)
    outputs = ", ".join(dtype_name(d.dtype_at(combo)) for d in description.outputs)
    return f"({inputs}) -> ({outputs})"


def _spec(tensor: torch.Tensor | None, decl: ParamDecl, combo: int) -> TensorSpec:
    if tensor is None:
        return TensorSpec(False, decl.dtype_at(combo), decl.format_at(combo))
    fmt = decl.format_at(combo)
    if fmt not in PLAIN_FORMATS:
        raise OpProjectError(f"{decl.name}: format {fmt} of the matched combination is not simulated (plain "
                             f"layouts only: {', '.join(PLAIN_FORMATS.values())})")
    values = tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if decl.value_depend else None
    return TensorSpec(True, decl.dtype_at(combo), fmt, tuple(tensor.shape), values)


def _fallback_output_shapes(description: OpDescription, tensors: Sequence, output_shapes) -> list[tuple[int, ...]]:
    """Each output's shape when the op sets no InferShape: ``output_shapes``, else the first input's."""
    if output_shapes is not None:
        if len(output_shapes) != len(description.outputs):
            raise OpProjectError(f"output_shapes= gives {len(output_shapes)} shapes; {description.op_type} has "
                                 f"{len(description.outputs)} outputs")
        return [tuple(int(d) for d in s) for s in output_shapes]
    first = next((tuple((t[0] if isinstance(t, tuple) else t).shape) for t in tensors if t is not None), ())
    return [first] * len(description.outputs)


def attr_lines(description: OpDescription, attrs: dict) -> list[str]:
    names = [a.name for a in description.attrs]
    unknown = sorted(set(attrs) - set(names))
    if unknown:
        raise OpProjectError(f"{description.op_type} has no attribute {', '.join(unknown)}; its attributes: "
                             f"{', '.join(names) or 'none'}")
    lines = []
    for index, decl in enumerate(description.attrs):
        if decl.name in attrs:
            lines.append(f"attr {index} {op_host.ATTR_KINDS.index(decl.kind)} {_attr_value(decl, attrs[decl.name])}")
        elif not decl.has_default:
            raise OpProjectError(f"{description.op_type}: attribute {decl.name} ({decl.kind}) has no default value; "
                                 f"pass {decl.name}=")
    return lines


def _attr_value(decl, value: Any) -> str:
    """The driver's text for one attribute value, checked against the declared kind."""
    scalar = {"Bool": (bool,), "Int": (int,), "Float": (int, float), "String": (str,)}
    kind = decl.kind
    items = [value] if kind in scalar else value
    element = scalar.get(kind) or scalar[{"ListInt": "Int", "ListFloat": "Float", "ListBool": "Bool"}[kind]]
    ok = isinstance(items, (list, tuple)) and all(
        isinstance(v, element) and (bool not in element or isinstance(v, bool)) and
        (kind not in ("Int", "ListInt") or not isinstance(v, bool)) for v in items)
    if not ok:
        raise OpProjectError(f"attribute {decl.name} is declared {kind}; got {value!r}")
    text = [_word(kind, v) for v in items]
    return text[0] if kind in scalar else " ".join([str(len(text)), *text])


def _word(kind: str, value: Any) -> str:
    if "Float" in kind:
        return float(value).hex()
    if kind == "String":
        return value.encode().hex() or "-"
    return str(int(value))


def _launch_args(description: OpDescription, call: _Call, plan: HostPlan) -> tuple[list[torch.Tensor], list]:
    """The outputs (poisoned), and the kernel's arguments: inputs, outputs, workspace, tiling, then the key."""
    outputs = []
    for decl, spec, shape in zip(description.outputs, call.output_specs, plan.output_shapes):
        dtype = _torch_dtype(spec.dtype, f"output {decl.name}")
        outputs.append(torch.full(tuple(shape), _poison(dtype), dtype=dtype))
    workspace = torch.zeros(max(sum(plan.workspaces), 32), dtype=torch.uint8)
    inputs = [list_tensor_desc(v) if isinstance(v, tuple) else v for v in call.inputs]  # addresses: this process's
    return outputs, [*inputs, *outputs, workspace, plan.tiling or None, plan.tiling_key, *call.listed]


def _host_and_launch(library: str, request: str, what: str, description: OpDescription, call: _Call, build: SimBuild,
                     kernel_text: str, filename: str, soc: str, runtime: str, plan: HostPlan | None) -> tuple:
    """In the child: the host code's plan (unless given), then the launch. ((plan, outputs, report), None), or
    (None, (a SimulatorError, its debug text)): the text goes as data, as pickling the error would drop it."""
    if plan is None:
        answer = op_host.answer_in_child(library, request)
        if answer.startswith("error "):
            raise OpProjectError(f"{what}: {answer[6:].strip()}")
        plan = op_host.parse_plan(answer)
        check_plan(description, call, plan)
    outputs, args = _launch_args(description, call, plan)
    use_runtime_module(runtime)
    try:
        report = _launch(SimKernel(build, kernel_text, filename), plan, args, soc)
    except SimulatorError as exc:
        return None, (exc, exc.debug_text)
    return (plan, outputs, report), None


def _launch(kernel: SimKernel, plan: HostPlan, args: list, soc: str) -> RunReport:
    """The one place an operator project's kernel is launched (in the child, or here with ``isolated=False``):
    as bisheng builds operator projects, with --cce-auto-sync (the compiler syncs the scalar pipe)."""
    return kernel.launch(plan.block_dim, *args, soc=soc, auto_sync=True)


def _warm_up(runtime: str) -> None:
    """A shared child's warm-up: the runtime module the parent built (the child cannot write the cache)."""
    use_runtime_module(runtime)


def _unwrap(answer: Any) -> tuple:
    """What _host_and_launch returned, or its SimulatorError raised with the launch's debug text."""
    done, failure = answer
    if failure is not None:
        error, text = failure
        error.debug_text = text
        raise error
    return done


def check_plan(description: OpDescription, call: _Call, plan: HostPlan) -> None:
    op = description.op_type
    if plan.status != 0:
        shapes = ", ".join(str(list(s.shape)) for _, s in call.input_specs if s.present)
        raise OpProjectError(f"TilingFunc of {op} returned failure (ge::graphStatus {plan.status}) for input shapes "
                             f"{shapes}; these shapes or attributes are outside what its tiling handles")
    if plan.block_dim == 0:
        raise OpProjectError(f"TilingFunc of {op} set block dim 0 (context->SetBlockDim): the launch would run no "
                             "core; set at least 1 (empty inputs need a kernel that handles them, or no launch)")
    if plan.block_dim > 65535:
        raise OpProjectError(f"TilingFunc of {op} set block dim {plan.block_dim}; at most 65535")
    for decl, shape in zip(description.outputs, plan.output_shapes):
        if any(d < 0 for d in shape):
            raise OpProjectError(f"{op}: InferShape left output {decl.name} with shape {list(shape)}; every dim "
                                 "must be set (>= 0)")
    if description.has_infer_dtype:
        for decl, spec, got in zip(description.outputs, call.output_specs, plan.output_dtypes):
            if got != spec.dtype:
                raise OpProjectError(f"{op}: InferDataType sets {decl.name} to {dtype_name(got)}, the matched dtype "
                                     f"combination declares {dtype_name(spec.dtype)}")


def _torch_dtype(value: int, what: str) -> torch.dtype:
    dtype = BY_VALUE.get(value, (None, None, None))[2]
    if dtype is None:
        raise OpProjectError(f"{what} is {dtype_name(value)}, which the simulator has no tensor type for")
    return dtype


def _poison(dtype: torch.dtype) -> float | int | bool:
    if dtype.is_floating_point:
        return float("nan")
    if dtype == torch.bool:
        return True
    return torch.iinfo(dtype).min
