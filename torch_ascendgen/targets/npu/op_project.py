"""Operator projects on the NPU: a candidate whose source is a file bundle (records.split_files; op_host/<op>_tiling.h,
op_host/<op>.cpp, op_kernel/<op>.cpp, optional op_host/*.h, op_kernel/*.h and attrs.json) built the way the issue
asks: bisheng for the kernel, the host compiler for the tiling code against CANN's headers, no msopgen install step
and no shared vendor directory. One build directory (``<cache>/npu_builds/<sha256>``, staged and published as
build.py does) holds:

- ``op_host.so``: the op's op_host/<op>.cpp, preceded by csrc/runtime/npu_op_host_prelude.h and followed by the
  driver csrc/runtime/npu_op_host.cpp in one translation unit, compiled by the host C++ compiler against the
  toolkit's headers. Its ``ascendgen_op_host_tiling`` runs the op's TilingFunc for one call (shapes, dtypes,
  attributes) and reports block dim, tiling key, tiling bytes and workspace bytes. It is loaded only in the
  sandboxed NPU child (``NpuOpKernel``, through ctypes), never in the caller's process.
- ``kernel_<key>.so`` per tiling key: csrc/templates/npu_op_launcher.cpp (the contract launcher's ABI: the same
  symbols the NPU runtime dlsyms) including csrc/templates/npu_op_kernel.h, the tiling header and the kernel at
  their own paths, compiled by bisheng with build.py's command line (both CANN modes).
- ``op.json``: what the runner needs (op type, keys, the dtypes the host code is told, attributes).

Documented (each cited where it is used): the TilingData macros and their padding (npu_op_kernel.h);
GET_TILING_DATA and TILING_KEY_IS exist only in CANN's operator-project build, not in kernel launches (so they
are defined here); TILING_KEY_IS(key) takes a non-negative integer literal and marks the branch run when the host's
SetTilingKey set that key; OpAICoreDef::SetTiling; context_ascendc::ContextBuilder as the way to run a TilingFunc
outside the graph engine; libtiling_api for ContextBuilder ("OpTilingRegistry 简介", atlasascendc_api_07_00072.html:
"需要链接的库文件:libtiling_api.a", .so in 8.2/8.5).

Assumed (a reviewer checks them on a CANN machine; see the report of issue 17):
- the kernel is built once per key found in ``TILING_KEY_IS(<literal>)``, which is what CANN's op build does
  (its per-key kernel variants); a key the TilingFunc sets that no TILING_KEY_IS names runs the key-0 build;
- the libraries that define OpDef (libregister), the platform description (libplatform: fe::PlatformInfoManager),
  gert's TilingData/ContinuousVector (libexe_graph, libgraph, libgraph_base) and securec (libc_sec): linked when the
  toolkit has them; ``-Wl,--no-undefined`` turns any other missing definition into a build error naming it;
- ContextBuilder's ``TilingData(void*)``/``Workspace(void*)`` setters (the 8.0 ContextBuilder pages list them with
  the other setters; their prototypes were not read) and gert::TilingData::CreateCap/ContinuousVector::Create;
- the host code is compiled with the compiler's default ``_GLIBCXX_USE_CXX11_ABI``, which must match CANN's (the
  ContextBuilder API passes std::string);
- the kernel side's high-level-API tiling structs (SoftMaxTiling, TCubeTiling, ...) come from
  ``kernel_tiling/kernel_tiling.h``, which replaces the tiling header's ``tiling/tiling_api.h``;
- DT_* are macros in the kernel unit (as the simulator's op_kernel.py writes them), so that
  ``#if ORIG_DTYPE_X == DT_FLOAT16`` works; a CANN kernel header included after them that names a DT_* enumerator
  would break;
- an OPTIONAL attribute attrs.json leaves out takes the literal its OpDef's typed setter gives
  (``.Attr("log").AttrType(OPTIONAL).Bool(false)``, read from the source); any other default must be in attrs.json;
- every OpDef input and output is one tensor (IrInstanceNum 1 each): DYNAMIC inputs and absent OPTIONAL inputs are
  not passed yet.
The OpDef's declaration (inputs, outputs, dtype combinations, attributes) is read with the simulator's clean-room
host shims (targets/sim/op_host.py), which run anywhere; the NPU build needs it to write the kernel's DTYPE_*
macros before any NPU code runs.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from filelock import FileLock

from torch_ascendgen import config
from torch_ascendgen._paths import csrc_dir
from torch_ascendgen.errors import KernelArgumentError, KernelBuildError, OpProjectError, SimulatorError
from torch_ascendgen.records import split_files
from torch_ascendgen.targets.npu.build import (
    LAUNCH_NO_BLOCKS,
    LAUNCH_NULL_ARGS,
    LAUNCH_OK,
    LOG_FILE,
    NPU_ABI_VERSION,
    NpuBuild,
    bisheng_command,
    build_mode,
    npu_builds_root,
)
from torch_ascendgen.targets.project_files import project_files
from torch_ascendgen.targets.soc import SocProfile, get_soc
from torch_ascendgen.targets.toolchain import (
    MANIFEST_FILE,
    candidate_diagnostics,
    compiler_identity,
    publish,
    run_untrusted,
    staged,
)

if TYPE_CHECKING:
    from torch_ascendgen.capture import KernelTask
    from torch_ascendgen.targets.npu.cann import CannToolkit
    from torch_ascendgen.targets.sim.op_host import OpDescription

HOST_PRELUDE = "npu_op_host_prelude.h"
HOST_DRIVER = "npu_op_host.cpp"
KERNEL_HEADER = "npu_op_kernel.h"
KERNEL_LAUNCHER = "npu_op_launcher.cpp"
HOST_UNIT = "op_host_unit.cpp"
HOST_LIBRARY = "op_host.so"
OP_MANIFEST = "op.json"
HOST_ABI_VERSION = 1      # npu_op_host.cpp's kHostAbiVersion
TILING_CAPACITY = 64 * 1024   # npu_op_host.cpp's kTilingCapacity
ERROR_CAPACITY = 1024         # npu_op_host.cpp's kErrorCapacity
MIN_WORKSPACE = 32            # the kernel always gets a workspace pointer (as the simulator's op projects)

# Host compile flags: what build.py's bisheng flags share with a host shared library; hidden visibility, so that two
# candidates' libraries in one NPU child never bind to each other's definitions (the driver exports its two
# functions explicitly); -Wl,--no-undefined, so that a definition no linked library has is a build error, not a
# dlopen failure in the child.
HOST_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-fvisibility-inlines-hidden",
              "-Wl,--no-undefined")
# Libraries linked when the toolkit has them (see the module docstring: tiling_api is documented, the rest assumed).
HOST_LIBRARIES = ("tiling_api", "register", "platform", "exe_graph", "graph", "graph_base", "c_sec")

# Kernel-side rewrites of the tiling header (the same includes the simulator's op_kernel.py rewrites).
_TILING_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](?:register/)?tilingdata_base\.h[>"]', re.M)
_TILING_API_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](?:tiling/)?tiling_api\.h[>"]', re.M)
_HOST_ONLY_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"](?:register/op_def_registry\.h|tiling/platform/platform_ascendc\.h)[>"]', re.M)
_REGISTERED = re.compile(r"REGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
_KEY_TEST = re.compile(r"\bTILING_KEY_IS\s*\(\s*([^)]*?)\s*\)")
_OP_ADD = re.compile(r"\bOP_ADD\s*\(\s*(\w+)\s*\)")
_PLACEHOLDER = re.compile(r"@(\w+)@")


# ---- the bundle -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class OpBundle:
    """An operator project given as a file bundle: its op name (add_custom), OpDef type (AddCustom) and files."""

    name: str
    op_type: str
    files: Mapping[str, str]
    attrs: Mapping[str, Any]

    @property
    def tiling_header(self) -> str:
        return f"op_host/{self.name}_tiling.h"

    @property
    def op_host(self) -> str:
        return f"op_host/{self.name}.cpp"

    @property
    def op_kernel(self) -> str:
        return f"op_kernel/{self.name}.cpp"

    @classmethod
    def from_source(cls, source: str) -> OpBundle:
        layout = project_files(source)
        if layout is None:
            raise OpProjectError("this source is one kernel-contract file, not an operator project's file bundle")
        files = split_files(source)
        found = _OP_ADD.findall(layout.op_host)
        if len(found) != 1:
            raise OpProjectError(f"op_host/{layout.name}.cpp registers {len(found)} OpDefs with OP_ADD(...); it must "
                                 "register exactly one: OP_ADD(<OpType>);")
        return cls(layout.name, found[0], files, layout.attrs)


def is_bundle(source: str) -> bool:
    return split_files(source) is not None


def describe(bundle: OpBundle, soc: str) -> OpDescription:
    """The OpDef's declaration, read with the simulator's host shims (in a sandboxed child)."""
    from torch_ascendgen.targets.sim.op_project import OpProject

    headers = [(p.split("/", 1)[1], t) for p, t in bundle.files.items()
               if p.startswith("op_host/") and p.endswith(".h") and p != bundle.tiling_header]
    kernel_headers = [(p.split("/", 1)[1], t) for p, t in bundle.files.items()
                      if p.startswith("op_kernel/") and p.endswith(".h")]
    project = OpProject((f"{bundle.name}_tiling.h", bundle.files[bundle.tiling_header]),
                        (f"{bundle.name}.cpp", bundle.files[bundle.op_host]),
                        (f"{bundle.name}.cpp", bundle.files[bundle.op_kernel]),
                        host_headers=headers, op_type=bundle.op_type, kernel_headers=kernel_headers)
    return project.describe(soc)


# ---- the kernel half ------------------------------------------------------------------------------------------

def tiling_keys(kernel: str) -> tuple[int, ...]:
    """The keys the kernel tests with TILING_KEY_IS (each a non-negative integer literal: "TILING_KEY_IS", hiascend.com
    .../ascendcopapi/atlasascendc_api_07_0217.html), ascending; (0,) when it tests none."""
    keys = set()
    for argument in _KEY_TEST.findall(_without_comments(kernel)):
        literal = re.fullmatch(r"(\d+)[uU]?[lL]{0,2}", argument)
        if literal is None:
            raise OpProjectError(f"TILING_KEY_IS({argument}): the key must be a non-negative integer literal (the "
                                 "kernel is built once per key it names)")
        keys.add(int(literal.group(1)))
    return tuple(sorted(keys)) or (0,)


def _without_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)


def kernel_tiling_header(text: str) -> str:
    """The tiling header as the kernel sees it: line for line the same, its includes of the host's
    tilingdata_base.h and host-only headers neutralised, tiling_api.h replaced by the kernel's tiling structs."""
    text = _TILING_INCLUDE.sub(f'#include "{KERNEL_HEADER}"', text)
    text = _TILING_API_INCLUDE.sub('#include "kernel_tiling/kernel_tiling.h"', text)
    return _HOST_ONLY_INCLUDE.sub("// a host-only header: not part of the kernel", text)


def dtype_defines(description: OpDescription, combo: int) -> str:
    """DT_* values and DTYPE_<NAME>/ORIG_DTYPE_<NAME> for every input and output at the matched combination."""
    from torch_ascendgen.targets.sim.op_kernel import BY_VALUE, GE_DTYPES

    lines = [f"#define {name} {value}" for name, (value, _, _) in GE_DTYPES.items()]
    for decl in (*description.inputs, *description.outputs):
        macro = re.sub(r"\W", "_", decl.name).upper()
        name, ctype, _ = BY_VALUE.get(decl.dtype_at(combo), ("DT_UNDEFINED", "void", None))
        lines += [f"#define DTYPE_{macro} {ctype}", f"#define ORIG_DTYPE_{macro} {name}"]
    return "\n".join(lines)


def registered_name(bundle: OpBundle, key: int) -> str:
    """The REGISTER_TILING_DATA_CLASS name GET_TILING_DATA reads for ``key``: <OpType>_<key> when the header
    registers one ("GET_TILING_DATA_WITH_STRUCT", atlasascendc_api_07_0215.html), else <OpType>."""
    registered = {op for op, _ in _REGISTERED.findall(bundle.files[bundle.tiling_header])}
    if f"{bundle.op_type}_{key}" in registered:
        return f"{bundle.op_type}_{key}"
    if bundle.op_type not in registered:
        raise OpProjectError(f"{bundle.tiling_header} registers no TilingData class for {bundle.op_type}: add "
                             f"REGISTER_TILING_DATA_CLASS({bundle.op_type}, <its TilingData class>)")
    return bundle.op_type


def kernel_unit(bundle: OpBundle, description: OpDescription, combo: int, key: int) -> str:
    """The translation unit bisheng compiles for one tiling key (npu_op_launcher.cpp filled in)."""
    from torch_ascendgen.targets.sim.simulator import find_entry

    kernel = bundle.files[bundle.op_kernel]
    entry = find_entry(kernel)
    gm_args = len(description.inputs) + len(description.outputs) + 2
    arguments = ",\n".join(f"        static_cast<uint8_t*>(gm_args[{i}])" for i in range(gm_args))
    return _fill(KERNEL_LAUNCHER, {
        "dtype_defines": dtype_defines(description, combo), "tiling_key": key, "tiling_header": bundle.tiling_header,
        "registered": registered_name(bundle, key), "kernel_file": bundle.op_kernel, "entry": entry,
        "gm_args": gm_args, "arguments": arguments, "abi_version": NPU_ABI_VERSION, "ok": LAUNCH_OK,
        "null_args": LAUNCH_NULL_ARGS, "no_blocks": LAUNCH_NO_BLOCKS})


def kernel_library(key: int) -> str:
    return f"kernel_{key}.so"


def _fill(template_name: str, values: dict[str, object]) -> str:
    path = csrc_dir() / "templates" / template_name
    template = path.read_text()
    named = set(_PLACEHOLDER.findall(template))
    if named != set(values):
        raise RuntimeError(f"{path} has the placeholders {sorted(named)} but op_project.py fills {sorted(values)}")
    return _PLACEHOLDER.sub(lambda match: str(values[match.group(1)]), template)


# ---- the host half --------------------------------------------------------------------------------------------

def host_unit(bundle: OpBundle) -> str:
    """The host library's one translation unit: prelude, the op's op_host source at its own path, the driver."""
    return (f'#include "{HOST_PRELUDE}"\n#include "{bundle.op_host}"\n'
            f"#define ASCENDGEN_OP_TYPE {bundle.op_type}\n#include \"{HOST_DRIVER}\"\n")


def host_libraries(toolkit: CannToolkit) -> tuple[str, ...]:
    """HOST_LIBRARIES that this toolkit has (lib<name>.so or .a in one of its library directories)."""
    return tuple(name for name in HOST_LIBRARIES
                 if any((d / f"lib{name}{suffix}").is_file() for d in toolkit.library_dirs for suffix in (".so", ".a")))


def host_command(toolkit: CannToolkit, source: Path, library: Path) -> list[str]:
    """The host compiler's command for the op's host library: the toolkit's headers, its libraries (and rpath)."""
    includes = [".", *toolkit.include_dirs]
    link = [arg for d in toolkit.library_dirs for arg in (f"-L{d}", f"-Wl,-rpath,{d}")]
    return [config.cxx(), *HOST_FLAGS, *(f"-I{d}" for d in dict.fromkeys(map(str, includes))), str(source), "-o",
            str(library), *link, *(f"-l{name}" for name in host_libraries(toolkit))]


# ---- the build ------------------------------------------------------------------------------------------------

def match_combo(description: OpDescription, task: KernelTask) -> int:
    """The first dtype combination the task's input dtypes fit (the OpDef's inputs are the task's, in order)."""
    from torch_ascendgen.targets.sim.op_kernel import BY_TORCH

    if len(description.inputs) != len(task.inputs) or len(description.outputs) != len(task.outputs):
        raise OpProjectError(
            f"{description.op_type} declares {len(description.inputs)} inputs and {len(description.outputs)} outputs; "
            f"the function takes {len(task.inputs)} inputs and returns {len(task.outputs)} outputs (the OpDef's inputs "
            "and outputs map to the function's, in order)")
    given = [BY_TORCH.get(spec.dtype, -1) for spec in (*task.inputs, *task.outputs)]
    decls = (*description.inputs, *description.outputs)
    for combo in range(description.combo_count):
        if all(decl.dtype_at(combo) == value for decl, value in zip(decls, given)):
            return combo
    raise OpProjectError(f"{description.op_type} declares no dtype combination for the function's dtypes "
                         f"({', '.join(str(s.dtype) for s in (*task.inputs, *task.outputs))}); add one to every "
                         "input's and output's DataType list")


def default_value(op_host: str, name: str, kind: str) -> Any:
    """The default an OPTIONAL attribute declares, read from the op_host source (``.Attr("name")...Float(1.0)``,
    "OpAttrDef", its typed setters take the default), or None when it is not a plain literal."""
    found = re.search(rf'(?:\.|->)Attr\(\s*"{re.escape(name)}"\s*\)[^;]*?\.{kind}\(\s*([^()]*?)\s*\)', op_host)
    if found is None:
        return None
    items = [part.strip() for part in found.group(1).strip("{}").split(",") if part.strip()]
    values = [_literal(item) for item in items]
    if any(v is None for v in values) or (not kind.startswith("List") and len(values) != 1):
        return None
    return values if kind.startswith("List") else values[0]


def _literal(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r'"[^"\\]*"', text):
        return text[1:-1]
    if re.fullmatch(r"-?\d+[lL]{0,2}", text):
        return int(text.rstrip("lL"))
    if re.fullmatch(r"-?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?[fF]?", text):
        return float(text.rstrip("fF"))
    return None


def attr_text(description: OpDescription, attrs: Mapping[str, Any], op_host: str = "") -> str:
    """The driver's attribute lines, in declaration order: "<name> <Kind> <count> <values...>"; an attribute
    attrs.json does not give takes the default the OpDef declares in ``op_host``."""
    names = [a.name for a in description.attrs]
    unknown = sorted(set(attrs) - set(names))
    if unknown:
        raise OpProjectError(f"attrs.json names {', '.join(unknown)}, which {description.op_type} does not declare "
                             f"(its attributes: {', '.join(names) or 'none'})")
    lines = []
    for decl in description.attrs:
        value = attrs[decl.name] if decl.name in attrs else default_value(op_host, decl.name, decl.kind)
        if value is None:
            raise OpProjectError(f"{description.op_type} declares the attribute {decl.name} ({decl.kind}); the NPU "
                                 f"build needs its value: add \"{decl.name}\": <value> to attrs.json")
        values = value if decl.kind.startswith("List") else [value]
        if not isinstance(values, list):
            raise OpProjectError(f"attribute {decl.name} is declared {decl.kind}; give a JSON list")
        lines.append(" ".join([decl.name, decl.kind, str(len(values)), *(_attr_word(decl.kind, v) for v in values)]))
    return "".join(line + "\n" for line in lines)


def _attr_word(kind: str, value: Any) -> str:
    if "Float" in kind and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value).hex()
    if kind == "String" and isinstance(value, str):
        return value.encode().hex() or "-"
    if "Bool" in kind and isinstance(value, bool):
        return str(int(value))
    if "Int" in kind and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise OpProjectError(f"the attribute value {value!r} is not a {kind}")


def op_build_key(bundle: OpBundle, units: Mapping[str, str], host: list[str], kernel: list[str], soc: SocProfile,
                 toolkit: CannToolkit) -> str:
    """sha256 over everything that can change the libraries: the bundle, every unit (templates filled), the
    driver's sources, both compilers and their command lines, the SoC and the toolkit's version."""
    runtime = csrc_dir() / "runtime"
    parts = {"files": dict(bundle.files), "units": dict(units), "soc": soc.name, "cann": toolkit.version,
             "driver": [(runtime / f).read_text() for f in (HOST_PRELUDE, HOST_DRIVER)],
             "kernel_header": (csrc_dir() / "templates" / KERNEL_HEADER).read_text(),
             "host": host, "host_compiler": compiler_identity(host[0]), "kernel": kernel,
             "bisheng": compiler_identity(kernel[0])}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def compile_npu_op_project(source: str, task: KernelTask, soc: str, toolkit: CannToolkit) -> NpuBuild:
    """Build the bundle ``source`` for ``soc``: the host library and one kernel library per tiling key; reuse an
    identical earlier build. Raises KernelBuildError (the bundle does not fit the task or its OpDef cannot be read,
    or a compiler refused: its trimmed output and the kept log's path) or NpuUnavailable (no bisheng, an
    unsupported CANN)."""
    profile = get_soc(soc)
    try:  # the project's own faults lose the candidate as a build failure (Target.build's contract)
        bundle = OpBundle.from_source(source)
        description = describe(bundle, soc)
        combo = match_combo(description, task)
        attrs = attr_text(description, bundle.attrs, bundle.files[bundle.op_host])
        keys = tiling_keys(bundle.files[bundle.op_kernel])
        units = {HOST_UNIT: host_unit(bundle)} | {f"launcher_{k}.cpp": kernel_unit(bundle, description, combo, k)
                                                 for k in keys}
    except (OpProjectError, KernelArgumentError, SimulatorError) as exc:
        raise KernelBuildError(f"the operator project cannot be built for the NPU: {exc}", log=str(exc)) from None
    host = host_command(toolkit, Path(HOST_UNIT), Path(HOST_LIBRARY))
    kernel = bisheng_command(Path("launcher.cpp"), Path("kernel.so"), profile, toolkit)
    key = op_build_key(bundle, units, host, kernel, profile, toolkit)
    op = {"name": bundle.name, "op_type": bundle.op_type, "keys": list(keys), "combo": combo, "attrs": attrs,
          "input_dtypes": [d.dtype_at(combo) for d in description.inputs],
          "output_dtypes": [d.dtype_at(combo) for d in description.outputs], "soc": profile.name}
    directory = npu_builds_root() / key
    if not (directory / MANIFEST_FILE).is_file():
        directory.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(directory) + ".lock"):
            if not (directory / MANIFEST_FILE).is_file():
                seconds = _build_into(directory, bundle, units, op, profile, toolkit)
                return NpuBuild(key, directory, directory / kernel_library(keys[0]), directory / LOG_FILE, seconds,
                                False)
    return NpuBuild(key, directory, directory / kernel_library(keys[0]), directory / LOG_FILE, 0.0, True)


def _build_into(directory: Path, bundle: OpBundle, units: Mapping[str, str], op: dict, soc: SocProfile,
                toolkit: CannToolkit) -> float:
    """Stage the sources (host/ and kernel/ trees), run both compilers, publish (or keep the failed build)."""
    with staged(directory) as staging:
        host_dir, kernel_dir = staging / "host", staging / "kernel"
        _write_tree(host_dir, {p: t for p, t in bundle.files.items() if p.startswith("op_host/")} | {
            HOST_UNIT: units[HOST_UNIT], HOST_PRELUDE: (csrc_dir() / "runtime" / HOST_PRELUDE).read_text(),
            HOST_DRIVER: (csrc_dir() / "runtime" / HOST_DRIVER).read_text()})
        kernel_files = {p: t for p, t in bundle.files.items() if p.startswith(("op_kernel/", "op_host/"))
                        and p.endswith(".h") or p == bundle.op_kernel}
        kernel_files[bundle.tiling_header] = kernel_tiling_header(bundle.files[bundle.tiling_header])
        _write_tree(kernel_dir, kernel_files | {KERNEL_HEADER: (csrc_dir() / "templates" / KERNEL_HEADER).read_text()}
                    | {name: text for name, text in units.items() if name != HOST_UNIT})
        started = time.perf_counter()
        log: list[str] = []
        host = host_command(toolkit, Path(HOST_UNIT), Path(HOST_LIBRARY))
        _compile(host, host_dir, HOST_LIBRARY, staging, bundle.op_host, soc, toolkit, log, "the host compiler")
        commands = {"host": host}
        for key in op["keys"]:
            command = bisheng_command(Path(f"launcher_{key}.cpp"), Path(kernel_library(key)), soc, toolkit)
            _compile(command, kernel_dir, kernel_library(key), staging, bundle.op_kernel, soc, toolkit, log, "bisheng")
            commands[f"kernel_{key}"] = command
        seconds = time.perf_counter() - started
        (staging / LOG_FILE).write_text("".join(log))
        (staging / OP_MANIFEST).write_text(json.dumps(op, indent=1))
        publish(staging, directory, {"soc": soc.name, "cann": toolkit.version, "mode": build_mode(toolkit),
                                     "commands": commands, "abi_version": NPU_ABI_VERSION,
                                     "host_abi_version": HOST_ABI_VERSION, "seconds": seconds, "op": op})
        return seconds


def _write_tree(root: Path, files: Mapping[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def _compile(command: list[str], cwd: Path, output: str, staging: Path, own_file: str, soc: SocProfile,
             toolkit: CannToolkit, log: list[str], what: str) -> None:
    """Run one compiler in the build sandbox; move its library to the staging root, or keep the build and raise."""
    readable = (*toolkit.include_dirs, *toolkit.library_dirs)
    code, output_text = run_untrusted(command, cwd, readable=readable, executable=(toolkit.home,))
    log.append(f"$ (cd {cwd.name} && {shlex.join(command)})\n{output_text}\n")
    failure = None
    if code is None:
        failure = f"{what} took longer than {config.build_timeout_s():g} s (raise {config.BUILD_TIMEOUT_ENV})"
    elif code != 0:
        failure = f"{what} exited with status {code}"
    elif not (cwd / output).is_file():
        failure = f"{what} exited 0 but wrote no {output}"
    if failure is None:
        os.replace(cwd / output, staging / output)
        return
    (staging / LOG_FILE).write_text("".join(log))
    trimmed = candidate_diagnostics(output_text, own_file, cwd, (toolkit.home, *readable))
    kept = npu_builds_root() / "failed" / staging.name.strip(".").split(".")[0]
    shutil.rmtree(kept, ignore_errors=True)
    kept.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(staging, kept)
    raise KernelBuildError(f"building the operator project for {soc.name} failed: {failure}. Full log: "
                           f"{kept / LOG_FILE}\n{trimmed}", log=trimmed, command=shlex.join(command))


# ---- the run, in the sandboxed NPU child ----------------------------------------------------------------------

class HostPlan(ctypes.Structure):
    """npu_op_host.cpp's AscendgenOpPlan."""

    _fields_ = [("status", ctypes.c_uint32), ("block_dim", ctypes.c_uint32), ("tiling_key", ctypes.c_uint64),
                ("tiling_size", ctypes.c_uint64), ("workspace_bytes", ctypes.c_uint64),
                ("tiling", ctypes.c_uint8 * TILING_CAPACITY), ("error", ctypes.c_char * ERROR_CAPACITY)]


@dataclass(frozen=True)
class OpPlan:
    """What the op's TilingFunc decided for one call."""

    block_dim: int
    tiling_key: int
    tiling: bytes
    workspace_bytes: int


@functools.cache
def load_host_library(path: str) -> ctypes.CDLL:
    """The op's host library, loaded once per process (its static initialisers run here: only in the child)."""
    try:
        library = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
    except OSError as exc:  # a run failure of the candidate (candidate.py catches RuntimeError), not a bug of ours
        raise RuntimeError(f"the op's host library {path} does not load: {exc} (is CANN's lib64 on LD_LIBRARY_PATH? "
                           "source CANN's set_env.sh)") from None
    if library.ascendgen_op_host_abi_version() != HOST_ABI_VERSION:
        raise RuntimeError(f"{path} was built for another host driver ABI; delete its build directory to rebuild it")
    function = library.ascendgen_op_host_tiling
    array32, array64 = ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int64)
    function.argtypes = [ctypes.c_char_p, ctypes.c_uint32, array32, array32, array64, ctypes.c_uint32, array32,
                         array32, array64, ctypes.c_char_p, ctypes.POINTER(HostPlan)]
    function.restype = ctypes.c_int32
    return library


def host_tiling(library_path: str, op_type: str, soc: str, inputs: Sequence[tuple[int, Sequence[int]]],
                outputs: Sequence[tuple[int, Sequence[int]]], attrs: str) -> OpPlan:
    """Run the op's TilingFunc (``inputs``/``outputs``: (ge dtype, shape) each). RuntimeError names the op when the
    driver or the TilingFunc fails."""
    function = load_host_library(library_path).ascendgen_op_host_tiling
    plan = HostPlan()
    failed = function(soc.encode(), len(inputs), *_tensor_arrays(inputs), len(outputs), *_tensor_arrays(outputs),
                      attrs.encode(), ctypes.byref(plan))
    if failed:
        raise RuntimeError(f"the host code of {op_type} failed: {plan.error.decode(errors='replace')}")
    if plan.status != 0:
        raise RuntimeError(f"the TilingFunc of {op_type} returned status {plan.status} (not ge::GRAPH_SUCCESS)")
    return OpPlan(plan.block_dim, plan.tiling_key, bytes(plan.tiling)[:plan.tiling_size], plan.workspace_bytes)


def _tensor_arrays(tensors: Sequence[tuple[int, Sequence[int]]]) -> tuple:
    dtypes = (ctypes.c_int32 * max(len(tensors), 1))(*(dtype for dtype, _ in tensors))
    ranks = (ctypes.c_int32 * max(len(tensors), 1))(*(len(shape) for _, shape in tensors))
    dims = [int(d) for _, shape in tensors for d in shape]
    return dtypes, ranks, (ctypes.c_int64 * max(len(dims), 1))(*dims)


@dataclass(frozen=True)
class OpTiling:
    """One shape's plan on the device: runtime.NpuTiling's fields, plus the key and the kernel library it picked."""

    data: bytes
    block_dim: int
    workspace_bytes: int
    tiling_key: int
    library: object  # the runtime's KernelLibrary of that key
    device: object   # the runtime's DeviceTiling


def is_op_build(build: NpuBuild) -> bool:
    return (build.directory / OP_MANIFEST).is_file()


def npu_kernel(build: NpuBuild, task: KernelTask, soc: str):
    """The runner for ``build``: NpuOpKernel for an operator project's build, else runtime.NpuKernel."""
    from torch_ascendgen.targets.npu.runtime import NpuKernel

    return NpuOpKernel(build, task, soc) if is_op_build(build) else NpuKernel(build, task, soc)


class NpuOpKernel:
    """An operator project's build run on the NPU, with NpuKernel's interface (``plan``, ``run``, calls): the op's
    TilingFunc (host library, this process) plans each shape, the kernel library of the key it set launches on the
    current stream through the NPU runtime module, exactly as a contract kernel's."""

    def __init__(self, build: NpuBuild, task: KernelTask, soc: str):
        from torch_ascendgen.targets.npu.runtime import npu_runtime_module

        self.build = build
        self.task = task
        self.soc = soc
        self.op = json.loads((build.directory / OP_MANIFEST).read_text())
        self._runtime = npu_runtime_module()
        self._plans: dict[tuple, tuple] = {}

    def _library(self, key: int):
        from torch_ascendgen.targets.npu.runtime import load_npu_library

        built = key if key in self.op["keys"] else 0
        if built not in self.op["keys"]:
            raise RuntimeError(f"the TilingFunc of {self.op['op_type']} set tiling key {key}, which no TILING_KEY_IS "
                               f"of op_kernel/{self.op['name']}.cpp names (it names {self.op['keys']})")
        return load_npu_library(str(self.build.directory / kernel_library(built)))

    def plan(self, inputs) -> tuple[list[tuple[int, ...]], OpTiling | None]:
        """(output shapes, the tiling; None when every output is empty). RuntimeError when the host code fails."""
        from torch_ascendgen.targets.npu.runtime import _device_index
        from torch_ascendgen.targets.runtime import nothing_to_compute, output_shapes

        device = _device_index(inputs)
        key = (device, *[tuple(t.shape) for t in inputs])
        if key not in self._plans:
            shapes = output_shapes(self.task, key[1:])
            if nothing_to_compute(key[1:], shapes, self.task):
                self._plans[key] = (shapes, None)
                return self._plans[key]
            plan = host_tiling(str(self.build.directory / HOST_LIBRARY), self.op["op_type"], self.op["soc"],
                               list(zip(self.op["input_dtypes"], key[1:])),
                               list(zip(self.op["output_dtypes"], shapes)), self.op["attrs"])
            if plan.block_dim == 0:
                raise RuntimeError(f"the TilingFunc of {self.op['op_type']} set block dim 0 for shapes "
                                   f"{[list(s) for s in key[1:]]}: call context->SetBlockDim(<cores to use>)")
            library = self._library(plan.tiling_key)
            data = plan.tiling.ljust(max(library.tiling_size, len(plan.tiling), 1), b"\0")
            self._plans[key] = (shapes, OpTiling(data, plan.block_dim, max(plan.workspace_bytes, MIN_WORKSPACE),
                                                 plan.tiling_key, library, self._runtime.DeviceTiling(data, device)))
        return self._plans[key]

    def run(self, *inputs, counters: bool = False):
        """(outputs, None), as NpuKernel.run."""
        inputs = [t.contiguous() for t in inputs]
        shapes, tiling = self.plan(inputs)
        device = inputs[0].device
        outputs = tuple(torch.empty(shape, dtype=spec.dtype, device=device)
                        for shape, spec in zip(shapes, self.task.outputs))
        if tiling is None:
            return outputs, None
        workspace = torch.empty(tiling.workspace_bytes, dtype=torch.uint8, device=device)
        self._runtime.launch(tiling.library, tiling.block_dim, inputs, list(outputs), workspace, tiling.device)
        return outputs, None

    def __call__(self, *inputs):
        return self.run(*inputs)[0]
