"""Run the fidelity suite: public AscendC kernels, unmodified, on the simulator, checked against torch.

    python benchmarks/fidelity/run.py                    # every case
    python benchmarks/fidelity/run.py --only ggml        # cases whose id contains "ggml"
    python benchmarks/fidelity/run.py --json out.json    # also write the results as JSON

The kernels are third-party code, which the repository does not ship: ``vendor.py`` brings them from git mirrors
of their repositories (its docstring says how), byte for byte, checked against the PROVENANCE files the repository
keeps. A case whose files are not there reports ``not fetched``.

For each case (suite.py) the runner checks the fetched files against their PROVENANCE sha256, builds each entry
the case's variants use with compile_kernel (the kernel's own headers beside it), launches every variant in a
sandboxed child with a time limit (foreign code never runs in this process) and compares each output buffer with
the torch reference (per-dtype tolerance). It prints one line per case, then totals: compiled, correct, failures
by cause, and per API group and per author.

A case compiles when every entry it uses builds; it is correct when every variant's outputs match. Causes:
``operator project`` (a kernel without the op_host sources that feed it), ``compile error:
<first missing API or header>``, ``host tiling`` (the host tiling helper a variant computes its tiling with is missing
or refuses it), ``simulator diagnostic: <kind>``, ``wrong result``, ``timeout``, ``crash``.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
for path in (str(HERE), str(HERE.parent.parent)):  # the suite's modules; the package from a checkout
    if path not in sys.path:
        sys.path.insert(0, path)

from sources import local_includes, project_paths, provenance, repo_dir, sha256, vendored_reader  # noqa: E402
from suite import CASES, GROUPS, Case, Launch, OpKernel, OpLaunch, Variant  # noqa: E402

from torch_ascendgen.errors import (  # noqa: E402
    KernelBuildError,
    KernelCrashError,
    KernelTimeoutError,
    OpProjectError,
    SimulatorError,
)
from torch_ascendgen.targets.sim import op_kernel  # noqa: E402
from torch_ascendgen.targets.sim.build import build_sim_kernel  # noqa: E402
from torch_ascendgen.targets.sim.op_host import OpDescription, ParamDecl  # noqa: E402
from torch_ascendgen.targets.sim.op_project import OpProject  # noqa: E402
from torch_ascendgen.targets.sim.simulator import SimKernel, compile_kernel  # noqa: E402

TOLERANCES = {torch.float32: (1e-4, 1e-4), torch.float16: (2e-3, 2e-3), torch.bfloat16: (1.6e-2, 1.6e-2),
              torch.float64: (1e-7, 1e-7)}
TIMEOUT_S = 120.0
SEED = 0


class UnsupportedFormat(Exception):
    """A kernel in a format the simulator's build does not take yet; the message is the cause."""


@dataclass
class Result:
    id: str
    author: str
    groups: list[str]
    compiled: bool = False
    correct: bool = False
    cause: str = ""
    detail: str = ""
    variants: list[dict] = field(default_factory=list)
    seconds: float = 0.0


def verify_files(case: Case) -> list[str]:
    """The case's vendored files whose bytes differ from their PROVENANCE sha256 (or that are missing)."""
    recorded = provenance(case.vendored)
    paths = case_files(case)
    bad = []
    for path in paths:
        file = repo_dir(case.vendored) / path
        if path not in recorded or not file.is_file() or sha256(file.read_bytes()) != recorded[path][1]:
            bad.append(path)
    return bad


def fetched(case: Case) -> bool:
    """Whether vendor.py has brought the case's kernel file (git keeps only PROVENANCE)."""
    return (repo_dir(case.vendored) / case.path).is_file()


def case_files(case: Case) -> list[str]:
    """The repository paths of the case's vendored files: the kernel, its headers, its op's tiling header."""
    tiling = [case.op.tiling_header] if case.op and case.op.tiling_header else []
    return [case.path, *kernel_headers(case).values(), *tiling, *host_files(case)]


def host_files(case: Case) -> list[str]:
    """The op_host sources vendored with an operator project (its OpDef, InferShape and TilingFunc, the tiling
    header): none when the case is not one, names its kernel's build itself (``Case.op``), or its repository's host
    code was not vendored."""
    if case.fmt != "operator project" or case.op is not None:
        return []
    read = vendored_reader(case.vendored)
    return [p for p in project_paths(read, case.path, case.include_roots) if read(p) is not None]


def kernel_headers(case: Case) -> dict[str, str]:
    """{include name relative to the kernel's directory: repository path} of the kernel's own headers."""
    return local_includes(vendored_reader(case.vendored), case.path, case.include_roots)


def kernel_source(case: Case) -> str:
    return (repo_dir(case.vendored) / case.path).read_text(encoding="utf-8", errors="surrogateescape")


def build(case: Case, entry: str) -> SimKernel | OpProject:
    """The one place a vendored kernel becomes a simulator kernel; raises UnsupportedFormat or KernelBuildError.

    A kernel-launch file builds like a bare kernel: compile_kernel makes its ``<<<>>>`` launcher C++ and the
    entry is launched directly. An operator project whose op_host sources are vendored with it runs through its own
    OpDef and TilingFunc (targets/sim/op_project.py): built here is its host code, the kernel is built for the dtypes
    of the first call (project_kernel). Without them, its kernel builds as op_project.py builds it (the
    DTYPE_<NAME> macros, the entry that takes the tiling key) from the dtypes its case names (``Case.op``), and the
    case packs the tiling and passes the key. One with neither stops here."""
    source = kernel_source(case)
    fmt = kernel_format(case, source)
    read = vendored_reader(case.vendored)
    headers = {name: read(path) for name, path in kernel_headers(case).items()}
    if fmt == "operator project" and host_files(case):
        return operator_project(case, source, headers)
    if fmt == "operator project":
        if case.op is None:
            raise UnsupportedFormat(fmt)
        tiling_header = read(case.op.tiling_header) if case.op.tiling_header else (
            "namespace optiling {}  // the kernel reads its tiling bytes itself")
        unit = op_kernel.kernel_source(operator_description(case.op), 0, tiling_header, source, listed=case.op.listed,
                                       header_name=Path(case.op.tiling_header).name)
        return SimKernel(build_sim_kernel(unit, op_kernel.ENTRY, headers), source, Path(case.path).name)
    return compile_kernel(source, entry, filename=Path(case.path).name, headers=headers)


def operator_project(case: Case, source: str, headers: dict[str, str]) -> OpProject:
    read = vendored_reader(case.vendored)
    host, tiling, *_ = project_paths(read, case.path, case.include_roots)
    if read(host) is None or read(tiling) is None:
        raise UnsupportedFormat("operator project")  # a kernel without the op_host sources that feed it
    # the op_host code's headers, by the name it includes them relative to op_host/
    host_headers = [(name, read(path)) for name, path in local_includes(read, host, case.include_roots).items()
                    if path != tiling]
    project = OpProject((posixpath.basename(tiling), read(tiling)), (posixpath.basename(host), read(host)),
                        (Path(case.path).name, source), host_headers=host_headers,
                        kernel_headers=list(headers.items()))
    try:
        project.describe(case.soc or None)  # builds the host code
    except OpProjectError as exc:
        raise KernelBuildError(str(exc)) from None
    return project


def project_kernel(project: OpProject, case: Case) -> None:
    """Builds the project's kernel for its first call's inputs, so that a build error counts as one."""
    launch = case.variants[0].make(torch.Generator().manual_seed(SEED))
    project.kernel(*launch.inputs, soc=case.soc or None)


def operator_description(op: OpKernel) -> OpDescription:
    """The part of an OpDef a kernel build reads: the inputs and outputs in order, one dtype combination."""
    def decl(name: str, dtype: str) -> ParamDecl:
        return ParamDecl(name, "required", (op_kernel.GE_DTYPES[dtype][0],), (2,), True, True, False)

    return OpDescription(op.op_type, tuple(decl(*p) for p in op.inputs), tuple(decl(*p) for p in op.outputs), (),
                         (), True, False, False)


def kernel_format(case: Case, source: str) -> str:
    """The case's format; a ``<<<>>>`` launcher in the file makes any kernel a kernel-launch one."""
    return "kernel-launch" if re.search(r">>>\s*\(", source) else case.fmt


_MISSING = (
    re.compile(r"fatal error: ([\w./-]+): No such file"),
    re.compile(r"'(?:AscendC::)?([\w:]+)' (?:was not declared|is not a member of|has not been declared"
               r"|does not name a type)"),
    re.compile(r"'(?:class |struct )?[\w:<>, ]+' has no member named '(\w+)'"),
    re.compile(r"no matching (?:function|member function) for call to '(?:AscendC::)?([\w:]+)"),
    re.compile(r"call of overloaded '(?:AscendC::)?(\w+)\(.*' is ambiguous"),
    re.compile(r"no match for '(operator\S+)'"),
)


def compile_cause(log: str) -> str:
    """``compile error: <what>``: the first missing header or API the log names, else the first error line (with
    the macro it came from, when the compiler names one)."""
    lines = log.splitlines()
    for number, line in enumerate(lines):
        if "error" not in line:
            continue
        for pattern in _MISSING:
            found = pattern.search(line)
            if found:
                what = found.group(1)
                prefix = "missing header " if pattern is _MISSING[0] else ""
                suffix = " (ambiguous)" if "ambiguous" in line else ""
                return f"compile error: {prefix}{what}{suffix}"
        macro = next((m.group(1) for m in (re.search(r"in expansion of macro '(\w+)'", later)
                                           for later in lines[number + 1:number + 3]) if m), "")
        return "compile error: " + (f"macro {macro}: " if macro else "") + re.sub(r"^.*?error: ", "", line)[:80]
    return "compile error"


def compare(launch: Launch | OpLaunch, args_after: tuple) -> str:
    """'' when every expected output matches, else what differs first."""
    for index, expected in launch.expected.items():
        got = args_after[index]
        if got.dtype != expected.dtype:
            got = got.reshape(-1).view(expected.dtype) if got.element_size() != expected.element_size() else got
        got = got.reshape(-1)[:expected.numel()].reshape(expected.shape)
        if got.dtype.is_floating_point:
            rtol, atol = TOLERANCES.get(got.dtype, (1e-4, 1e-4))
            rtol = launch.rtol if launch.rtol is not None else rtol
            atol = launch.atol if launch.atol is not None else atol
            close = torch.isclose(got.float(), expected.float(), rtol=rtol, atol=atol, equal_nan=True)
        else:
            atol = launch.atol or 0
            close = (got.long() - expected.long()).abs() <= atol
        if not bool(close.all()):
            bad = (~close).nonzero()[0].tolist()
            return (f"argument {index}: {int((~close).sum())}/{close.numel()} elements differ; first at {bad}: "
                    f"got {got[tuple(bad)].item()!r}, expected {expected[tuple(bad)].item()!r}")
    return ""


def run_variant(kernel: SimKernel | OpProject, variant: Variant, soc: str = "") -> tuple[str, str]:
    """(cause, detail) of one launch; ('', '') when it is correct."""
    generator = torch.Generator().manual_seed(SEED)
    try:
        launch = variant.make(generator)
    except ValueError as exc:  # a host tiling helper (host_tiling.py) missing or refusing the launch's shape
        return "host tiling", str(exc)[:200]
    try:
        if isinstance(launch, OpLaunch):
            # its host code and kernel in a sandboxed child, the kernel with bisheng's --cce-auto-sync
            args = kernel.run(*launch.inputs, soc=soc or None, **launch.attrs).outputs
        else:
            args = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in launch.args)
            # every case comes from an operator or kernel-launch project, which bisheng builds with --cce-auto-sync
            kernel.launch_isolated(launch.block_dim, *args, soc=soc or None, timeout=TIMEOUT_S, auto_sync=True)
    except OpProjectError as exc:
        return "operator project", str(exc).splitlines()[0][:200]
    except SimulatorError as exc:
        if variant.diagnostic == exc.kind:
            return "", ""
        return f"simulator diagnostic: {exc.kind}", str(exc).splitlines()[0][:200]
    except KernelTimeoutError as exc:
        return "timeout", str(exc)[:200]
    except KernelCrashError as exc:
        return "crash", str(exc)[:200]
    if variant.diagnostic:
        return "missed diagnostic", f"the simulator let an upstream {variant.diagnostic} pass"
    mismatch = compare(launch, args)
    return ("wrong result", mismatch) if mismatch else ("", "")


def run_case(case: Case) -> Result:
    result = Result(case.id, case.author, list(case.groups))
    started = time.perf_counter()
    if not fetched(case):
        result.cause = "not fetched"
        result.detail = (f"the repository ships no third-party code: mirror github:{case.repo}, then "
                         "python benchmarks/fidelity/vendor.py --mirrors <dir>")
        return result
    bad = verify_files(case)
    if bad:
        result.cause, result.detail = "vendored file changed", ", ".join(bad)
        return result
    kernels: dict[str, SimKernel | OpProject] = {}
    try:
        for entry in dict.fromkeys(v.entry for v in case.variants):
            kernels[entry] = build(case, entry)
            if isinstance(kernels[entry], OpProject):
                project_kernel(kernels[entry], case)
    except UnsupportedFormat as exc:
        result.cause = str(exc)
        return _timed(result, started)
    except KernelBuildError as exc:
        result.cause, result.detail = compile_cause(exc.log or str(exc)), (exc.log or str(exc))[:400]
        return _timed(result, started)
    except OpProjectError as exc:  # the project's host code refused the first call
        result.cause, result.detail = "operator project", str(exc)[:400]
        return _timed(result, started)
    result.compiled = True
    for variant in case.variants:
        cause, detail = run_variant(kernels[variant.entry], variant, case.soc)
        result.variants.append({"entry": variant.entry, "label": variant.label, "cause": cause, "detail": detail})
        if cause and not result.cause:
            result.cause, result.detail = cause, f"{variant.label}: {detail}"
    result.correct = not result.cause
    return _timed(result, started)


def _timed(result: Result, started: float) -> Result:
    result.seconds = round(time.perf_counter() - started, 2)
    return result


def report(results: list[Result]) -> str:
    lines = [f"{'kernel':<52} {'compiled':<9} {'correct':<8} cause"]
    for r in results:
        lines.append(f"{r.id:<52} {'yes' if r.compiled else 'no':<9} {'yes' if r.correct else 'no':<8} {r.cause}")
    total = len(results)
    lines += ["", f"kernels {total}, authors {len({r.author for r in results})}: "
              f"compiled {sum(r.compiled for r in results)}, correct {sum(r.correct for r in results)}"]
    lines.append("failures by cause:")
    for cause, count in Counter(_cause_class(r.cause) for r in results if not r.correct).most_common():
        lines.append(f"  {count:3d}  {cause}")
    lines.append("compile errors by first missing API or header:")
    for cause, count in Counter(r.cause for r in results if r.cause.startswith("compile error")).most_common():
        lines.append(f"  {count:3d}  {cause[len('compile error: '):]}")
    lines.append(_breakdown("per API group", results, lambda r: r.groups, GROUPS))
    lines.append(_breakdown("per author", results, lambda r: [r.author], sorted({r.author for r in results})))
    return "\n".join(lines)


def _cause_class(cause: str) -> str:
    return "compile error" if cause.startswith("compile error") else cause


def _breakdown(title: str, results: list[Result], keys, order) -> str:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in results:
        for key in keys(r):
            counts[key][0] += 1
            counts[key][1] += r.compiled
            counts[key][2] += r.correct
    rows = [f"{title}: kernels / compiled / correct"]
    rows += [f"  {key:<22} {c[0]:3d} {c[1]:3d} {c[2]:3d}" for key in order for c in [counts[key]]]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> list[Result]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run the cases whose id contains this text")
    parser.add_argument("--json", type=Path, help="also write the results here")
    options = parser.parse_args(argv)
    results = []
    for case in CASES:
        if options.only in case.id:
            results.append(run_case(case))
            print(f"  {case.id}: {results[-1].cause or 'correct'} ({results[-1].seconds} s)", file=sys.stderr)
    print(report(results))
    if options.json:
        options.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
    return results


if __name__ == "__main__":
    main()
