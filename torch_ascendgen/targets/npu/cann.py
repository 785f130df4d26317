"""Finding what the NPU target needs: the CANN toolkit (its home, version, bisheng, headers and
libraries), torch_npu, and the SoC of the visible NPU.

Nothing here runs at ``import torch_ascendgen``: torch_npu is imported only by `torch_npu_module`,
and every way that import can fail becomes an `NpuUnavailable` naming the cause and the fix.

Where CANN lives (each layout read in public documentation):

- CANN 8.3 and older: ``<root>/ascend-toolkit/<version>`` with a ``latest`` symlink next to it and
  ``<root>/ascend-toolkit/set_env.sh``, which exports ``ASCEND_TOOLKIT_HOME=<root>/ascend-toolkit/latest``
  and ``ASCEND_HOME_PATH=${ASCEND_TOOLKIT_HOME}`` (the set_env.sh lines quoted in many public setup
  guides; CANN 8.0 install guide, "File Paths").
- CANN 8.5.0-beta.1: ``<root>/latest``, environment from ``<root>/latest/bin/setenv.bash``
  (asc-devkit v8.5.0 docs/quick_start.md).
- CANN 8.5.0 and newer: ``<root>/cann-<version>`` with ``<root>/cann`` and ``<root>/cann/set_env.sh``
  (CANN 8.5.0 install guide, "File Paths": ``/usr/local/Ascend/cann/<arch>-linux/ascend_toolkit_install.info``;
  asc-devkit v9.0.0 docs/quick_start.md: ``source /usr/local/Ascend/cann/set_env.sh``; public 8.5.0 install
  notes: the installer creates ``/usr/local/Ascend/cann-8.5.0``). CANN container images keep
  ``/usr/local/Ascend/ascend-toolkit/set_env.sh`` as well.
- ``<root>`` is ``/usr/local/Ascend`` for root and ``$HOME/Ascend`` otherwise (same guides).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import platform
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from torch_ascendgen import config
from torch_ascendgen.errors import AscendGenError, NpuUnavailable
from torch_ascendgen.targets.soc import NPU_ARCH_FLAG, SOCS, get_soc

UNKNOWN_VERSION = "unknown"

# Directories under an install root, newest layout first (see the module docstring).
# A "*" is a versioned directory: the newest version is tried first.
INSTALL_LAYOUTS: tuple[str, ...] = ("cann", "cann-*", "latest", "ascend-toolkit/latest", "ascend-toolkit/*")

# bisheng relative to the toolkit's home, in the order tried:
BISHENG_CANDIDATES: tuple[str, ...] = (
    "compiler/ccec_compiler/bin/bisheng",      # on set_env.sh's PATH (CANN 8.x)
    "{arch}-linux/ccec_compiler/bin/bisheng",  # asc-devkit v8.5.0 tools/ascc/cmake/.../CMakeDetermineASCCompiler.cmake
    "tools/ccec_compiler/bin/bisheng",         # on set_env.sh's PATH; torch_npu _inductor/codecache.py
    "bin/bisheng",                             # ${ASCEND_TOOLKIT_HOME}/bin, first on set_env.sh's PATH
)
INCLUDE_CANDIDATES: tuple[str, ...] = ("include", "{arch}-linux/include")
LIBRARY_CANDIDATES: tuple[str, ...] = ("lib64", "{arch}-linux/lib64", "runtime/lib64")

SET_ENV_HINT = ("`source /usr/local/Ascend/cann/set_env.sh` (CANN 8.5 and newer) or "
                "`source /usr/local/Ascend/ascend-toolkit/set_env.sh` (CANN 8.3 and older; "
                "$HOME/Ascend/... for a non-root install)")


@dataclass(frozen=True)
class CannToolkit:
    """One CANN toolkit: where it is, which version, and what the NPU build needs from it."""

    home: Path                       # as found (a ``latest`` or ``cann`` symlink is kept, not resolved)
    version: str                     # e.g. "8.0.RC3", "8.5.0"; UNKNOWN_VERSION when nothing says
    bisheng: Path | None             # None: no compiler found (require_cann refuses)
    include_dirs: tuple[Path, ...]
    library_dirs: tuple[Path, ...]
    source: str                      # how it was found: "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME" or the path tried


@dataclass(frozen=True)
class CannSearch:
    """What `search_cann` found, and why candidates were passed over (for messages and the doctor)."""

    toolkit: CannToolkit | None
    notes: tuple[str, ...]      # candidates passed over: a stale variable, a broken symlink
    tried: tuple[Path, ...]     # the install-root candidates, in search order
    bisheng_note: str = ""      # why toolkit.bisheng is None


# ---- finding the toolkit --------------------------------------------------------------------------

def find_cann() -> CannToolkit | None:
    """The CANN toolkit this process would use, or None."""
    return search_cann().toolkit


def search_cann() -> CannSearch:
    """The variables set_env.sh exports first (the user chose that toolkit), then the install roots."""
    notes: list[str] = []
    for name, value in ((config.ASCEND_HOME_PATH_ENV, config.ascend_home_path()),
                        (config.ASCEND_TOOLKIT_HOME_ENV, config.ascend_toolkit_home())):
        if value is None:
            continue
        if value.is_dir():
            return _found(value, name, notes, ())
        notes.append(f"{name}={value} is not a directory (a stale set_env.sh, or CANN was removed)")
    tried = tuple(_install_candidates())
    for candidate in tried:
        if candidate.is_dir() and _looks_like_cann(candidate):
            return _found(candidate, str(candidate), notes, tried)
        if candidate.is_symlink() and not candidate.exists():
            notes.append(f"{candidate} is a broken symlink (to {os.readlink(candidate)})")
    return CannSearch(None, tuple(notes), tried)


def _found(home: Path, source: str, notes: list[str], tried: tuple[Path, ...]) -> CannSearch:
    bisheng, bisheng_note = _find_bisheng(home)
    toolkit = CannToolkit(home=home, version=cann_version(home), bisheng=bisheng,
                          include_dirs=_existing(home, INCLUDE_CANDIDATES),
                          library_dirs=_existing(home, LIBRARY_CANDIDATES), source=source)
    return CannSearch(toolkit, tuple(notes), tried, bisheng_note)


def _install_candidates() -> list[Path]:
    """Every layout under every install root, in search order, each real directory once."""
    seen: set[Path] = set()
    ordered: list[Path] = []
    for root in config.ascend_install_roots():
        for layout in INSTALL_LAYOUTS:
            for path in _expand(root, layout):
                real = path.resolve()
                if real not in seen or not path.exists():
                    seen.add(real)
                    ordered.append(path)
    return ordered


def _expand(root: Path, layout: str) -> list[Path]:
    if "*" not in layout:
        return [root / layout]
    matches = [p for p in root.glob(layout) if p.name != "latest" and p.is_dir()]
    return sorted(matches, key=lambda p: version_key(_version_from_name(p.name) or p.name), reverse=True)


def _looks_like_cann(path: Path) -> bool:
    """An install root also holds drivers, nnal, ...: a toolkit has one of these."""
    markers = ("set_env.sh", "version.cfg", "bin/setenv.bash", "compiler")
    return any((path / m).exists() for m in markers) or any((path / f"{a}-linux").is_dir() for a in _arches())


def _host_arch() -> str:
    """This machine's ``<arch>`` in CANN's ``<arch>-linux`` directories (x86_64 or aarch64)."""
    machine = platform.machine().lower()
    return {"arm64": "aarch64", "amd64": "x86_64"}.get(machine, machine)


def _arches() -> tuple[str, ...]:
    """``<arch>-linux`` directory names, this machine's first (a version file may sit under either)."""
    return tuple(dict.fromkeys((_host_arch(), "x86_64", "aarch64")))


def _existing(home: Path, patterns: tuple[str, ...]) -> tuple[Path, ...]:
    """The pattern's directories that exist, each real directory once. Only this machine's ``<arch>``:
    another architecture's libraries would not link."""
    found: dict[Path, Path] = {}
    for pattern in patterns:
        path = home / pattern.format(arch=_host_arch())
        if path.is_dir():
            found.setdefault(path.resolve(), path)  # <home>/include is often a symlink into <arch>-linux
    return tuple(found.values())


def _find_bisheng(home: Path) -> tuple[Path | None, str]:
    """The override, else the toolkit's own compiler, else one on PATH. Returns (path, note)."""
    override = config.bisheng_override()
    if override is not None:
        path = Path(shutil.which(str(override)) or override) if "/" not in str(override) else override
        if _is_executable(path):
            return path, ""
        return None, f"{config.BISHENG_ENV}={override} is not an executable file"
    candidates = [pattern.format(arch=_host_arch()) for pattern in BISHENG_CANDIDATES]
    for relative in candidates:
        if _is_executable(home / relative):
            return home / relative, ""
    on_path = shutil.which("bisheng")
    if on_path:
        return Path(on_path), ""
    return None, f"no bisheng compiler in {home} (looked for {', '.join(candidates)}) nor on PATH"


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


# ---- the version ----------------------------------------------------------------------------------

def cann_version(home: Path) -> str:
    """The toolkit's version from the files CANN ships, most specific first:

    1. ``<home>/<arch>-linux/ascend_toolkit_install.info``, line ``version=8.0.RC3`` (CANN install
       guides 8.0 and 8.5, "File Paths": "the software package version, CPU architecture, and
       installation path"; the lines ``package_name=Ascend-cann-toolkit / version=... / arch=... /
       path=...`` as users paste them into vllm-ascend issues).
    2. ``<home>/version.cfg``, line ``toolkit_running_version=[7.6.0.1.220:8.0.0]``: the part after
       the colon is the CANN version (written by CANN's latest_manager: asc-devkit v8.5.0
       scripts/package/common/sh/version_cfg.inc; a public copy of the file for CANN 8.0.0).
    3. ``<home>/compiler/version.info`` or ``<home>/runtime/version.info``, line ``Version=...``
       (MindSpore's custom_compiler gen_version_info.sh reads ``compiler/version.info`` so; asc-devkit
       v8.5.0 installs its version.info with a ``compiler/version.info`` link). Before 8.5 this can be
       the component's own number rather than the CANN release, hence last.
    4. The versioned directory's name (``8.0.RC3``, ``cann-8.5.0``) once symlinks are resolved.
    """
    for reader in (_from_install_info, _from_version_cfg, _from_version_info):
        version = reader(home)
        if version:
            return version
    return _version_from_name(home.resolve().name) or UNKNOWN_VERSION


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(errors="replace").splitlines()
    except OSError:
        return []


def _value(lines: list[str], key: str) -> str:
    for line in lines:
        name, sep, value = line.partition("=")
        if sep and name.strip().lower() == key:
            return value.strip().strip('"')
    return ""


def _from_install_info(home: Path) -> str:
    for arch in _arches():
        version = _value(_read_lines(home / f"{arch}-linux" / "ascend_toolkit_install.info"), "version")
        if version:
            return version
    return ""


def _from_version_cfg(home: Path) -> str:
    lines = _read_lines(home / "version.cfg")
    for key in ("toolkit_running_version", "compiler_running_version", "runtime_running_version"):
        match = re.search(r"\[([^\]:]*):([^\]]+)\]", _value(lines, key))
        if match:
            return match.group(2).strip()
    return ""


def _from_version_info(home: Path) -> str:
    for relative in ("compiler/version.info", "runtime/version.info"):
        version = _value(_read_lines(home / relative), "version")
        if version:
            return version
    return ""


def _version_from_name(name: str) -> str:
    match = re.fullmatch(r"(?:cann-)?(\d+\.\d+\.[0-9A-Za-z.\-]+)", name)
    return match.group(1) if match else ""


def version_key(version: str) -> tuple:
    """Orders CANN versions: 8.0.RC3 < 8.0.0 < 8.5.0-beta.1 < 8.5.0 < 9.0.0."""
    key = []
    for part in re.split(r"[.\-]", version.lower()):
        rc = re.fullmatch(r"rc(\d+)", part)
        if part.isdigit():
            key.append((3, int(part), ""))
        elif rc:
            key.append((1, int(rc.group(1)), ""))
        else:
            key.append((0, 0, part))  # alpha, beta, T6: before RCs and releases
    return tuple(key) + ((2, 0, ""),)  # the end of a version sorts after a pre-release suffix


# ---- requiring it ---------------------------------------------------------------------------------

def require_cann() -> CannToolkit:
    """The toolkit the NPU build uses; `NpuUnavailable` naming what is missing and the fix."""
    search = search_cann()
    toolkit = search.toolkit
    notes = "".join(f"\n  - {note}" for note in search.notes)
    if toolkit is None:
        looked = ", ".join(str(p) for p in search.tried) or "(no install roots)"
        raise NpuUnavailable(
            f"the CANN toolkit was not found: {config.ASCEND_HOME_PATH_ENV} and {config.ASCEND_TOOLKIT_HOME_ENV} "
            f"are unset and none of these is a toolkit: {looked}.{notes}\n"
            f"Fix: install the CANN toolkit (Ascend-cann-toolkit_<version>_linux-<arch>.run --install) and "
            f"{SET_ENV_HINT} in the shell that starts Python, or name its install root in {config.ASCEND_ROOTS_ENV}.")
    where = f"CANN {toolkit.version} at {toolkit.home} (found by {toolkit.source})"
    if toolkit.bisheng is None:
        raise NpuUnavailable(
            f"{where} has no bisheng compiler: {search.bisheng_note}.{notes}\n"
            f"Fix: install the full toolkit package (it contains the compiler) and {set_env_hint(toolkit)}, "
            f"or point {config.BISHENG_ENV} at bisheng.")
    if not toolkit.include_dirs:
        raise NpuUnavailable(
            f"{where} has no include directory ({', '.join(INCLUDE_CANDIDATES)}): the runtime needs its "
            f"acl/acl.h.{notes}\nFix: reinstall the toolkit package, or point {config.ASCEND_HOME_PATH_ENV} "
            f"at a complete toolkit ({set_env_hint(toolkit)}).")
    return toolkit


def set_env_hint(toolkit: CannToolkit | None) -> str:
    """The set_env command for this toolkit: set_env.sh sits in the home (8.5+) or next to ``latest``."""
    if toolkit is not None:
        for script in (toolkit.home / "set_env.sh", toolkit.home.parent / "set_env.sh",
                       toolkit.home / "bin" / "setenv.bash"):
            if script.is_file():
                return f"`source {script}`"
    return SET_ENV_HINT


# ---- the SoC --------------------------------------------------------------------------------------

def npu_arch(soc_name: str) -> str:
    """bisheng's ``--npu-arch`` value for a SoC: dav-2201 for 910B*/910_93*, dav-2002 for 310P
    (asc-devkit v9.0.0 examples/README.md, "npu-arch编译选项说明"; 310P's dav-m200, soc.ARCH_310P, is
    its name for the legacy --cce-aicore-arch option). One table, soc.NPU_ARCH_FLAG, so the doctor prints
    what the build passes. get_soc refuses the first-generation Ascend 910 with its own explanation."""
    return NPU_ARCH_FLAG[get_soc(soc_name).npu_arch]


def normalise_soc_name(raw: str) -> str:
    """A name as aclrtGetSocName reports it (torch_npu.npu.get_device_name: "Ascend910B2",
    "Ascend910_9391", "Ascend310P3") mapped onto soc.SOCS; `NpuUnavailable` for SoCs we do not target.

    Only spelling is normalised (case, surrounding blanks, torch_npu's messages print "_" as " "):
    variants such as "Ascend910B2C", "Ascend910B4-1" or "Ascend910_9392" have no profile here, and
    guessing one would give kernels the wrong core count or UB size."""
    name = raw.strip().strip("\x00").replace(" ", "_")
    by_lower = {known.lower(): known for known in SOCS}
    name = by_lower.get(name.lower(), name)
    try:
        get_soc(name)
    except AscendGenError as exc:
        raise NpuUnavailable(f"the NPU reports SoC {raw.strip()!r}: {exc}") from None
    return name


def current_soc(device_index: int = 0) -> str:
    """The SoC of NPU ``device_index``, as a soc.SOCS name."""
    npu = getattr(torch_npu_module(), "npu", None)
    if npu is None:
        raise NpuUnavailable("torch_npu imported but has no torch_npu.npu module: a broken or foreign install.\n"
                             + torch_npu_broken_fix("AttributeError: torch_npu.npu"))
    try:
        count = int(npu.device_count())
    except Exception as exc:  # noqa: BLE001 - ACL errors surface as RuntimeError or worse
        raise NpuUnavailable(f"torch_npu cannot count NPUs: {describe(exc)}.\n{_DEVICE_FIX}") from exc
    if count <= 0:
        raise NpuUnavailable(f"torch_npu is installed but sees no NPU.\n{_DEVICE_FIX}")
    if not 0 <= device_index < count:
        raise NpuUnavailable(f"NPU {device_index} does not exist: {count} NPU(s) are visible (0..{count - 1}).")
    try:
        # get_device_properties initialises the device and is per device; get_device_name ignores its index and
        # can read an empty name before the first NPU tensor exists (torch_npu/npu/utils.py)
        properties = getattr(npu, "get_device_properties", None)
        raw = str(properties(device_index).name if properties else npu.get_device_name(device_index))
    except Exception as exc:  # noqa: BLE001
        raise NpuUnavailable(f"torch_npu cannot read NPU {device_index}'s SoC name: {describe(exc)}.\n"
                             f"{_DEVICE_FIX}") from exc
    if not raw.strip():
        raise NpuUnavailable(f"torch_npu returned an empty SoC name for NPU {device_index} "
                             f"(aclrtGetSocName failed).\n{_DEVICE_FIX}")
    return normalise_soc_name(raw)


_DEVICE_FIX = ("Fix: check the driver and devices with `npu-smi info`, that ASCEND_RT_VISIBLE_DEVICES (if set) "
               "names them, and that this user may open /dev/davinci* (e.g. is in the HwHiAiUser group).")


# ---- torch_npu --------------------------------------------------------------------------------------

_import_failure: str | None = None  # a failed import is not retried: a second try fails differently


def torch_npu_module() -> ModuleType:
    """torch_npu, imported on first use; `NpuUnavailable` for every way that can fail (absent, broken,
    CANN's libraries missing, a version mismatch with torch). ImportError/OSError never escape."""
    global _import_failure
    if _import_failure is not None:
        raise NpuUnavailable(_import_failure)
    try:
        return importlib.import_module("torch_npu")
    except Exception as exc:  # noqa: BLE001 - any failure of a third-party import is the finding
        _import_failure = import_failure_message(exc)
        raise NpuUnavailable(_import_failure) from exc


def torch_npu_version() -> str:
    """torch_npu's version (part of the NPU cache key)."""
    module = torch_npu_module()
    version = getattr(module, "__version__", "")
    if not version:
        try:
            version = importlib.metadata.version("torch_npu")
        except importlib.metadata.PackageNotFoundError:
            version = UNKNOWN_VERSION
    return str(version)


def import_failure_message(exc: BaseException) -> str:
    """What went wrong importing torch_npu, and the fix."""
    if isinstance(exc, ModuleNotFoundError) and exc.name == "torch_npu":
        return ("torch_npu is not installed, so the NPU target is unavailable (the simulator target does not "
                f"need it).\n{torch_npu_install_fix()}")
    described = describe(_root_cause(exc))
    if _missing_library(described):
        return (f"torch_npu is installed but cannot load CANN's libraries: {described}.\n"
                f"{torch_npu_broken_fix(described)}")
    return f"importing torch_npu failed: {described}.\n{torch_npu_broken_fix(described)}"


def torch_npu_broken_fix(described: str) -> str:
    """The fix for a torch_npu that is installed but does not import (``described``: "Type: message")."""
    if _missing_library(described):
        fix = (f"Fix: install the CANN toolkit and run {SET_ENV_HINT} before starting Python (it puts CANN's "
               f"lib64 on LD_LIBRARY_PATH); on a machine without an NPU, `pip uninstall torch_npu`.")
    else:
        fix = (f"Fix: install the torch_npu built for torch {_torch_version()} (`pip install torch_npu==<that "
               f"version>`), run {SET_ENV_HINT}, and check the driver with `npu-smi info`; on a machine without "
               f"an NPU, `pip uninstall torch_npu`.")
    return fix + _autoload_note()


def _missing_library(described: str) -> bool:
    """An OSError, or an ImportError naming a shared library ("libhccl.so: cannot open shared object file")."""
    if described.startswith(("OSError", "FileNotFoundError")):
        return True
    return re.search(r"lib[\w.+-]*\.so\b", described) is not None


def torch_npu_install_fix() -> str:
    return (f"Fix: on a machine with an Ascend NPU, install CANN, run {SET_ENV_HINT}, then "
            f"`pip install torch_npu` built for torch {_torch_version()}.")


def torch_npu_autoloads() -> bool:
    """Whether torch_npu registers with torch's device-backend autoload (the ``torch.backends`` entry
    point torch/__init__.py loads on ``import torch`` unless TORCH_DEVICE_BACKEND_AUTOLOAD=0;
    torch_npu's setup.py declares ``torch_npu = torch_npu:_autoload``)."""
    try:
        return any(ep.value.split(":")[0].split(".")[0] == "torch_npu"
                   for ep in importlib.metadata.entry_points(group="torch.backends"))
    except Exception:  # noqa: BLE001 - broken metadata must not hide the real finding
        return False


def _autoload_note() -> str:
    if not torch_npu_autoloads():
        return ""
    return ("\nNote: torch_npu registers itself with torch's device-backend autoload, so a plain `import torch` "
            "fails the same way in processes that do not export TORCH_DEVICE_BACKEND_AUTOLOAD=0; export it "
            "(or uninstall torch_npu) until this is fixed.")


def _root_cause(exc: BaseException) -> BaseException:
    """torch wraps an autoloaded backend's failure in RuntimeError("Failed to load the backend
    extension ...") raised *from* the real error."""
    seen = {id(exc)}
    while exc.__cause__ is not None and id(exc.__cause__) not in seen:
        exc = exc.__cause__
        seen.add(id(exc))
    return exc


def describe(exc: BaseException) -> str:
    """The exception as ``Type: message`` on one line, for messages and the doctor."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:400]}" if text else type(exc).__name__


def _torch_version() -> str:
    torch = sys.modules.get("torch")
    return str(getattr(torch, "__version__", "your torch version")).split("+")[0]
