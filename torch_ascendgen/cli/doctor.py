"""`python -m torch_ascendgen doctor`: what this machine has, what is missing, and the fix for each.

Each check is a small function returning a `Check`. A check that fails with status "fail" is one
the simulator path needs (torch, the C++ compiler, the Python headers, a writable cache), so the
exit status is 1; optional parts (torch_npu, the SoC, CANN, bisheng, the model server) are "off" when
absent and "warn" when present but broken. The model becomes required when TORCH_ASCENDGEN_GENERATOR=llm.

torch_npu is probed in a child process: a broken install (a missing CANN library, a segfault in
its import) costs the child, never the doctor. The same probe reads the SoC of NPU 0. CANN and bisheng
are found by cann.py, the same code the NPU build uses.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from torch_ascendgen import config
from torch_ascendgen.errors import NpuUnavailable
from torch_ascendgen.targets import confinement, toolchain
from torch_ascendgen.targets.npu import cann
from torch_ascendgen.version import __version__

OK, OFF, WARN, FAIL = "ok", "off", "warn", "fail"
PROBE_TIMEOUT_S = 120.0  # importing torch_npu on a cold disk is slow
MODEL_TIMEOUT_S = 30.0   # the ping's one-token completion; capped below llm_timeout_s
BISHENG_TIMEOUT_S = 30.0

# Prints one answer line (ABSENT, BROKEN or VERSION) and, with an NPU, a SOC or SOCERROR line. torch_npu
# may print banners of its own; the parent reads the last line of each kind. An import failure is
# reported by its root cause: torch wraps an autoloaded backend's error in a RuntimeError raised from it.
_TORCH_NPU_PROBE = """
import importlib.util, sys
def said(exc):
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return type(exc).__name__ + ": " + " ".join(str(exc).split())[:400]
if importlib.util.find_spec("torch_npu") is None:
    print("ABSENT"); sys.exit(0)
try:
    import torch, torch_npu
except Exception as exc:
    print("BROKEN", said(exc)); sys.exit(0)
available = torch.npu.is_available()
count = torch.npu.device_count() if available else 0
print("VERSION", getattr(torch_npu, "__version__", "?"), available, count)
if count:
    try:
        print("SOC", torch.npu.get_device_name(0))
    except Exception as exc:
        print("SOCERROR", said(exc))
"""


# Loads confinement.py by its path (no torch), confines itself as a candidate's child would be, tries what the
# sandbox must stop, and prints the outcome as JSON.
_SANDBOX_PROBE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("confinement", sys.argv[1])
module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(json.dumps(module.probe(sys.argv[2])))
"""
SANDBOX_FIX = ("candidates still run, confined only by resource limits, the source screen and the library check; "
               "for the whole sandbox use Linux 6.12 or newer with Landlock enabled (landlock in the lsm= boot "
               "parameter, or CONFIG_LSM) and seccomp")


@dataclass(frozen=True)
class Check:
    """One line of the report: what was checked, how it went, what was found, and the fix."""

    name: str
    status: str  # OK, OFF (optional, absent), WARN (optional, broken), FAIL (needed, broken)
    detail: str
    fix: str = ""


# ---- the checks ---------------------------------------------------------------------------------

def check_python() -> Check:
    return Check("python", OK, f"{platform.python_version()} ({sys.executable})")


def check_torch() -> Check:
    try:
        import torch
    except Exception as exc:  # noqa: BLE001 - any import failure is the finding
        return Check("torch", FAIL, f"cannot import torch: {exc}", "pip install torch==2.13.0 (the CPU build)")
    return Check("torch", OK, f"{torch.__version__}")


@dataclass(frozen=True)
class NpuProbe:
    """What the child that imported torch_npu said."""

    returncode: int
    answer: tuple[str, ...]  # ("ABSENT",), ("BROKEN", "Type: message"), ("VERSION", v, available, count), ()
    soc: str = ""            # the SoC name of NPU 0 as torch_npu reports it
    soc_error: str = ""
    stderr_tail: str = ""
    timeout_s: float = 0.0   # > 0: the child did not finish in this time


def probe_torch_npu(timeout_s: float = PROBE_TIMEOUT_S) -> NpuProbe:
    """Import torch_npu in a child process and ask it for its version, devices and SoC."""
    try:
        done = subprocess.run([sys.executable, "-c", _TORCH_NPU_PROBE], capture_output=True, text=True,
                              timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return NpuProbe(returncode=0, answer=(), timeout_s=timeout_s)
    return parse_probe(done.returncode, done.stdout, done.stderr)


def parse_probe(returncode: int, stdout: str, stderr: str) -> NpuProbe:
    def last(*kinds: str) -> str:
        return next((line for line in reversed(stdout.splitlines()) if line.split(" ", 1)[0] in kinds), "")

    answer = last("ABSENT", "BROKEN", "VERSION")
    answer_fields = tuple(answer.split(" ", 1)) if answer.startswith("BROKEN") else tuple(answer.split())
    soc_line = last("SOC", "SOCERROR")
    kind, _, value = soc_line.partition(" ")
    return NpuProbe(returncode=returncode, answer=answer_fields, soc=value.strip() if kind == "SOC" else "",
                    soc_error=value.strip() if kind == "SOCERROR" else "",
                    stderr_tail=(stderr.strip().splitlines() or ["(no output)"])[-1])


def check_torch_npu(timeout_s: float = PROBE_TIMEOUT_S, probe: NpuProbe | None = None) -> Check:
    """torch_npu: absent, broken (with the root cause), or its version and visible NPUs."""
    probe = probe or probe_torch_npu(timeout_s)
    npu_fix = _torch_npu_fix()
    kind = probe.answer[:1]
    if probe.timeout_s:
        return Check("torch_npu", WARN, f"importing torch_npu took longer than {probe.timeout_s:g} s",
                     f"check the CANN installation ({cann.SET_ENV_HINT}) and the driver (npu-smi info)")
    if probe.returncode < 0:
        return Check("torch_npu", WARN, f"importing torch_npu killed the process ({_signal_name(-probe.returncode)})",
                     npu_fix)
    if probe.returncode == 0 and kind == ("ABSENT",):
        return Check("torch_npu", OFF, "not installed (only the NPU target needs it; the simulator does not)",
                     npu_fix)
    if probe.returncode == 0 and kind == ("BROKEN",) and len(probe.answer) == 2:
        return Check("torch_npu", WARN, f"installed but broken: {probe.answer[1]}",
                     _one_paragraph(cann.torch_npu_broken_fix(probe.answer[1])))
    if probe.returncode == 0 and kind == ("VERSION",) and len(probe.answer) >= 4:
        _, version, available, count = probe.answer[:4]
        if available == "True":
            return Check("torch_npu", OK, f"{version}, {count} NPU(s) visible")
        return Check("torch_npu", WARN, f"{version} imports, but no NPU is visible",
                     "check the driver (npu-smi info) and ASCEND_RT_VISIBLE_DEVICES")
    return Check("torch_npu", WARN, f"installed but broken: {probe.stderr_tail}", npu_fix)


def check_soc(probe: NpuProbe) -> Check:
    """The SoC of NPU 0 as a name torch_ascendgen targets, and bisheng's --npu-arch for it."""
    if not probe.soc:
        if probe.soc_error:
            return Check("SoC", WARN, f"torch_npu could not read NPU 0's SoC name: {probe.soc_error}",
                         "check the driver with `npu-smi info`")
        return Check("SoC", OFF, "no NPU to ask (see torch_npu)")
    try:
        name = cann.normalise_soc_name(probe.soc)
    except NpuUnavailable as exc:
        return Check("SoC", WARN, _one_paragraph(str(exc)),
                     "kernels for this NPU cannot be generated; the simulator target still works")
    reported = f", reported as {probe.soc!r}" if name != probe.soc else ""
    return Check("SoC", OK, f"{name} (bisheng --npu-arch={cann.npu_arch(name)}){reported}")


def _one_paragraph(text: str) -> str:
    return " ".join(text.replace("Fix: ", "").split())


def _torch_npu_fix() -> str:
    return _one_paragraph(cann.torch_npu_install_fix())


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def check_cann(search: cann.CannSearch | None = None) -> Check:
    """The CANN toolkit: where, which version, how it was found; set_env.sh sourced?"""
    search = search or cann.search_cann()
    toolkit = search.toolkit
    fix = f"on an NPU machine: install the CANN toolkit and {cann.SET_ENV_HINT}"
    if toolkit is None:
        looked = ", ".join(str(p) for p in search.tried) or "no install roots"
        if search.notes:  # e.g. a stale ASCEND_HOME_PATH: CANN was meant to be here
            return Check("CANN", WARN, f"not found: {'; '.join(search.notes)}; looked in {looked}", fix)
        return Check("CANN", OFF, f"not found ({config.ASCEND_HOME_PATH_ENV} / {config.ASCEND_TOOLKIT_HOME_ENV} "
                     f"unset; looked in {looked}); only the NPU target needs it", fix)
    detail = f"{toolkit.version} at {toolkit.home} (found by {toolkit.source})"
    if toolkit.version == cann.UNKNOWN_VERSION:
        return Check("CANN", WARN, f"{detail}, but no file says its version (<arch>-linux/ascend_toolkit_install.info, "
                     "version.cfg, compiler/version.info)", "reinstall the CANN toolkit package")
    if toolkit.source not in (config.ASCEND_HOME_PATH_ENV, config.ASCEND_TOOLKIT_HOME_ENV):
        return Check("CANN", WARN, f"{detail}; its set_env.sh is not sourced in this shell, so torch_npu "
                     "cannot load CANN's libraries", f"run {cann.set_env_hint(toolkit)} before starting Python")
    if not toolkit.include_dirs:
        return Check("CANN", WARN, f"{detail}, but it has no include directory (acl/acl.h)",
                     "reinstall the CANN toolkit package")
    return Check("CANN", OK, detail)


def check_bisheng(search: cann.CannSearch | None = None, timeout_s: float = BISHENG_TIMEOUT_S) -> Check:
    """CANN's bisheng compiler: found, and `bisheng --version` runs."""
    search = search or cann.search_cann()
    toolkit = search.toolkit
    if toolkit is None:
        return Check("bisheng", OFF, "no CANN toolkit (see CANN)")
    fix = (f"install the full CANN toolkit (it contains the compiler) and {cann.set_env_hint(toolkit)}, "
           f"or point {config.BISHENG_ENV} at bisheng")
    if toolkit.bisheng is None:
        return Check("bisheng", WARN, search.bisheng_note or "not found", fix)
    try:
        done = subprocess.run([str(toolkit.bisheng), "--version"], capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("bisheng", WARN, f"{toolkit.bisheng} does not run: {exc}", fix)
    first = ((done.stdout or done.stderr).strip().splitlines() or [""])[0]
    if done.returncode != 0:
        return Check("bisheng", WARN, f"{toolkit.bisheng} --version failed (exit {done.returncode}): {first[:200]}",
                     fix)
    return Check("bisheng", OK, f"{toolkit.bisheng} ({first[:120] or 'no version line'})")


def check_compiler() -> Check:
    """The simulator's C++ compiler exists and compiles C++17."""
    cxx = config.cxx()
    fix = f"install g++ (apt-get install g++) or point {config.CXX_ENV} at a C++17 compiler"
    path = shutil.which(cxx)
    if path is None:
        return Check("compiler", FAIL, f"{cxx!r} not found", fix)
    program = "#include <cstdint>\n#include <optional>\nint main() { std::optional<int32_t> x; return x ? 1 : 0; }\n"
    try:
        done = subprocess.run([cxx, "-std=c++17", "-fsyntax-only", "-x", "c++", "-"], input=program,
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("compiler", FAIL, f"{cxx} did not run: {exc}", fix)
    if done.returncode != 0:
        return Check("compiler", FAIL, f"{cxx} cannot compile C++17: {done.stderr.strip()[:300]}", fix)
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.splitlines()
    return Check("compiler", OK, f"{version[0] if version else cxx} ({path}), C++17 ok")


def check_python_headers() -> Check:
    """pybind11 and Python.h: the runtime module that launches kernels is built from them."""
    try:
        import pybind11
    except ImportError:
        return Check("python headers", FAIL, "pybind11 is not installed", "pip install pybind11")
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").is_file():
        return Check("python headers", FAIL, f"Python.h not found in {include}",
                     f"install the Python development headers (apt-get install python{sys.version_info[0]}"
                     f".{sys.version_info[1]}-dev, or use a Python built with them)")
    return Check("python headers", OK, f"Python.h in {include}, pybind11 {pybind11.__version__}")


def check_cache_dir() -> Check:
    directory = config.cache_dir()
    fix = f"set {config.CACHE_DIR_ENV} to a writable directory"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".doctor-", delete=True) as probe:
            probe.write(b"ok")
    except OSError as exc:
        return Check("cache", FAIL, f"{directory} is not writable: {exc.strerror or exc}", fix)
    free_gb = shutil.disk_usage(directory).free / (1 << 30)
    if free_gb < 1:
        return Check("cache", WARN, f"{directory} (writable, only {free_gb:.2f} GB free)", fix + " with more space")
    return Check("cache", OK, f"{directory} (writable, {free_gb:.0f} GB free)")


def probe_sandbox(timeout_s: float = 60.0) -> tuple[confinement.Protections, dict[str, bool]]:
    """Confine a short-lived child as a candidate's would be (confinement cannot be undone, so never the doctor
    itself): what is active, and which escape attempts it stopped."""
    with tempfile.TemporaryDirectory(prefix="ascendgen-doctor-") as folder:
        scratch = Path(folder) / "scratch"
        scratch.mkdir()
        done = subprocess.run([sys.executable, "-c", _SANDBOX_PROBE, confinement.__file__, str(scratch)],
                              capture_output=True, text=True, timeout=timeout_s)
    if done.returncode != 0:
        raise RuntimeError(f"the probe exited with {done.returncode}: {done.stderr.strip()[-300:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    values = found["protections"]
    return confinement.Protections(**{**values, "notes": tuple(values["notes"])}), found["stopped"]


def _sandbox_unset(name: str, consequence: str) -> Check | None:
    """The check's answer when TORCH_ASCENDGEN_SANDBOX is invalid or off (``consequence``: what off means)."""
    try:
        mode = config.sandbox()
    except ValueError as exc:
        return Check(name, FAIL, str(exc), f"unset {config.SANDBOX_ENV}")
    if mode == "off":
        return Check(name, WARN, f"off ({config.SANDBOX_ENV}=off): {consequence}",
                     f"unset {config.SANDBOX_ENV} (off is for debugging)")
    return None


def check_sandbox(probe: tuple[confinement.Protections, dict[str, bool]] | None = None) -> Check:
    """The kernel-enforced sandbox of the child that runs candidate kernels: which protections this machine gives."""
    unset = _sandbox_unset("sandbox", "candidate kernels run with resource limits only")
    if unset:
        return unset
    try:
        protections, stopped = probe or probe_sandbox()
    except (OSError, ValueError, KeyError, TypeError, RuntimeError, subprocess.TimeoutExpired) as exc:
        return Check("sandbox", WARN, f"the sandbox probe failed: {exc}", SANDBOX_FIX)
    open_doors = [what for what, held in stopped.items() if not held]
    if protections.complete and not open_doors:
        return Check("sandbox", OK, f"{protections.describe()}; escape attempts stopped: {', '.join(stopped)}")
    missing = ", ".join(protections.missing()) or "none"
    notes = f" ({'; '.join(protections.notes)})" if protections.notes else ""
    doors = f"; not stopped: {', '.join(open_doors)}" if open_doors else ""
    return Check("sandbox", WARN, f"partial: {protections.describe()}; missing: {missing}{notes}{doors}", SANDBOX_FIX)


def check_build_sandbox(probe: toolchain.BuildSandboxProbe | None = None) -> Check:
    """The sandbox of the compiler that builds model-written kernels (toolchain.run_untrusted)."""
    unset = _sandbox_unset("build sandbox", "model kernels are built with the compiler reading every file you can")
    if unset:
        return unset
    try:
        probe = probe or toolchain.probe_build_sandbox()
    except (OSError, subprocess.SubprocessError) as exc:
        return Check("build sandbox", WARN, f"the build sandbox probe failed: {exc}", SANDBOX_FIX)
    if not probe.builds:
        return Check("build sandbox", FAIL, f"the compiler fails inside the build sandbox: {probe.log[-300:]}",
                     f"report it; {config.SANDBOX_ENV}=off builds without the sandbox meanwhile")
    if probe.read_outside:
        return Check("build sandbox", WARN, "partial: builds run with seccomp and without your environment, but the "
                     f"compiler could include a file outside its sandbox{_landlock_note()}", SANDBOX_FIX)
    return Check("build sandbox", OK, f"Landlock ABI {confinement.landlock_abi()}: the compiler reads only the "
                 "toolchain, our headers and its staging directory (a file outside could not be included) and writes "
                 "only there; seccomp (no sockets, ptrace, mounts); of your environment only PATH, LD_LIBRARY_PATH and "
                 "ASCEND_*")


def _landlock_note() -> str:
    return "" if confinement.landlock_abi() else " (the kernel has no Landlock: Linux 5.13+, landlock in lsm=)"


def check_model(timeout_s: float = MODEL_TIMEOUT_S) -> Check:
    """The model server: reachable, which model, a one-token round trip. Needed only for generator=llm."""
    required = config.generator() == "llm"
    missing = FAIL if required else WARN
    serve = f"`vllm serve MODEL`, then export {config.LLM_URL_ENV}=http://127.0.0.1:8000/v1"
    if not config.llm_url():
        status = FAIL if required else OFF
        return Check("model", status, "no model configured (the built-in generator works without one)", serve)
    try:
        from torch_ascendgen.generators.llm.client import ModelClient, ModelSettings
    except ImportError as exc:
        return Check("model", missing, f"the model client cannot load: {exc}", "pip install 'openai>=1.30'")
    settings = ModelSettings.from_config()
    settings = dataclasses.replace(settings, retries=0, timeout_s=min(settings.timeout_s, timeout_s))
    ping = ModelClient(settings).ping()
    if not ping.reachable or ping.error:
        return Check("model", missing, ping.error or f"{settings.url} is unreachable", "" if ping.error else serve)
    others = [m for m in ping.models if m != ping.model]
    served = f" (also serves {', '.join(others)})" if others else ""
    return Check("model", OK, f"{settings.url} serves {ping.model}{served}; one-token round trip "
                 f"{ping.round_trip_s * 1000:.0f} ms")


# ---- the report ---------------------------------------------------------------------------------

def run_checks(model_timeout_s: float = MODEL_TIMEOUT_S) -> list[Check]:
    """Every check, in report order."""
    probe = probe_torch_npu()
    search = cann.search_cann()
    return [check_python(), check_torch(), check_compiler(), check_python_headers(), check_cache_dir(),
            check_sandbox(), check_build_sandbox(), check_torch_npu(probe=probe), check_soc(probe), check_cann(search),
            check_bisheng(search), check_model(model_timeout_s)]


def render(checks: list[Check]) -> str:
    width = max(len(c.name) for c in checks)
    lines = [f"torch_ascendgen {__version__} doctor", ""]
    for check in checks:
        lines.append(f"  {check.status:<4}  {check.name:<{width}}  {check.detail}")
        if check.fix and check.status != OK:
            lines.append(f"  {'':<4}  {'':<{width}}  fix: {check.fix}")
    lines += ["", summary(checks)]
    return "\n".join(lines)


def summary(checks: list[Check]) -> str:
    failed = [c.name for c in checks if c.status == FAIL]
    if failed:
        return f"Not ready: {', '.join(failed)} must be fixed (see the fixes above)."
    target = "the NPU and the simulator" if _npu_ready(checks) else "the simulator"
    model = " and a local model" if any(c.name == "model" and c.status == OK for c in checks) else ""
    return f"Ready: kernels can be generated{model}, built and verified on {target}."


def _npu_ready(checks: list[Check]) -> bool:
    """Every piece the NPU target needs is there: torch_npu with an NPU, a SoC we target, CANN, bisheng."""
    status = {c.name: c.status for c in checks}
    return all(status.get(name) == OK for name in ("torch_npu", "SoC", "CANN", "bisheng"))


def exit_status(checks: list[Check]) -> int:
    """0 when everything the simulator path needs works (and the model, when generator=llm)."""
    return 1 if any(c.status == FAIL for c in checks) else 0


def main(model_timeout_s: float = MODEL_TIMEOUT_S) -> int:
    checks = run_checks(model_timeout_s)
    print(render(checks), flush=True)
    return exit_status(checks)
