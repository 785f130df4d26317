"""`python -m torch_ascendgen doctor`: what this machine has, what is missing, and the fix for each.

Each check is a small function returning a `Check`. A check that fails with status "fail" is one
the simulator path needs (torch, the C++ compiler, the Python headers, a writable cache), so the
exit status is 1; optional parts (torch_npu, CANN, the model server) are "off" when absent and
"warn" when present but broken. The model becomes required when TORCH_ASCENDGEN_GENERATOR=llm.

torch_npu is probed in a child process: a broken install (a missing CANN library, a segfault in
its import) costs the child, never the doctor.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import __version__, config

OK, OFF, WARN, FAIL = "ok", "off", "warn", "fail"
PROBE_TIMEOUT_S = 120.0  # importing torch_npu on a cold disk is slow
MODEL_TIMEOUT_S = 30.0   # the ping's one-token completion; capped below llm_timeout_s
CANN_DEFAULT = Path("/usr/local/Ascend/ascend-toolkit/latest")

_TORCH_NPU_PROBE = """
import importlib.util, sys
if importlib.util.find_spec("torch_npu") is None:
    print("ABSENT"); sys.exit(0)
import torch, torch_npu
available = torch.npu.is_available()
print("VERSION", getattr(torch_npu, "__version__", "?"), available, torch.npu.device_count() if available else 0)
"""


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


def check_torch_npu(timeout_s: float = PROBE_TIMEOUT_S) -> Check:
    """Import torch_npu in a child process and report what it says (absent, broken, devices)."""
    try:
        done = subprocess.run([sys.executable, "-c", _TORCH_NPU_PROBE], capture_output=True, text=True,
                              timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return Check("torch_npu", WARN, f"importing torch_npu took longer than {timeout_s:g} s",
                     "check the CANN installation (source set_env.sh) and the driver")
    return _torch_npu_finding(done.returncode, done.stdout, done.stderr)


def _torch_npu_finding(returncode: int, stdout: str, stderr: str) -> Check:
    npu_fix = _torch_npu_fix()
    # the probe's own line is the last one: torch_npu may print banners of its own on import
    answer = next((line.split() for line in reversed(stdout.splitlines()) if line.startswith(("ABSENT", "VERSION"))),
                  [])
    if returncode == 0 and answer[:1] == ["ABSENT"]:
        return Check("torch_npu", OFF, "not installed (only the NPU target needs it; the simulator does not)",
                     npu_fix)
    if returncode == 0 and answer[:1] == ["VERSION"] and len(answer) >= 4:
        _, version, available, count = answer[:4]
        if available == "True":
            return Check("torch_npu", OK, f"{version}, {count} NPU(s) visible")
        return Check("torch_npu", WARN, f"{version} imports, but no NPU is visible",
                     "check the driver (npu-smi info) and ASCEND_RT_VISIBLE_DEVICES")
    if returncode < 0:
        return Check("torch_npu", WARN, f"importing torch_npu killed the process ({_signal_name(-returncode)})",
                     npu_fix)
    last = (stderr.strip().splitlines() or ["(no output)"])[-1]
    return Check("torch_npu", WARN, f"installed but broken: {last}", npu_fix)


def _torch_npu_fix() -> str:
    try:
        import torch
        torch_version = torch.__version__.split("+")[0]
    except Exception:  # noqa: BLE001
        torch_version = "your torch version"
    return (f"on a machine with an Ascend NPU: install CANN, `source <CANN>/set_env.sh`, then "
            f"`pip install torch_npu` built for torch {torch_version}")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def check_cann() -> Check:
    home = cann_home()
    if home is None:
        return Check("CANN", OFF, "not found (ASCEND_HOME_PATH / ASCEND_TOOLKIT_HOME unset, "
                     f"{CANN_DEFAULT} absent); only the NPU target needs it",
                     "on an NPU machine: install the CANN toolkit and `source <CANN>/set_env.sh`")
    version = _cann_version(home)
    return Check("CANN", OK, f"{home}" + (f" (version {version})" if version else ""))


def cann_home() -> Path | None:
    """Where CANN is: the variables its set_env.sh exports, else the default install path.

    TODO(issue 5): move these variables into config.py (the one module that reads the environment)."""
    for name in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        value = os.environ.get(name, "").strip()
        if value and Path(value).is_dir():
            return Path(value)
    return CANN_DEFAULT if CANN_DEFAULT.is_dir() else None


def _cann_version(home: Path) -> str:
    for candidate in (home / "version.cfg", home / "compiler" / "version.info", home / "runtime" / "version.info"):
        try:
            for line in candidate.read_text().splitlines():
                if "version=" in line.lower():
                    return line.split("=", 1)[1].strip()
        except OSError:
            continue
    return ""


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


def check_model(timeout_s: float = MODEL_TIMEOUT_S) -> Check:
    """The model server: reachable, which model, a one-token round trip. Needed only for generator=llm."""
    required = config.generator() == "llm"
    missing = FAIL if required else WARN
    serve = f"`vllm serve MODEL`, then export {config.LLM_URL_ENV}=http://127.0.0.1:8000/v1"
    if not config.llm_url():
        status = FAIL if required else OFF
        return Check("model", status, "no model configured (the built-in generator works without one)", serve)
    try:
        from .model_client import ModelClient, ModelSettings
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
    return [check_python(), check_torch(), check_compiler(), check_python_headers(), check_cache_dir(),
            check_torch_npu(), check_cann(), check_model(model_timeout_s)]


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
    return any(c.name == "torch_npu" and c.status == OK for c in checks)


def exit_status(checks: list[Check]) -> int:
    """0 when everything the simulator path needs works (and the model, when generator=llm)."""
    return 1 if any(c.status == FAIL for c in checks) else 0


def main(model_timeout_s: float = MODEL_TIMEOUT_S) -> int:
    checks = run_checks(model_timeout_s)
    print(render(checks), flush=True)
    return exit_status(checks)
