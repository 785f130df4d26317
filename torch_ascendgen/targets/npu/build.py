"""NPU build: a candidate's kernel source -> a shared library CANN's bisheng compiled, once per content.

The NPU twin of build.py's simulator builds, with the same guarantees: the build directory
(``<cache>/npu_builds/<sha256>``) is named by everything that can change the library (the source,
the GM argument count, the SoC, the toolkit's version, the compiler's identity and the whole command
line); it is built under a temporary name and renamed into place under a file lock, so concurrent
processes build a kernel once and never see half a build; ``build.json`` is written last and marks
it complete. ``build.log`` (the command, then the compiler's output) is kept with every build; a
failed build is kept under ``npu_builds/failed/<sha256>`` and its log named in the KernelBuildError.

bisheng runs in the build sandbox (toolchain.run_untrusted): it reads the toolkit, the system's
toolchain and its staging directory, and writes only there; the KernelBuildError holds only the
diagnostics about ``kernel.cpp`` (and message lines of the launcher and the toolkit's headers).

bisheng compiles one translation unit: the launcher (csrc/templates/npu_launcher.cpp), which includes
the candidate's source (host tiling + kernel) and exports the C ABI the NPU runtime dlsyms:

- ``int32_t ascendgen_npu_abi_version(void)``: NPU_ABI_VERSION;
- ``uint32_t ascendgen_tiling_size(void)``: sizeof(TilingData);
- ``uint32_t ascendgen_gm_arg_count(void)``: how many GM arguments the launch passes;
- ``ascendgen_tiling(...)``: the contract's host tiling function, defined by the kernel source;
- ``int32_t ascendgen_launch(uint32_t blocks, void* stream, void** gm_args)``: launches
  ``ascendgen_kernel<<<blocks, nullptr, stream>>>`` with gm_args[0..n) (inputs, outputs, workspace,
  tiling: device addresses); 0 when launched, LAUNCH_NULL_ARGS or LAUNCH_NO_BLOCKS when not.

Two command-line forms, chosen by the toolkit's version (each flag's source is named where it is set):
CANN 8.5 and newer compile host and device code in one pass with ``-x asc --npu-arch=dav-<n>``;
CANN 8.0 to 8.3 with the older heterogeneous form ``-xcce --cce-soc-version=<SoC>
--cce-soc-core-type=<core>``. Older toolkits are refused with NpuUnavailable.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock

from torch_ascendgen import config
from torch_ascendgen._paths import csrc_dir
from torch_ascendgen.errors import KernelBuildError, NpuUnavailable
from torch_ascendgen.records import ENTRY, FILE_BANNER
from torch_ascendgen.targets.soc import ARCH_310P, ARCH_A2, NPU_ARCH_FLAG, SocProfile, get_soc
from torch_ascendgen.targets.toolchain import (
    KERNEL_FILE,
    LIBRARY_FILE,
    MANIFEST_FILE,
    candidate_diagnostics,
    compiler_identity,
    publish,
    run_untrusted,
    staged,
)

if TYPE_CHECKING:  # cann.py is imported lazily by its users; only its dataclass is named here
    from torch_ascendgen.targets.npu.cann import CannToolkit

LAUNCHER_FILE = "launcher.cpp"
LOG_FILE = "build.log"
NPU_ABI_VERSION = 1
LAUNCH_OK, LAUNCH_NULL_ARGS, LAUNCH_NO_BLOCKS = 0, 1, 2

# ---- the command line -------------------------------------------------------------------------------

# CANN 8.5 brought bisheng's one-pass heterogeneous mode: "通过文件后缀名.asc或编译选项-x asc
# 使能异构编译" (asc-devkit v8.5.0 README.md, news of 2025/11). Before it (CANN 8.0-8.3) the BiSheng user guide's
# "Heterogeneous Compilation" form (-xcce) does the same job.
ASC_MODE_SINCE = (8, 5)
CCE_MODE_SINCE = (8, 0)

# Which cores a launch of `blocks` starts (asc-devkit v8.5.0 docs/api/context/设置Kernel类型.md):
# KERNEL_TYPE_AIV_ONLY starts `blocks` vector cores (Atlas A2/A3; v8.5.0's examples/00_introduction/
# 01_add/basic_api_tque_add/add.asc sets it so), KERNEL_TYPE_AICORE `blocks` AI cores (the 310P runs
# vector code on its AI cores). The heterogeneous build cannot infer the type for Atlas inference
# products ("均不支持在开发者未设置Kernel类型时进行自动推导", asc-devkit docs/guide/.../算子编译/约束说明.md),
# so the asc-mode command names it and the launcher declares it (see launcher_source).
KERNEL_TYPE = {ARCH_A2: "KERNEL_TYPE_AIV_ONLY", ARCH_310P: "KERNEL_TYPE_AICORE"}

# --cce-soc-core-type for the -xcce form: "VecCore: compiled Vector code ... AICore: compiled Vector
# and Cube code" (CANN 8.0 BiSheng Compiler user guide, "Heterogeneous Compilation",
# hiascend.com .../canncommercial/800/opdevg/BishengCompiler/atlas_bisheng_10_0003.html).
CCE_CORE_TYPE = {ARCH_A2: "VecCore", ARCH_310P: "AICore"}

# The -xcce form finds the AscendC headers only through -I: the tikcfw directories the Ascend mstt
# sample/pytorch_adapter passes (quoted in juniorkowal/ascendc_torch_extension
# src/gather_custom/compile.sh); those that exist in the toolkit are passed.
CCE_KERNEL_INCLUDES = ("compiler/tikcpp/tikcfw", "compiler/tikcpp/tikcfw/impl",
                       "compiler/tikcpp/tikcfw/interface")

# Libraries for the -xcce form. The -x asc form links ACL's runtime by default ("毕昇编译器默认链接的库文件":
# libascendc_runtime.a, libruntime.so, ..., libascendcl.so; asc-devkit docs/guide/.../算子编译/
# AI-Core算子编译基本用法.md "内置链接库"). The CANN 8.0 guide lists no default libraries for -xcce and the
# mstt sample's command names none (its library is loaded into a process that has them already); ours is
# dlopened by the runtime, so the command names the two the kernel-launch flow links (asc-devkit v8.5.0
# tools/ascc/cmake/ASC_CMake/FindASC.cmake, "consistent with default lib in kernellaunch"). Not yet run
# on a CANN 8.0-8.3 machine.
CCE_LIBRARIES = ("ascendcl", "runtime")

# Flags both forms share: -shared -fPIC -O2 -std=c++17 (op-plugin examples/cpp_extension/setup.py and
# the AI-Core算子编译基本用法.md option table for -x asc; the BiSheng guide's option table for -xcce).
# -DASCENDC_DUMP=0: printf/assert dump off, so a launch carries no dump buffer ("ASCENDC_DUMP 用于控制
# Dump开关，默认开关打开", AI-Core算子编译基本用法.md "内置编译宏开关"); generated kernels do not print.
COMMON_FLAGS = ("-shared", "-fPIC", "-O2", "-std=c++17", "-DASCENDC_DUMP=0")


def build_mode(toolkit: CannToolkit) -> str:
    """"asc" (CANN 8.5+: ``-x asc --npu-arch``) or "cce" (CANN 8.0-8.3: ``-xcce --cce-soc-version``)."""
    match = re.match(r"(\d+)\.(\d+)", toolkit.version)
    if match is None:
        raise NpuUnavailable(
            f"the CANN toolkit at {toolkit.home} has no readable version ({toolkit.version!r}), so the bisheng "
            f"command line cannot be chosen (CANN 8.5+ and 8.0-8.3 take different options). Fix: point "
            f"{config.ASCEND_HOME_PATH_ENV} at a complete toolkit install (its "
            f"<arch>-linux/ascend_toolkit_install.info or version.cfg names the version).")
    version = (int(match.group(1)), int(match.group(2)))
    if version >= ASC_MODE_SINCE:
        return "asc"
    if version >= CCE_MODE_SINCE:
        return "cce"
    raise NpuUnavailable(
        f"CANN {toolkit.version} at {toolkit.home} is too old: torch_ascendgen builds kernels with CANN 8.0 or "
        f"newer (8.5 or newer preferred: its bisheng compiles host and kernel code in one pass). Fix: install a "
        f"newer CANN toolkit and source its set_env.sh.")


def npu_build_flags(soc: SocProfile | str, toolkit: CannToolkit) -> tuple[str, ...]:
    """Every bisheng option that shapes the library, without paths (part of the cache key)."""
    profile = soc if isinstance(soc, SocProfile) else get_soc(soc)
    if build_mode(toolkit) == "asc":
        return ("-x", "asc", f"--npu-arch={NPU_ARCH_FLAG[profile.npu_arch]}", *COMMON_FLAGS,
                f"-DASCENDGEN_KERNEL_TYPE={KERNEL_TYPE[profile.npu_arch]}")
    return ("-xcce", f"--cce-soc-version={profile.name}", f"--cce-soc-core-type={CCE_CORE_TYPE[profile.npu_arch]}",
            *COMMON_FLAGS)


def bisheng_command(source: Path, library: Path, soc: SocProfile | str, toolkit: CannToolkit) -> list[str]:
    """The exact command that compiles ``source`` (host + device code) into the shared ``library``.

    Order as a C compiler wants it: options, -I, the source, -o, then -L/rpath and -l after the input
    that needs them. The toolkit's library directories also go in as rpath, so the library loads even
    where set_env.sh did not put them on LD_LIBRARY_PATH."""
    bisheng = require_bisheng(toolkit)
    mode = build_mode(toolkit)
    includes = [*_kernel_api_includes(toolkit, mode), *toolkit.include_dirs]
    link = [arg for directory in toolkit.library_dirs for arg in (f"-L{directory}", f"-Wl,-rpath,{directory}")]
    libraries = [f"-l{name}" for name in CCE_LIBRARIES] if mode == "cce" else []
    return [str(bisheng), *npu_build_flags(soc, toolkit), *(f"-I{d}" for d in dict.fromkeys(includes)),
            str(source), "-o", str(library), *link, *libraries]


def require_bisheng(toolkit: CannToolkit) -> Path:
    if toolkit.bisheng is None or not (toolkit.bisheng.is_file() and os.access(toolkit.bisheng, os.X_OK)):
        raise NpuUnavailable(
            f"no bisheng compiler for CANN {toolkit.version} at {toolkit.home} (looked at: {toolkit.bisheng}). "
            f"Fix: install the full CANN toolkit package and source its set_env.sh, or point "
            f"{config.BISHENG_ENV} at bisheng.")
    return toolkit.bisheng


def _kernel_api_includes(toolkit: CannToolkit, mode: str) -> list[Path]:
    """The -xcce form's AscendC header directories that exist in this toolkit (-x asc finds its own)."""
    if mode != "cce":
        return []
    return [toolkit.home / relative for relative in CCE_KERNEL_INCLUDES if (toolkit.home / relative).is_dir()]


# ---- the launcher translation unit ------------------------------------------------------------------

# csrc/templates/npu_launcher.cpp: the C++ kept to the minimum bisheng must see in one unit with the
# kernel; its @placeholders@ are filled by launcher_source. Why each part is there:
# - GET_TILING_DATA: CANN writes this macro only for operator projects (its op compiler generates it
#   with the tiling struct: asc-devkit v8.5.0 tools/build/asc_op_compile_base/.../get_op_tiling.py);
#   a kernel launched with <<<>>> has none, so the contract's macro is defined here: the kernel type
#   (above) and a copy of the TilingData bytes from GM, in the kernel's first statement. The kernel
#   type sits in its own block: CANN's precompile pass expands KERNEL_TASK_TYPE_DEFAULT(v) to
#   "auto __enable_feature_for_compile_default = v" (v8.5.0 impl/basic_api/utils/kernel_utils_macros.h),
#   so a kernel that declares a type itself must not meet a second one in the same scope; bisheng's
#   ascc plugin finds the variable in any block of the kernel and keeps the first (v8.5.0
#   tools/ascc/asc_plugin/src/asc_ast_device_consumer.cpp, FindKernelType).
# - ASCENDGEN_LAUNCH: bisheng's kernel call "kernel<<<blockDim, l2ctrl, stream>>>(args)" (asc-devkit
#   v8.5.0 examples/00_introduction/01_add/basic_api_tque_add/add.asc), arguments passed as uint8_t*
#   device addresses as that sample does. Only bisheng parses <<<>>>: a g++ syntax check of this file
#   (tests/sim/test_npu_build.py) defines ASCENDGEN_LAUNCH first, in a stand-in kernel_operator.h, as a
#   plain call; bisheng builds never define it, so they get the template's triple-chevron form.
LAUNCHER_TEMPLATE = "npu_launcher.cpp"
_PLACEHOLDER = re.compile(r"@(\w+)@")


def launcher_source(kernel_file: str, gm_args: int) -> str:
    """The translation unit bisheng compiles: ``kernel_file`` included, the ABI exported, and a launch
    with exactly ``gm_args`` GM arguments (inputs + outputs + workspace + tiling, so at least 3)."""
    if gm_args < 3:
        raise ValueError(f"a contract kernel takes at least 3 GM arguments (an output, workspace, tiling), "
                         f"not {gm_args}")
    if re.search(r'["\\\n<>]', kernel_file):
        raise ValueError(f"kernel file name {kernel_file!r} cannot go in an #include")
    arguments = ",\n".join(f"        static_cast<uint8_t*>(gm_args[{i}])" for i in range(gm_args))
    return _fill_launcher({"kernel_file": kernel_file, "gm_args": gm_args, "arguments": arguments, "entry": ENTRY,
                           "abi_version": NPU_ABI_VERSION, "ok": LAUNCH_OK, "null_args": LAUNCH_NULL_ARGS,
                           "no_blocks": LAUNCH_NO_BLOCKS})


def _fill_launcher(values: dict[str, object]) -> str:
    """The launcher template with every ``@name@`` replaced by ``values[name]`` (all of them, and only those)."""
    path = csrc_dir() / "templates" / LAUNCHER_TEMPLATE
    template = path.read_text()
    named = set(_PLACEHOLDER.findall(template))
    if named != set(values):
        raise RuntimeError(f"{path} has the placeholders {sorted(named)} but launcher_source fills {sorted(values)}: "
                           f"the template and torch_ascendgen/targets/npu/build.py must name the same ones")
    return _PLACEHOLDER.sub(lambda match: str(values[match.group(1)]), template)


# ---- the build ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class NpuBuild:
    """A kernel library bisheng built for one SoC."""

    key: str
    directory: Path
    library: Path
    log: Path      # build.log: the command line and the compiler's output
    seconds: float  # compile time; 0.0 when it came from the cache
    cached: bool


def npu_build_key(source: str, gm_args: int, soc: SocProfile, toolkit: CannToolkit) -> str:
    """sha256 over everything that can change the library: the kernel source, the launcher (the GM
    argument count and this module's template), the SoC, the toolkit's version, the compiler, and the
    command line (flags, include and library directories)."""
    command = bisheng_command(Path(LAUNCHER_FILE), Path(LIBRARY_FILE), soc, toolkit)
    parts = {
        "source": source,
        "launcher": launcher_source(KERNEL_FILE, gm_args),
        "soc": soc.name,
        "cann": toolkit.version,
        "bisheng": compiler_identity(command[0]),  # path, version line, target; cached per path
        "command": command,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def npu_builds_root() -> Path:
    return config.cache_dir() / "npu_builds"


def compile_npu_kernel(source: str, gm_args: int, soc: str, toolkit: CannToolkit) -> NpuBuild:
    """Compile ``source`` for ``soc`` with bisheng; reuse an identical earlier build.

    Raises NpuUnavailable (no bisheng, an unsupported CANN version), AscendGenError (an unknown SoC)
    or KernelBuildError (the compiler refused: its trimmed output, and the kept log's path)."""
    if source.startswith(FILE_BANNER):
        raise ValueError("an operator project's file bundle is built by targets/npu/op_project.py "
                         "(compile_npu_op_project), not as one contract kernel")
    profile = get_soc(soc)
    key = npu_build_key(source, gm_args, profile, toolkit)
    directory = npu_builds_root() / key
    if _complete(directory):
        return _load(directory, key, 0.0, cached=True)
    directory.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(directory) + ".lock"):
        if _complete(directory):
            return _load(directory, key, 0.0, cached=True)
        seconds = _build_into(directory, source, gm_args, profile, toolkit)
    return _load(directory, key, seconds, cached=False)


def _complete(directory: Path) -> bool:
    return (directory / MANIFEST_FILE).is_file() and (directory / LIBRARY_FILE).is_file()


def _load(directory: Path, key: str, seconds: float, cached: bool) -> NpuBuild:
    return NpuBuild(key, directory, directory / LIBRARY_FILE, directory / LOG_FILE, seconds, cached)


def _build_into(directory: Path, source: str, gm_args: int, soc: SocProfile, toolkit: CannToolkit) -> float:
    """Stage the sources, run bisheng, then publish the directory (or keep it as a failed build)."""
    with staged(directory) as staging:
        (staging / KERNEL_FILE).write_text(source)
        (staging / LAUNCHER_FILE).write_text(launcher_source(KERNEL_FILE, gm_args))
        command = bisheng_command(Path(LAUNCHER_FILE), Path(LIBRARY_FILE), soc, toolkit)
        started = time.perf_counter()
        failure, output = _run_compiler(command, staging, toolkit)
        seconds = time.perf_counter() - started
        (staging / LOG_FILE).write_text(f"$ {shlex.join(command)}\n{output}")
        if failure is None and not (staging / LIBRARY_FILE).is_file():
            failure = f"bisheng exited 0 but wrote no {LIBRARY_FILE}"
        if failure is not None:
            _fail(staging, directory.name, soc, failure, output, command, toolkit)
        manifest = {"soc": soc.name, "gm_args": gm_args, "cann": toolkit.version, "cann_home": str(toolkit.home),
                    "bisheng": compiler_identity(command[0]), "mode": build_mode(toolkit), "command": command,
                    "abi_version": NPU_ABI_VERSION, "seconds": seconds}
        publish(staging, directory, manifest)
        return seconds


def _run_compiler(command: list[str], cwd: Path, toolkit: CannToolkit) -> tuple[str | None, str]:
    """Run bisheng in the build sandbox with the build time limit; return (why it failed or None, its output)."""
    code, output = run_untrusted(command, cwd, readable=_toolkit_headers(toolkit),
                                 executable=(toolkit.home, _compiler_root(Path(command[0]))))
    if code is None:
        return (f"bisheng took longer than {config.build_timeout_s():g} s (raise {config.BUILD_TIMEOUT_ENV} if the "
                f"machine is slow)"), output
    return (f"bisheng exited with status {code}" if code != 0 else None), output


def _toolkit_headers(toolkit: CannToolkit) -> tuple[Path, ...]:
    return (*toolkit.include_dirs, *toolkit.library_dirs)


def _compiler_root(bisheng: Path) -> Path:
    """The installation bisheng belongs to (``.../ccec_compiler`` above its ``bin``): its libraries and headers."""
    resolved = bisheng.resolve()
    return resolved.parent.parent if resolved.parent.name == "bin" else resolved.parent


def _fail(staging: Path, key: str, soc: SocProfile, failure: str, output: str, command: list[str],
          toolkit: CannToolkit) -> None:
    """Keep the failed build (sources and log) under failed/<key> and raise with its log's path."""
    trimmed = candidate_diagnostics(output, KERNEL_FILE, staging, (toolkit.home, *_toolkit_headers(toolkit)))
    kept = npu_builds_root() / "failed" / key
    shutil.rmtree(kept, ignore_errors=True)
    kept.parent.mkdir(parents=True, exist_ok=True)
    os.replace(staging, kept)
    raise KernelBuildError(
        f"building the kernel for {soc.name} with bisheng failed: {failure}. Full log: {kept / LOG_FILE}\n{trimmed}",
        log=trimmed, command=shlex.join(command))
