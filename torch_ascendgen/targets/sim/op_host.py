"""The host half of an operator project: its op_host sources (tiling header, OpDef, InferShape, TilingFunc)
built into a library with the clean-room host API (csrc/ascendc_sim/host) and run for one call.

The host code is untrusted (a model may have written it): it is compiled in the build sandbox and runs only in a
sandboxed child (``run_in_child``), which loads the library, asks the driver (``host/ascendgen_op_host.cpp``)
and returns its text answer. No other process loads the library, so it is not put through library_audit.py
(whose allow-list is a kernel's: the host code's C++ runtime use, iostreams included, is wider). A TilingFunc
that crashes or loops costs that child: the caller gets a KernelCrashError or KernelTimeoutError naming the op.

The driver's protocol is line based. A request names the mode (``describe`` or ``run``), the SoC (name,
AddConfig family, arch, vector and cube cores, UB bytes: from targets/soc.py), and for ``run`` the inputs and
outputs (OpDef index, present, ge::DataType, ge::Format, rank, dims; a ValueDepend input's bytes) and the
attribute values the caller gave. The answer
starts with ``ok`` or ``error <message>``.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from torch_ascendgen import config
from torch_ascendgen._paths import sim_include_dir
from torch_ascendgen.errors import OpProjectError
from torch_ascendgen.targets.sandbox import run_in_child
from torch_ascendgen.targets.soc import ARCH_310P, SocProfile
from torch_ascendgen.targets.toolchain import (
    LIBRARY_FILE,
    MANIFEST_FILE,
    UntrustedBuild,
    compile_shared,
    compiler_identity,
    publish,
    staged,
    tree_digest,
)

HOST_FLAGS = ("-std=c++17", "-O1", "-fPIC", "-shared", "-pthread", "-fvisibility=hidden")
DRIVER = "ascendgen_op_host.cpp"
PARAM_TYPES = {1: "optional", 2: "required", 3: "dynamic"}
ATTR_KINDS = ("Bool", "Int", "Float", "String", "ListInt", "ListFloat", "ListBool")


def host_include_dir() -> Path:
    return sim_include_dir() / "host"


@dataclass(frozen=True)
class ParamDecl:
    """One Input()/Output() of an OpDef: its dtype and format per combination (ge enum values)."""

    name: str
    param_type: str  # "required", "optional" or "dynamic"
    dtypes: tuple[int, ...]
    formats: tuple[int, ...]
    dtype_list: bool  # DataTypeList: one dtype for every combination
    format_list: bool
    value_depend: bool

    def dtype_at(self, combo: int) -> int:
        return self.dtypes[0] if self.dtype_list else self.dtypes[combo]

    def format_at(self, combo: int) -> int:
        if not self.formats:
            return 2  # FORMAT_ND
        return self.formats[0] if self.format_list else self.formats[min(combo, len(self.formats) - 1)]


@dataclass(frozen=True)
class AttrDecl:
    name: str
    kind: str  # one of ATTR_KINDS, "" when the OpDef gave none
    required: bool
    has_default: bool


@dataclass(frozen=True)
class OpDescription:
    """What an op's OpDef declares, for the simulated SoC (its AddConfig's own lists when it has any)."""

    op_type: str
    inputs: tuple[ParamDecl, ...]
    outputs: tuple[ParamDecl, ...]
    attrs: tuple[AttrDecl, ...]
    configs: tuple[str, ...]  # the AddConfig SoC names
    has_tiling: bool
    has_infer_shape: bool
    has_infer_dtype: bool

    @property
    def combo_count(self) -> int:
        counts = {len(p.dtypes) for p in (*self.inputs, *self.outputs) if not p.dtype_list}
        return max(counts) if counts else 1


@dataclass(frozen=True)
class HostPlan:
    """What the op's host code decided for one call."""

    status: int  # TilingFunc's ge::graphStatus (0: GRAPH_SUCCESS)
    block_dim: int
    tiling_key: int
    tiling: bytes
    tiling_capacity: int
    workspaces: tuple[int, ...]
    output_shapes: tuple[tuple[int, ...], ...]
    output_dtypes: tuple[int, ...]


@dataclass(frozen=True)
class TensorSpec:
    """An input or output as the host code sees it: absent (an OPTIONAL input left out) or dtype, format, shape
    (and the values of a ValueDepend input)."""

    present: bool
    dtype: int = 0
    format: int = 2
    shape: tuple[int, ...] = ()
    values: bytes | None = None  # a ValueDepend input's elements, which the tiling may read


def soc_family(profile: SocProfile) -> str:
    """The AddConfig name of the SoC's family ("ascend910b", "ascend910_93", "ascend310p")."""
    if profile.name.startswith("Ascend910_93"):
        return "ascend910_93"
    if profile.name.startswith("Ascend910B"):
        return "ascend910b"
    if profile.npu_arch == ARCH_310P:
        return "ascend310p"
    return profile.name.lower()


def build_op_host(files: dict[str, str], op_host_file: str) -> Path:
    """The host library of these op_host files (relative path -> text), built once per content."""
    key = _key(files, op_host_file)
    directory = config.cache_dir() / "sim" / "op_host" / key[:2] / key
    if (directory / MANIFEST_FILE).is_file():
        return directory / LIBRARY_FILE
    directory.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(directory) + ".lock"):
        if not (directory / MANIFEST_FILE).is_file():
            _build_into(directory, files, op_host_file)
    return directory / LIBRARY_FILE


def _key(files: dict[str, str], op_host_file: str) -> str:
    parts = {"files": files, "main": op_host_file, "host": tree_digest(sim_include_dir()),
             "compiler": compiler_identity(config.cxx()), "flags": HOST_FLAGS}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _build_into(directory: Path, files: dict[str, str], op_host_file: str) -> None:
    with staged(directory) as staging:
        for name, text in files.items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_text(text)
        include = host_include_dir()
        started = time.perf_counter()
        args = [*HOST_FLAGS, f"-I{include}", op_host_file, str(include / DRIVER), "-o", LIBRARY_FILE]
        # the host shims read the kernel-side tiling structs of the high-level APIs (sim/*_tiling.h) too
        readable = (sim_include_dir(),)
        log = compile_shared(args, staging, f"the op_host code {op_host_file}",
                             UntrustedBuild(op_host_file, readable, readable, config.run_memory_bytes()))
        (staging / "build.log").write_text(log)
        publish(staging, directory, {"seconds": time.perf_counter() - started, "flags": HOST_FLAGS})


def ask(library: Path, request: str, what: str) -> str:
    """The driver's answer to ``request``, from a sandboxed child; raises OpProjectError for an ``error`` answer."""
    answer = run_in_child(answer_in_child, str(library), request, timeout=config.run_timeout_s(), what=what)
    if not isinstance(answer, str):
        raise OpProjectError(f"{what} answered with {type(answer).__name__}, not text")
    if answer.startswith("error "):
        raise OpProjectError(f"{what}: {answer[6:].strip()}")
    return answer


def answer_in_child(library: str, request: str) -> str:
    """The driver's answer, in the sandboxed child that loaded the host library (never in the caller)."""
    driver = ctypes.CDLL(library).ascendgen_op_host
    driver.restype = ctypes.c_char_p
    driver.argtypes = [ctypes.c_char_p]
    return driver(request.encode()).decode(errors="replace")


def soc_line(profile: SocProfile) -> str:
    arch = 1 if profile.npu_arch == ARCH_310P else 0
    return (f"soc {profile.name} {soc_family(profile)} {arch} {profile.vector_cores} {profile.cube_cores} "
            f"{profile.ub_bytes} {profile.l1_bytes} {profile.l0a_bytes} {profile.l0b_bytes} {profile.l0c_bytes}")


def describe(library: Path, profile: SocProfile, op_type: str | None) -> OpDescription:
    answer = ask(library, f"mode describe\nop {op_type or '-'}\n{soc_line(profile)}\n", "the OpDef")
    return parse_description(answer)


def parse_description(answer: str) -> OpDescription:
    """The ``describe`` answer (written where the op's untrusted code runs: malformed text is an OpProjectError)."""
    with _malformed("the OpDef description"):
        return _description(answer)


def parse_plan(answer: str) -> HostPlan:
    """The ``run`` answer (written where the op's untrusted code runs: malformed text is an OpProjectError)."""
    with _malformed("the host code's answer"):
        return _plan(answer)


@contextlib.contextmanager
def _malformed(what: str):
    try:
        yield
    except (ValueError, KeyError, IndexError) as exc:
        raise OpProjectError(f"{what} is malformed ({type(exc).__name__}: {exc}); did the op's host code write to "
                             "memory it does not own?") from None


def _description(answer: str) -> OpDescription:
    fields: dict[str, list] = {"input": [], "output": [], "attr": [], "config": []}
    op_type, functions = "", [0, 0, 0]
    for words in (line.split() for line in answer.splitlines()[1:]):
        if not words:
            continue
        if words[0] == "op":
            op_type = words[1]
        elif words[0] in ("input", "output"):
            name, kind, dtypes, formats, dtype_list, format_list, depend = words[1:8]
            fields[words[0]].append(ParamDecl(name, PARAM_TYPES.get(int(kind), kind), _ints(dtypes), _ints(formats),
                                              dtype_list == "1", format_list == "1", depend == "1"))
        elif words[0] == "attr":
            kind = int(words[2])
            fields["attr"].append(AttrDecl(words[1], ATTR_KINDS[kind] if kind >= 0 else "", words[3] == "1",
                                           words[4] == "1"))
        elif words[0] == "config":
            fields["config"].append(words[1])
        elif words[0] == "functions":
            functions = [int(w) for w in words[1:4]]
    return OpDescription(op_type, tuple(fields["input"]), tuple(fields["output"]), tuple(fields["attr"]),
                         tuple(fields["config"]), *(bool(f) for f in functions))


def run_request(profile: SocProfile, op_type: str, inputs: list[tuple[int, TensorSpec]], outputs: list[TensorSpec],
                attrs: list[str]) -> str:
    """The ``run`` request: ``inputs`` are (OpDef input index, spec), one per instance (several for a DYNAMIC
    input, one not present for an absent OPTIONAL one); ``attrs`` are driver lines (``attr <index> <kind> ...``)."""
    lines = ["mode run", f"op {op_type}", soc_line(profile)]
    lines += [f"input {ir} {int(spec.present)} {_tensor_words(spec)}" for ir, spec in inputs]
    relative: dict[int, int] = {}
    for ir, spec in inputs:
        index = relative[ir] = relative.get(ir, -1) + 1
        if spec.values is not None:
            lines.append(f"values {ir} {index} {spec.values.hex() or '-'}")
    lines += [f"output {_tensor_words(spec)}" for spec in outputs]
    return "\n".join([*lines, *attrs]) + "\n"


def _tensor_words(spec: TensorSpec) -> str:
    return " ".join(str(int(v)) for v in (spec.dtype, spec.format, len(spec.shape), *spec.shape))


def _plan(answer: str) -> HostPlan:
    values: dict[str, str] = {}
    shapes, dtypes = [], []
    for words in (line.split() for line in answer.splitlines()[1:]):
        if not words:
            continue
        if words[0] == "output":
            dtypes.append(int(words[2]))
            shapes.append(_ints(words[4]) if int(words[3]) else ())
        else:
            values[words[0]] = words[1] if len(words) > 1 else ""
    tiling = bytes.fromhex(values["tiling"]) if values.get("tiling", "-") != "-" else b""
    return HostPlan(int(values["status"]), int(values["block_dim"]), int(values["tiling_key"]), tiling,
                    int(values["tiling_capacity"]), _ints(values.get("workspaces", "-")), tuple(shapes), tuple(dtypes))


def _ints(text: str) -> tuple[int, ...]:
    return () if text == "-" else tuple(int(v) for v in text.split(","))
