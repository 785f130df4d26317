"""MultiKernelBench's direct-launch submissions ("ascendc_direct_launch") on the simulator.

Such a submission is a JSON object whose ``sources[]`` hold a pybind C++ source (``PYBIND11_MODULE``, functions of
``at::Tensor`` that allocate their outputs with torch, compute the tiling on the host and launch kernels with
``kernel<<<blockDim, nullptr, stream>>>(args)`` or ``ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args)`` on
``c10_npu::getCurrentNPUStream()``), AscendC kernel sources and headers, and a ``ModelNew.py`` that imports the
module and calls it. On the simulator:

    submission = read_submission(reply_text)                       # the JSON (a ```json fence is fine)
    build = build_direct_launch(submission.files, module_name=submission.module_name)
    function = forward_function(submission.model, build.functions)  # "add_custom", read from ModelNew.forward
    run = run_direct_launch(build, function, [x, y])
    z = run.outputs[0]

The build (in the build sandbox, cached by content) compiles the C++ files as a kernel-launch sample is compiled
(launch_sample.py: the ``<<<>>>`` rewrite, the generated ``aclrtlaunch_<kernel>.h``, the ACL shim, the host
runtime) against a clean-room shim of the torch extension API (``csrc/ascendc_sim/host/torch_ext``: at::Tensor,
the factory functions, TORCH_CHECK, pybind11's module definition, torch_npu's current stream) and its driver.
``TORCH_EXTENSION_NAME`` is the module name. ``ModelNew.py`` is never executed: the function to call is read from
its ``forward`` with ``ast``, or named by the caller.

The run (in a sandboxed child, the submission's host code being untrusted) copies the inputs into simulated device
memory, calls the function by its ``m.def`` name with the inputs as positional arguments (tensors, ints, floats,
bools, lists of ints), synchronises every stream, and brings the returned tensors back. Failures name the
submission's file and line: compiler errors (only the lines about the submission's files and our headers), a
kernel's rule violation (SimulatorError with the kernel file and line), host API misuse (``host_api_misuse``), a
failed TORCH_CHECK or an exception (``host_exception``), ``exit()`` (``host_exit``); a function the module does not
define, or arguments that do not fit its parameters, are a KernelArgumentError listing what it defines.
"""

from __future__ import annotations

import ast
import ctypes
import hashlib
import json
import re
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import torch
from filelock import FileLock

from torch_ascendgen import config
from torch_ascendgen._paths import sim_include_dir
from torch_ascendgen.errors import (
    KernelArgumentError,
    KernelCrashError,
    KernelTimeoutError,
    ScreenRejected,
    SimulatorError,
)
from torch_ascendgen.targets.sandbox import Worker
from torch_ascendgen.targets.sim.build import build_flags, compile_flags, sim_headers_digest, sim_support, support_key
from torch_ascendgen.targets.sim.launch_sample import (
    RUNTIME_SOURCE,
    SOURCE_SUFFIXES,
    SampleDiagnostic,
    SampleLaunch,
    _read_report,
    _SocProfile,
    _stage,
    _tail,
    _with_output,
    compile_untrusted,
    in_run_folder,
)
from torch_ascendgen.targets.soc import get_soc
from torch_ascendgen.targets.toolchain import (
    MANIFEST_FILE,
    candidate_diagnostics,
    compiler_identity,
    publish,
    staged,
)

DIRECT_LIBRARY = "direct.so"
DRIVER_SOURCE = "host/torch_ext/driver.cpp"
TORCH_SHIM = "host/torch_ext"
DEFAULT_MODULE = "benchmark_ops"  # MultiKernelBench's module name when the submission names none
HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".inc")
_WARM_UP_S = 120.0

# c10::ScalarType's numbering (torch_ext/ascendc_sim_torch.h)
_SCALAR_TYPES = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4, torch.float16: 5,
                 torch.float32: 6, torch.float64: 7, torch.bool: 11, torch.bfloat16: 15}
_DTYPES = {code: dtype for dtype, code in _SCALAR_TYPES.items()}
_TENSOR, _INT, _FLOAT, _BOOL, _INT_LIST = range(5)  # ascendc_sim_torch::Value::Kind


# ---- the submission ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DirectSubmission:
    """A direct-launch JSON submission: its C++ files by relative path, ModelNew.py's text, and what its ``build``
    object names (None: inferred)."""

    files: dict[str, str] = field(repr=False)
    model: str = field(default="", repr=False)
    model_class: str = "ModelNew"
    module_name: str | None = None
    binding: str | None = None
    kernels: tuple[str, ...] | None = None


def read_submission(text: str) -> DirectSubmission:
    """The submission in a model's reply (the JSON object, bare or in a ```json fence); ScreenRejected when it is
    not one, with the reason for the model."""
    try:
        spec = json.loads(_strip_fence(text))
    except json.JSONDecodeError as exc:
        raise ScreenRejected(f"the reply is not a JSON object ({exc}); return exactly one JSON object") from None
    sources = spec.get("sources") if isinstance(spec, dict) else None
    if not isinstance(sources, list) or not all(isinstance(s, dict) for s in sources):
        raise ScreenRejected('the JSON has no "sources" list of {"path": ..., "content": ...} objects')
    files: dict[str, str] = {}
    for source in sources:
        path, content = source.get("path"), source.get("content", "")
        if not isinstance(path, str) or not isinstance(content, str):
            raise ScreenRejected('every item of "sources" needs a "path" and a "content" string')
        _check_path(path)
        if path in files:
            raise ScreenRejected(f"sources names {path} twice")
        files[path] = content
    model_path, _, model_class = str((spec.get("entry") or {}).get("model", "ModelNew.py::ModelNew")).partition("::")
    build = spec.get("build") or {}
    binding = build.get("binding_sources") or None
    kernels = build.get("kernel_sources") or None
    return DirectSubmission({p: t for p, t in files.items() if p.endswith((*SOURCE_SUFFIXES, *HEADER_SUFFIXES))},
                            files.get(model_path, ""), model_class or "ModelNew", build.get("module_name") or None,
                            binding[0] if isinstance(binding, list) and len(binding) == 1 else None,
                            tuple(kernels) if isinstance(kernels, list) else None)


def _strip_fence(text: str) -> str:
    stripped = text.strip()
    fenced = re.search(r"```(?:json)?\s*\n(.*?)```", stripped, re.S)
    return fenced.group(1).strip() if fenced and not stripped.startswith("{") else stripped


def _check_path(path: str) -> None:
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path:
        raise ScreenRejected(f"source path {path!r}: give paths relative to the submission, without '..'")


_MODULE = re.compile(r"PYBIND11_MODULE\s*\(\s*([A-Za-z_]\w*)\s*,")
_DEF = re.compile(r"\.\s*def\s*\(\s*\"([A-Za-z_]\w*)\"")


def binding_source(files: Mapping[str, str]) -> str:
    """The pybind source: the .cpp holding PYBIND11_MODULE (or named pybind11.cpp), as MultiKernelBench infers it."""
    found = [p for p, t in files.items() if p.endswith(SOURCE_SUFFIXES)
             and (_MODULE.search(t) or PurePosixPath(p).name == "pybind11.cpp")]
    if len(found) != 1:
        named = f"{len(found)} do: {', '.join(found)}" if found else "none does"
        raise KernelArgumentError(f"one C++ source must define PYBIND11_MODULE(<module>, m); {named}")
    return found[0]


def defined_functions(binding_text: str) -> tuple[str, ...]:
    """The names the pybind source defines with ``m.def("name", ...)``, in order."""
    return tuple(dict.fromkeys(_DEF.findall(binding_text)))


def forward_function(model_source: str, functions: Sequence[str], model_class: str = "ModelNew") -> str:
    """The module function ``model_class.forward`` calls (``ext.add_custom(x, y)``, ``self.module.forward(x)``):
    the first call, in source order, of one of ``functions``. ScreenRejected when there is none; the model's code
    is only parsed, never run."""
    try:
        tree = ast.parse(model_source)
    except SyntaxError as exc:
        raise ScreenRejected(f"ModelNew.py does not parse: {exc}") from None
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == model_class]
    forward = next((n for c in classes for n in c.body if isinstance(n, ast.FunctionDef) and n.name == "forward"),
                   None)
    if forward is None:
        raise ScreenRejected(f"ModelNew.py defines no class {model_class} with a forward method")
    calls = sorted((n for n in ast.walk(forward) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    for call in calls:
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
        if name in functions:
            return name
    raise ScreenRejected(f"{model_class}.forward calls none of the functions the pybind module defines "
                         f"({', '.join(functions) or 'none'})")


# ---- the build -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DirectBuild:
    """A direct-launch submission built for the simulator."""

    key: str
    directory: Path
    library: Path
    module_name: str
    binding: str
    functions: tuple[str, ...]  # what the binding defines (m.def)
    sources: Mapping[str, str] = field(repr=False)
    seconds: float  # build time; 0.0 when it came from the cache


def build_direct_launch(files: Mapping[str, str], binding: str | None = None, kernels: Sequence[str] | None = None,
                        module_name: str | None = None) -> DirectBuild:
    """Build the submission's C++ files (relative path -> text): ``binding`` (default: the source holding
    PYBIND11_MODULE) and ``kernels`` (default: every other .cpp) are compiled, headers included from where they
    are. Reuses an identical earlier build."""
    for path in files:
        _check_path(path)
    binding = binding or binding_source(files)
    if binding not in files:
        raise KernelArgumentError(f"the binding source {binding} is not among the files")
    units = [binding, *(kernels if kernels is not None else sorted(p for p in files if p.endswith(SOURCE_SUFFIXES)
                                                                     and p != binding))]
    missing = [p for p in units if p not in files]
    if missing:
        raise KernelArgumentError(f"the kernel source(s) {', '.join(missing)} are not among the files")
    module = module_name or _module_name(files[binding])
    key = _key(files, units, module)
    directory = config.cache_dir() / "sim" / "direct" / key[:2] / key
    seconds = 0.0
    if not (directory / MANIFEST_FILE).is_file():
        directory.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(directory) + ".lock"):
            if not (directory / MANIFEST_FILE).is_file():
                seconds = _build_into(directory, files, units, module)
    return DirectBuild(key, directory, directory / DIRECT_LIBRARY, module, binding, defined_functions(files[binding]),
                       dict(files), seconds)


def _module_name(binding_text: str) -> str:
    names = [n for n in _MODULE.findall(binding_text) if n != "TORCH_EXTENSION_NAME"]
    return names[0] if names else DEFAULT_MODULE


def _key(files: Mapping[str, str], units: Sequence[str], module: str) -> str:
    parts = {"files": dict(sorted(files.items())), "units": list(units), "module": module,
             "headers": sim_headers_digest(), "compiler": compiler_identity(config.cxx()), "flags": build_flags(),
             "support": support_key()}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _build_into(directory: Path, files: Mapping[str, str], units: Sequence[str], module: str) -> float:
    support = sim_support()
    root = sim_include_dir()
    with staged(directory) as staging:
        started = time.perf_counter()
        wrappers = dict(zip([p for p in files if p.endswith(SOURCE_SUFFIXES)], _stage(staging, files)))
        folders = sorted({str(PurePosixPath(p).parent) for p in files} - {"."})
        include = [f"-I{staging}", *(f"-I{staging / d}" for d in folders), f"-I{root / TORCH_SHIM}", f"-I{root}",
                   f"-I{root / 'host'}", f"-DTORCH_EXTENSION_NAME={module}"]
        objects = []
        for index, (own, unit) in enumerate([*((p, wrappers[p]) for p in units),
                                             ("", str(root / RUNTIME_SOURCE)), ("", str(root / DRIVER_SOURCE))]):
            objects.append(f"unit{index}.o")
            _compile([*compile_flags(), *include, "-c", unit, "-o", objects[-1]], staging, own, support)
        _compile([*build_flags(), *objects, str(support.launch_object), "-Wl,--wrap=exit", "-o", DIRECT_LIBRARY],
                 staging, "", support)
        seconds = time.perf_counter() - started
        publish(staging, directory, {"seconds": seconds, "module": module, "support": support.key})
        return seconds


def _compile(args: list[str], staging: Path, own_file: str, support) -> None:
    compile_untrusted(args, staging, support, "the submission",
                      lambda log: candidate_diagnostics(log, own_file, staging, (sim_include_dir(),)))


# ---- the run -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DirectRun:
    """One call of a submission's function: the tensors it returned, its launches (with the cost model's time
    estimate), what it printed and the kernels' debug text."""

    outputs: tuple[torch.Tensor, ...]
    launches: list[SampleLaunch]
    stdout: str
    stderr: str
    debug_text: str = ""


def run_direct_launch(build: DirectBuild, function: str, inputs: Sequence[Any], *, soc: str | None = None,
                      timeout: float | None = None) -> DirectRun:
    """Call ``function`` of the built module with ``inputs`` (CPU tensors, ints, floats, bools, lists of ints) in
    a sandboxed child."""
    return run_direct_launch_many(build, function, [inputs], soc=soc, timeout=timeout)[0]


def run_direct_launch_many(build: DirectBuild, function: str, calls: Sequence[Sequence[Any]], *,
                           soc: str | None = None, timeout: float | None = None) -> list[DirectRun]:
    """``run_direct_launch`` for each argument list of ``calls``, in turn in one child (one interpreter start), as
    one process calling the extension repeatedly would. Raises at the first call that fails."""
    limit = config.run_timeout_s() if timeout is None else timeout
    profile = get_soc(soc or config.default_soc()).as_sim_dict()
    runs = []
    with tempfile.TemporaryDirectory(prefix="ascendgen-direct-") as folder:
        root = Path(folder)
        (root / "work").mkdir()
        with Worker(_ready, _WARM_UP_S, "the submission's child process", writable=(folder,)) as worker:
            for inputs in calls:
                args = [_argument(value, index) for index, value in enumerate(inputs)]
                try:
                    answer = worker.call(_run_in_child, str(build.library), folder, function, args, profile,
                                         timeout=limit, what=f"{function} (its host code and kernels)")
                except (KernelCrashError, KernelTimeoutError) as exc:
                    raise _with_output(exc, root) from None
                runs.append(_outcome(build, function, answer, root))
    return runs


def call_here(build: DirectBuild, function: str, inputs: Sequence[Any], scratch: Path, soc: str) -> DirectRun:
    """``run_direct_launch`` in this process, its report and output in a fresh folder of ``scratch``: only for a
    process that is sandboxed already (the search's child, the serving worker: direct_kernel.py)."""
    args = [_argument(value, index) for index, value in enumerate(inputs)]
    with tempfile.TemporaryDirectory(prefix="direct-", dir=scratch) as folder:
        (Path(folder) / "work").mkdir()
        answer = _run_in_child(str(build.library), folder, function, args, get_soc(soc).as_sim_dict())
        return _outcome(build, function, answer, Path(folder))


def _argument(value: Any, index: int) -> Any:
    if isinstance(value, torch.Tensor):
        if value.device.type != "cpu" or value.dtype not in _SCALAR_TYPES:
            raise KernelArgumentError(f"argument {index}: a CPU tensor of one of "
                                      f"{', '.join(str(d) for d in _SCALAR_TYPES)}; got {value.dtype} on "
                                      f"{value.device}")
        return value.detach().contiguous()
    if isinstance(value, (bool, int, float)) or (isinstance(value, (list, tuple)) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value)):
        return list(value) if isinstance(value, tuple) else value
    raise KernelArgumentError(f"argument {index}: a tensor, an int, a float, a bool or a list of ints; got "
                              f"{type(value).__name__}")


def _outcome(build: DirectBuild, function: str, answer: tuple, root: Path) -> DirectRun:
    """The call's DirectRun, or the error its answer and its run report show (a kernel's first)."""
    status, exit_status, failure, outputs = answer
    launches, diagnostics, debug = _read_report(root / "report.tsv")
    stdout, stderr = _tail(root / "stdout.txt"), _tail(root / "stderr.txt")
    kernel = [d for d in diagnostics if d.kind != "host_api_misuse"]
    misuse = [d for d in diagnostics if d.kind == "host_api_misuse"]
    error: Exception | None = None
    if kernel or misuse:
        error = _diagnostic_error(build, (kernel or misuse)[0])
    elif status == 1:
        kind, file, line, message = failure.split("\t", 3)
        if kind == "host_argument":
            error = KernelArgumentError(message)
        else:
            error = SimulatorError(kind, message, file, int(line), -1, _source_line(build, file, int(line)))
    elif status == 2:
        error = SimulatorError("host_exit", f"the host code called exit({exit_status}) during {function}: return "
                               "from the function (or TORCH_CHECK) instead of ending the process")
    if error is not None:
        error.stdout, error.stderr, error.debug_text = stdout, stderr, debug
        raise error
    return DirectRun(tuple(outputs), launches, stdout, stderr, debug)


def _diagnostic_error(build: DirectBuild, diagnostic: SampleDiagnostic) -> SimulatorError:
    message = diagnostic.message
    if diagnostic.kind == "host_api_misuse":
        message = f"{diagnostic.where}: {message}"
    else:
        message = f"in kernel {diagnostic.where}: {message}"
    return SimulatorError(diagnostic.kind, message, diagnostic.file, diagnostic.line, diagnostic.block,
                          _source_line(build, diagnostic.file, diagnostic.line))


def _source_line(build: DirectBuild, file: str, line: int) -> str:
    lines = build.sources.get(file, "").splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


# ---- in the child --------------------------------------------------------------------------------------------


class _Arg(ctypes.Structure):
    """AscendcDirectArg of torch_ext/driver.cpp."""

    _fields_ = [("kind", ctypes.c_int32), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("reserved", ctypes.c_int32), ("integer", ctypes.c_int64), ("number", ctypes.c_double),
                ("sizes", ctypes.POINTER(ctypes.c_int64)), ("data", ctypes.c_void_p)]


class _Output(ctypes.Structure):
    """AscendcDirectOutput of torch_ext/driver.cpp."""

    _fields_ = [("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32), ("sizes", ctypes.POINTER(ctypes.c_int64)),
                ("data", ctypes.c_void_p), ("nbytes", ctypes.c_uint64)]


def _ready() -> None:
    """The worker's warm-up: nothing beyond the imports."""


def _c_args(args: Sequence[Any]) -> tuple[ctypes.Array, list]:
    """The driver's argument array, and the size arrays it points into (kept alive by the caller)."""
    array = (_Arg * max(len(args), 1))()
    kept = []
    for item, value in zip(array, args):
        if isinstance(value, torch.Tensor):
            sizes = (ctypes.c_int64 * max(value.dim(), 1))(*value.shape)
            item.kind, item.dtype, item.ndim, item.data = _TENSOR, _SCALAR_TYPES[value.dtype], value.dim(), \
                value.data_ptr()
        elif isinstance(value, list):
            sizes = (ctypes.c_int64 * max(len(value), 1))(*value)
            item.kind, item.ndim = _INT_LIST, len(value)
        else:
            sizes = None
            item.kind = _BOOL if isinstance(value, bool) else _INT if isinstance(value, int) else _FLOAT
            item.integer, item.number = (int(value), 0.0) if item.kind != _FLOAT else (0, float(value))
        if sizes is not None:
            item.sizes = sizes
            kept.append(sizes)
    return array, kept


def _run_in_child(library: str, root: str, function: str, args: list, profile: dict) -> tuple:
    """In the child: the call through the driver, in ``root``/work, its output in ``root``'s files.
    (status, exit status, failure text, outputs)."""
    with in_run_folder(root) as folder:
        driver = ctypes.CDLL(library)
        driver.ascendc_direct_run.argtypes = [ctypes.c_char_p, ctypes.POINTER(_Arg), ctypes.c_int32,
                                              ctypes.POINTER(_SocProfile), ctypes.c_char_p,
                                              ctypes.POINTER(ctypes.c_int32)]
        driver.ascendc_direct_failure.restype = ctypes.c_char_p
        array, _kept = _c_args(args)
        soc = _SocProfile(**{**profile, "name": profile["name"].encode()})
        exit_status = ctypes.c_int32(0)
        status = driver.ascendc_direct_run(function.encode(), array, len(args), ctypes.byref(soc),
                                           str(folder / "report.tsv").encode(), ctypes.byref(exit_status))
        failure = driver.ascendc_direct_failure().decode(errors="replace")
        return status, exit_status.value, failure, _outputs(driver) if status == 0 else []


def _outputs(driver: ctypes.CDLL) -> list[torch.Tensor]:
    """The returned tensors, copied out of the driver's host copies."""
    outputs = []
    for index in range(driver.ascendc_direct_output_count()):
        described = _Output()
        driver.ascendc_direct_output(index, ctypes.byref(described))
        dtype = _DTYPES.get(described.dtype)
        if dtype is None:
            raise KernelArgumentError(f"output {index} has a dtype the simulator has no tensor type for")
        tensor = torch.empty([described.sizes[i] for i in range(described.ndim)], dtype=dtype)
        if described.nbytes:
            ctypes.memmove(tensor.data_ptr(), described.data, described.nbytes)
        outputs.append(tensor)
    return outputs
