"""The NPU build (targets/npu/build.py) without an NPU or CANN: exact bisheng command lines per SoC and CANN
version, the launcher's text, the launcher compiled and run with g++ against a stand-in
kernel_operator.h, and the build cache driven by a fake bisheng that records its command line.

How the launcher is checked with g++: only bisheng parses ``kernel<<<blocks, nullptr, stream>>>(...)``.
The launcher writes that call as ``ASCENDGEN_LAUNCH(ascendgen_kernel, blocks, stream)(args...)`` and
defines ASCENDGEN_LAUNCH as the triple-chevron form unless it is already defined; the stand-in
kernel_operator.h below defines it first as a plain call. Everything else in the launcher (the ABI
exports, the GET_TILING_DATA it defines, the argument list and its count against the kernel's
parameters) is compiled by g++ exactly as bisheng sees it, and then run on the host.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from torch_ascendgen import config
from torch_ascendgen._paths import csrc_dir
from torch_ascendgen.errors import AscendGenError, KernelBuildError, NpuUnavailable
from torch_ascendgen.targets.npu import build as npu_build
from torch_ascendgen.targets.npu.build import (
    LAUNCH_NO_BLOCKS,
    LAUNCH_NULL_ARGS,
    LAUNCH_OK,
    LAUNCHER_FILE,
    LAUNCHER_TEMPLATE,
    LOG_FILE,
    NPU_ABI_VERSION,
    bisheng_command,
    build_mode,
    compile_npu_kernel,
    launcher_source,
    npu_build_flags,
)
from torch_ascendgen.targets.npu.cann import CannToolkit
from torch_ascendgen.targets.sim.build import KERNEL_FILE, LIBRARY_FILE, MANIFEST_FILE
from torch_ascendgen.targets.soc import SOCS, get_soc

# --npu-arch and kernel type per SoC for CANN 8.5+, as the docs name them (see targets/npu/build.py).
ASC_EXPECTED = {
    "Ascend910B1": ("dav-2201", "KERNEL_TYPE_AIV_ONLY"),
    "Ascend910B2": ("dav-2201", "KERNEL_TYPE_AIV_ONLY"),
    "Ascend910B3": ("dav-2201", "KERNEL_TYPE_AIV_ONLY"),
    "Ascend910B4": ("dav-2201", "KERNEL_TYPE_AIV_ONLY"),
    "Ascend910_9391": ("dav-2201", "KERNEL_TYPE_AIV_ONLY"),
    "Ascend910_9362": ("dav-2201", "KERNEL_TYPE_AIV_ONLY"),
    "Ascend310P3": ("dav-2002", "KERNEL_TYPE_AICORE"),
}
CCE_CORE_EXPECTED = {name: ("AICore" if name == "Ascend310P3" else "VecCore") for name in ASC_EXPECTED}


# ---- fake toolkits ----------------------------------------------------------------------------------

def _executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def make_toolkit(root: Path, version: str, legacy_headers: bool = False, bisheng: Path | None = None) -> CannToolkit:
    """A CANN tree with what the build reads: include/, lib64/, bin/bisheng (and tikcfw for 8.0-8.3)."""
    home = root / f"cann-{version}"
    (home / "include").mkdir(parents=True, exist_ok=True)
    (home / "lib64").mkdir(exist_ok=True)
    if legacy_headers:
        for sub in ("", "/impl", "/interface"):
            (home / f"compiler/tikcpp/tikcfw{sub}").mkdir(parents=True, exist_ok=True)
    if bisheng is None:
        bisheng = _executable(home / "bin" / "bisheng", "#!/bin/sh\nexit 0\n")
    return CannToolkit(home=home, version=version, bisheng=bisheng, include_dirs=(home / "include",),
                       library_dirs=(home / "lib64",), source="test")


# A bisheng stand-in: answers the identity probes, records every build's argv/cwd/files, then writes
# the library, or fails like a compiler when the kernel source says BROKEN (SLOW: hangs; NOLIB: exits
# 0 without a library).
FAKE_BISHENG = """#!{python}
import json, os, sys, time
args = sys.argv[1:]
if args == ["--version"]:
    print("fake bisheng 1.0 (torch_ascendgen tests)")
    sys.exit(0)
if args == ["-dumpmachine"]:
    print("x86_64-unknown-linux-gnu")
    sys.exit(0)
with open({record!r}, "a") as f:
    f.write(json.dumps({{"argv": args, "cwd": os.getcwd(), "files": sorted(os.listdir("."))}}) + "\\n")
kernel = open("kernel.cpp").read()
if "SLOW" in kernel:
    time.sleep(30)
if "BROKEN" in kernel:
    sys.stderr.write("In file included from launcher.cpp:25:\\n"
                     "./kernel.cpp:3:5: error: use of undeclared identifier 'BROKEN'\\n"
                     "    BROKEN;\\n    ^\\n1 error generated.\\n")
    sys.exit(1)
if "NOLIB" in kernel:
    sys.exit(0)
print("fake bisheng: compiled", file=sys.stderr)
with open(args[args.index("-o") + 1], "w") as f:
    f.write("not really a library")
"""


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A CANN 8.5 toolkit whose bisheng is FAKE_BISHENG, and a fresh cache directory."""
    monkeypatch.setenv(config.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(config.SANDBOX_ENV, "off")  # the fake (a Python script) records outside the build sandbox
    record = tmp_path / "bisheng_calls.jsonl"
    bisheng = _executable(tmp_path / "fake" / "bisheng", FAKE_BISHENG.format(python=sys.executable, record=str(record)))
    toolkit = make_toolkit(tmp_path, "8.5.0", bisheng=bisheng)

    def calls() -> list[dict]:
        return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []

    return toolkit, calls


KERNEL = '#include "kernel_operator.h"\nstruct TilingData { uint32_t n; };\n// a contract kernel\n'


# ---- command lines ----------------------------------------------------------------------------------

@pytest.mark.parametrize("soc", sorted(SOCS))
@pytest.mark.parametrize("version", ["8.5.0", "9.0.0"])
def test_asc_command_for_each_soc(tmp_path, soc, version):
    toolkit = make_toolkit(tmp_path, version)
    arch, kernel_type = ASC_EXPECTED[soc]
    home = toolkit.home
    assert bisheng_command(Path("launcher.cpp"), Path("kernel.so"), get_soc(soc), toolkit) == [
        str(home / "bin/bisheng"), "-x", "asc", f"--npu-arch={arch}", "-shared", "-fPIC", "-O2", "-std=c++17",
        "-DASCENDC_DUMP=0", f"-DASCENDGEN_KERNEL_TYPE={kernel_type}", f"-I{home / 'include'}",
        "launcher.cpp", "-o", "kernel.so", f"-L{home / 'lib64'}", f"-Wl,-rpath,{home / 'lib64'}",
    ]


@pytest.mark.parametrize("soc", sorted(SOCS))
@pytest.mark.parametrize("version", ["8.0.RC3", "8.0.0", "8.2.RC1", "8.3.RC1"])
def test_cce_command_for_each_soc_on_older_toolkits(tmp_path, soc, version):
    toolkit = make_toolkit(tmp_path, version, legacy_headers=True)
    home = toolkit.home
    tikcfw = home / "compiler/tikcpp/tikcfw"
    assert bisheng_command(Path("launcher.cpp"), Path("kernel.so"), soc, toolkit) == [
        str(home / "bin/bisheng"), "-xcce", f"--cce-soc-version={soc}", f"--cce-soc-core-type={CCE_CORE_EXPECTED[soc]}",
        "-shared", "-fPIC", "-O2", "-std=c++17", "-DASCENDC_DUMP=0",
        f"-I{tikcfw}", f"-I{tikcfw / 'impl'}", f"-I{tikcfw / 'interface'}", f"-I{home / 'include'}",
        "launcher.cpp", "-o", "kernel.so", f"-L{home / 'lib64'}", f"-Wl,-rpath,{home / 'lib64'}",
        "-lascendcl", "-lruntime",
    ]


def test_every_soc_has_an_expected_command():
    assert set(ASC_EXPECTED) == set(SOCS), "a new SoC needs its --npu-arch and kernel type checked in the docs"


@pytest.mark.parametrize("version, mode", [("8.5.0", "asc"), ("8.5.0-beta.1", "asc"), ("9.0.0", "asc"),
                                           ("10.0.RC1", "asc"), ("8.0.RC1", "cce"), ("8.1.RC1", "cce"),
                                           ("8.3.RC1", "cce")])
def test_build_mode_follows_the_toolkit_version(tmp_path, version, mode):
    assert build_mode(make_toolkit(tmp_path, version)) == mode


@pytest.mark.parametrize("version", ["7.0.0", "7.6.0.1.220", "6.3.RC2"])
def test_toolkits_older_than_8_0_are_refused(tmp_path, version):
    with pytest.raises(NpuUnavailable, match=rf"CANN {version} .* too old.*8\.0 or newer"):
        npu_build_flags("Ascend910B2", make_toolkit(tmp_path, version))


def test_an_unknown_version_is_refused_with_the_fix(tmp_path):
    with pytest.raises(NpuUnavailable, match=r"no readable version \('unknown'\).*ASCEND_HOME_PATH"):
        npu_build_flags("Ascend910B2", make_toolkit(tmp_path, "unknown"))


def test_a_missing_bisheng_is_npu_unavailable(tmp_path):
    toolkit = make_toolkit(tmp_path, "8.5.0")
    for bisheng in (None, tmp_path / "nowhere" / "bisheng"):
        missing = CannToolkit(toolkit.home, toolkit.version, bisheng, toolkit.include_dirs, toolkit.library_dirs,
                              "test")
        with pytest.raises(NpuUnavailable, match="no bisheng compiler.*TORCH_ASCENDGEN_BISHENG"):
            bisheng_command(Path("launcher.cpp"), Path("kernel.so"), "Ascend910B2", missing)


def test_flags_take_a_soc_name_or_profile_and_refuse_the_old_910(tmp_path):
    toolkit = make_toolkit(tmp_path, "8.5.0")
    assert npu_build_flags("Ascend910B4", toolkit) == npu_build_flags(get_soc("Ascend910B4"), toolkit)
    with pytest.raises(AscendGenError, match="first-generation Ascend 910"):
        npu_build_flags("Ascend910B", toolkit)


# ---- the launcher's text ----------------------------------------------------------------------------

def test_launcher_text_for_three_gm_args():
    text = launcher_source("kernel.cpp", 3)
    assert '#include "kernel.cpp"' in text
    assert text.index('#include "kernel_operator.h"') < text.index("#define GET_TILING_DATA") < text.index(
        '#include "kernel.cpp"')
    assert ("    ASCENDGEN_LAUNCH(ascendgen_kernel, blocks, stream)(\n"
            "        static_cast<uint8_t*>(gm_args[0]),\n"
            "        static_cast<uint8_t*>(gm_args[1]),\n"
            "        static_cast<uint8_t*>(gm_args[2]));\n"
            f"    return {LAUNCH_OK};\n") in text
    assert "#define ASCENDGEN_LAUNCH(kernel, blocks, stream) kernel<<<blocks, nullptr, stream>>>\n" in text
    for export in ("int32_t ascendgen_npu_abi_version()", "uint32_t ascendgen_tiling_size()",
                   "uint32_t ascendgen_gm_arg_count()",
                   "int32_t ascendgen_launch(uint32_t blocks, void* stream, void** gm_args)"):
        assert f'ASCENDGEN_EXPORT {export}' in text
    assert f"return {NPU_ABI_VERSION};" in text and "return static_cast<uint32_t>(sizeof(TilingData));" in text
    assert "ascendgen_gm_arg_count()\n{\n    return 3;\n}" in text


def test_launcher_text_for_five_gm_args():
    text = launcher_source("kernel.cpp", 5)
    launch = text[text.index("ASCENDGEN_LAUNCH(ascendgen_kernel"):text.index(f"return {LAUNCH_OK};")]
    assert launch.count("static_cast<uint8_t*>(gm_args[") == 5
    assert "gm_args[4]));" in launch and "gm_args[5]" not in launch
    assert "ascendgen_gm_arg_count()\n{\n    return 5;\n}" in text


@pytest.mark.parametrize("gm_args", [3, 4, 9])
def test_launcher_is_the_shipped_template_with_every_placeholder_filled(gm_args):
    """The launcher comes from csrc/templates (shipped in the wheel), and each @name@ in it is filled."""
    template = (csrc_dir() / "templates" / LAUNCHER_TEMPLATE).read_text()
    text = launcher_source("my_kernel.cpp", gm_args)
    assert "@" not in text
    assert text.count("\n") == template.count("\n") + gm_args - 1  # the one @arguments@ line became gm_args lines
    head = template[:template.index("@kernel_file@")]
    assert text.startswith(head + 'my_kernel.cpp"\n')
    assert f"ascendgen_gm_arg_count()\n{{\n    return {gm_args};\n}}" in text
    assert f"// gm_args: {gm_args} device addresses" in text
    launch = text[text.index("ASCENDGEN_LAUNCH(ascendgen_kernel, blocks, stream)("):text.index(f"return {LAUNCH_OK};")]
    assert [line.strip() for line in launch.splitlines()[1:] if line.strip()] == (
        [f"static_cast<uint8_t*>(gm_args[{i}])," for i in range(gm_args - 1)]
        + [f"static_cast<uint8_t*>(gm_args[{gm_args - 1}]));"])
    assert f"return {LAUNCH_NULL_ARGS};" in text and f"return {LAUNCH_NO_BLOCKS};" in text


def test_a_template_placeholder_the_launcher_does_not_fill_is_refused(tmp_path, monkeypatch):
    shipped = csrc_dir()
    fake = tmp_path / "csrc"
    (fake / "templates").mkdir(parents=True)
    template = (shipped / "templates" / LAUNCHER_TEMPLATE).read_text()
    (fake / "templates" / LAUNCHER_TEMPLATE).write_text(template.replace("@abi_version@", "@abi_versoin@"))
    monkeypatch.setattr(npu_build, "csrc_dir", lambda: fake)
    with pytest.raises(RuntimeError, match=r"\['abi_versoin'.*must name the same ones"):
        launcher_source("kernel.cpp", 3)


def test_launcher_refuses_impossible_arguments():
    with pytest.raises(ValueError, match="at least 3"):
        launcher_source("kernel.cpp", 2)
    with pytest.raises(ValueError, match="#include"):
        launcher_source('kernel.cpp"\n#include "/etc/passwd', 3)


# ---- the launcher compiled and run with g++ ---------------------------------------------------------

STAND_IN_HEADER = """\
// Stand-in for CANN's kernel_operator.h in a g++ check of the NPU launcher: the names the launcher and
// a contract kernel use, host-compilable. GM is host memory here.
#pragma once
#include <cstdint>
#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR __gm__ uint8_t*
enum KernelMetaType { KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_AICORE = 6 };
#ifdef STUB_PRECOMPILE  // what CANN's precompile pass expands it to (kernel_utils_macros.h)
#define KERNEL_TASK_TYPE_DEFAULT(value) auto __enable_feature_for_compile_default = value
#else
extern "C" { int ascendgen_stub_kernel_type = -1; }
#define KERNEL_TASK_TYPE_DEFAULT(value) ascendgen_stub_kernel_type = (value)
#endif
// bisheng's kernel<<<blocks, nullptr, stream>>>(args) as a plain host call.
#define ASCENDGEN_LAUNCH(kernel, blocks, stream) (void)(blocks), (void)(stream), kernel
"""


def stand_in_kernel(inputs: int, params: int | None = None, own_type: bool = False) -> str:
    """A contract kernel: out0[i] = sum of the inputs' [i] + bias for i < t.n, workspace[0] = t.flag.
    ``params`` (default: inputs + 3) sets how many GM parameters the entry declares; ``own_type`` makes
    it declare a kernel type itself, as a model might."""
    names = [f"in{i}" for i in range(inputs)] + ["out0", "workspace", "tiling"]
    if params is not None:
        names = [f"extra{i}" for i in range(params - len(names))] + names
    total = " + ".join([f"reinterpret_cast<const float*>(in{i})[i]" for i in range(inputs)] + ["t.bias"])
    return f"""\
#include "kernel_operator.h"

struct TilingData {{
    uint32_t n;
    float bias;
    uint8_t flag;  // an odd-sized member: the struct is not a whole number of words
}};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{{
    (void)coreNum;
    (void)ranks;
    tiling->n = static_cast<uint32_t>(dims[tensorCount - 1]);
    tiling->bias = 0.5f;
    tiling->flag = 7;
    *workspaceBytes = 16;
    return 1;
}}

extern "C" __global__ __aicore__ void ascendgen_kernel({", ".join(f"GM_ADDR {n}" for n in names)})
{{
    GET_TILING_DATA(t, tiling);
    {"KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);" if own_type else ""}
    float* out = reinterpret_cast<float*>(out0);
    for (uint32_t i = 0; i < t.n; ++i) {{
        out[i] = {total};
    }}
    workspace[0] = t.flag;
}}
"""


def _gxx(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    cxx = config.cxx()
    if shutil.which(cxx) is None:
        pytest.skip(f"no C++ compiler {cxx!r}")
    return subprocess.run([cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-I", "include", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=120)


def _write_sources(tmp_path: Path, kernel: str, gm_args: int) -> None:
    (tmp_path / "include").mkdir(exist_ok=True)
    (tmp_path / "include" / "kernel_operator.h").write_text(STAND_IN_HEADER)
    (tmp_path / KERNEL_FILE).write_text(kernel)
    (tmp_path / LAUNCHER_FILE).write_text(launcher_source(KERNEL_FILE, gm_args))


@pytest.mark.parametrize("inputs", [0, 2])
@pytest.mark.parametrize("kernel_type", [None, "KERNEL_TYPE_AIV_ONLY"])
def test_launcher_compiles_with_gxx_against_a_stand_in_header(tmp_path, inputs, kernel_type):
    _write_sources(tmp_path, stand_in_kernel(inputs), inputs + 3)
    define = [f"-DASCENDGEN_KERNEL_TYPE={kernel_type}"] if kernel_type else []
    done = _gxx([*define, "-fsyntax-only", LAUNCHER_FILE], tmp_path)
    assert done.returncode == 0, done.stderr


def test_a_kernel_declaring_its_own_type_still_compiles(tmp_path):
    """CANN's precompile expansion of KERNEL_TASK_TYPE_DEFAULT declares a variable: the launcher's own
    declaration is in a block, so a kernel that declares one too is no redefinition."""
    _write_sources(tmp_path, stand_in_kernel(1, own_type=True), 4)
    done = _gxx(["-DSTUB_PRECOMPILE", "-DASCENDGEN_KERNEL_TYPE=KERNEL_TYPE_AIV_ONLY", "-Wno-unused-variable",
                 "-fsyntax-only", LAUNCHER_FILE], tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("launched, declared", [(4, 5), (6, 5)])
def test_gxx_catches_a_launch_whose_argument_count_differs_from_the_kernel(tmp_path, launched, declared):
    _write_sources(tmp_path, stand_in_kernel(2, params=declared), launched)
    done = _gxx(["-fsyntax-only", LAUNCHER_FILE], tmp_path)
    assert done.returncode != 0
    assert "too few arguments" in done.stderr or "too many arguments" in done.stderr


def test_launcher_built_with_gxx_exports_the_abi_and_passes_arguments_in_order(tmp_path):
    """The launcher as a host library: tiling through the kernel's exported host function, then a launch
    whose GM arguments reach the kernel in order, the tiling bytes copied by the launcher's
    GET_TILING_DATA, and the kernel type declared in the kernel's first statement."""
    _write_sources(tmp_path, stand_in_kernel(2), 5)
    done = _gxx(["-DASCENDGEN_KERNEL_TYPE=KERNEL_TYPE_AICORE", "-shared", "-fPIC", LAUNCHER_FILE, "-o", "kernel.so"],
                tmp_path)
    assert done.returncode == 0, done.stderr
    lib = ctypes.CDLL(str(tmp_path / "kernel.so"))
    lib.ascendgen_npu_abi_version.restype = ctypes.c_int32
    lib.ascendgen_tiling_size.restype = ctypes.c_uint32
    lib.ascendgen_gm_arg_count.restype = ctypes.c_uint32
    lib.ascendgen_launch.restype = ctypes.c_int32
    lib.ascendgen_launch.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    assert lib.ascendgen_npu_abi_version() == NPU_ABI_VERSION
    assert lib.ascendgen_tiling_size() == 12  # uint32 + float + uint8, padded to 4
    assert lib.ascendgen_gm_arg_count() == 5

    tiling = (ctypes.c_uint8 * 12)()
    workspace_bytes = ctypes.c_uint64(0)
    ranks = (ctypes.c_int32 * 3)(1, 1, 1)
    dims = (ctypes.c_int64 * 3)(4, 4, 4)
    blocks = lib.ascendgen_tiling(ctypes.c_uint32(48), ctypes.c_int32(3), ranks, dims, tiling,
                                  ctypes.byref(workspace_bytes))
    assert (blocks, workspace_bytes.value) == (1, 16)

    a = (ctypes.c_float * 4)(1, 2, 3, 4)
    b = (ctypes.c_float * 4)(10, 20, 30, 40)
    out = (ctypes.c_float * 4)()
    workspace = (ctypes.c_uint8 * 16)()
    args = (ctypes.c_void_p * 5)(*(ctypes.addressof(x) for x in (a, b, out, workspace, tiling)))
    assert lib.ascendgen_launch(blocks, None, args) == LAUNCH_OK
    assert list(out) == [11.5, 22.5, 33.5, 44.5]
    assert workspace[0] == 7
    assert ctypes.c_int.in_dll(lib, "ascendgen_stub_kernel_type").value == 6  # KERNEL_TYPE_AICORE

    out[0] = -1.0
    assert lib.ascendgen_launch(0, None, args) == LAUNCH_NO_BLOCKS
    assert lib.ascendgen_launch(1, None, None) == LAUNCH_NULL_ARGS
    assert out[0] == -1.0  # neither launched


# ---- the build: cache directory, logs, failures (fake bisheng) --------------------------------------

def test_compile_runs_the_exact_command_in_a_staging_dir_and_publishes_it(fake):
    toolkit, calls = fake
    build = compile_npu_kernel(KERNEL, 4, "Ascend910B2", toolkit)

    assert not build.cached and build.seconds > 0
    assert build.directory == config.cache_dir() / "npu_builds" / build.key
    assert build.library == build.directory / LIBRARY_FILE and build.log == build.directory / LOG_FILE
    [call] = calls()
    assert call["argv"] == bisheng_command(Path(LAUNCHER_FILE), Path(LIBRARY_FILE), "Ascend910B2", toolkit)[1:]
    assert Path(call["cwd"]).name == f".{build.key}.{os.getpid()}.tmp"  # built under a temporary name
    assert call["files"] == [KERNEL_FILE, LAUNCHER_FILE]

    assert sorted(p.name for p in build.directory.iterdir()) == sorted(
        [KERNEL_FILE, LAUNCHER_FILE, LIBRARY_FILE, LOG_FILE, MANIFEST_FILE])
    assert (build.directory / KERNEL_FILE).read_text() == KERNEL
    assert (build.directory / LAUNCHER_FILE).read_text() == launcher_source(KERNEL_FILE, 4)
    log = build.log.read_text()
    assert log.startswith(f"$ {toolkit.bisheng} -x asc --npu-arch=dav-2201 ") and "fake bisheng: compiled" in log
    manifest = json.loads((build.directory / MANIFEST_FILE).read_text())
    assert manifest["soc"] == "Ascend910B2" and manifest["cann"] == "8.5.0" and manifest["gm_args"] == 4
    assert manifest["mode"] == "asc" and manifest["command"][0] == str(toolkit.bisheng)
    assert "fake bisheng 1.0" in manifest["bisheng"]
    assert [p.name for p in build.directory.parent.iterdir() if p.name.startswith(".")] == []  # no staging left


def test_a_second_call_is_a_cache_hit(fake):
    toolkit, calls = fake
    first = compile_npu_kernel(KERNEL, 4, "Ascend910B2", toolkit)
    second = compile_npu_kernel(KERNEL, 4, "Ascend910B2", toolkit)
    assert second.cached and second.seconds == 0.0
    assert (second.key, second.directory, second.library, second.log) == (first.key, first.directory, first.library,
                                                                           first.log)
    assert len(calls()) == 1


def test_the_key_changes_with_source_gm_args_soc_and_toolkit_version(fake, tmp_path):
    toolkit, _ = fake
    older = make_toolkit(tmp_path / "old", "8.3.RC1", legacy_headers=True, bisheng=toolkit.bisheng)
    keys = {
        compile_npu_kernel(KERNEL, 4, "Ascend910B2", toolkit).key,
        compile_npu_kernel(KERNEL + "// v2\n", 4, "Ascend910B2", toolkit).key,
        compile_npu_kernel(KERNEL, 5, "Ascend910B2", toolkit).key,
        compile_npu_kernel(KERNEL, 4, "Ascend910B3", toolkit).key,  # same arch, other SoC: still its own build
        compile_npu_kernel(KERNEL, 4, "Ascend310P3", toolkit).key,
        compile_npu_kernel(KERNEL, 4, "Ascend910B2", older).key,
    }
    assert len(keys) == 6


def test_concurrent_builds_of_one_kernel_run_the_compiler_once(fake):
    toolkit, calls = fake
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(compile_npu_kernel(KERNEL, 3, "Ascend910B1", toolkit)))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4 and len({r.directory for r in results}) == 1
    assert len(calls()) == 1 and sum(not r.cached for r in results) == 1


def test_a_compiler_error_raises_with_the_trimmed_log_and_keeps_the_log(fake):
    toolkit, calls = fake
    with pytest.raises(KernelBuildError) as caught:
        compile_npu_kernel(KERNEL + "BROKEN\n", 4, "Ascend910B2", toolkit)
    error = caught.value
    failed = config.cache_dir() / "npu_builds" / "failed"
    [kept] = list(failed.iterdir())
    log_path = kept / LOG_FILE
    assert str(log_path) in str(error) and "exited with status 1" in str(error)
    assert error.log.startswith("./kernel.cpp:3:5: error: use of undeclared identifier 'BROKEN'")
    assert "In file included from" not in error.log
    assert error.command.startswith(str(toolkit.bisheng)) and "--npu-arch=dav-2201" in error.command
    assert "error: use of undeclared identifier" in log_path.read_text()
    assert (kept / KERNEL_FILE).read_text().endswith("BROKEN\n")
    assert not (config.cache_dir() / "npu_builds" / kept.name).exists()  # nothing published under the key

    with pytest.raises(KernelBuildError):  # a failure is not cached: the next call compiles again
        compile_npu_kernel(KERNEL + "BROKEN\n", 4, "Ascend910B2", toolkit)
    assert len(calls()) == 2 and [p.name for p in failed.iterdir()] == [kept.name]


def test_a_compiler_that_writes_no_library_is_a_build_error(fake):
    toolkit, _ = fake
    with pytest.raises(KernelBuildError, match=f"wrote no {LIBRARY_FILE}.*Full log: .*{LOG_FILE}"):
        compile_npu_kernel(KERNEL + "// NOLIB\n", 4, "Ascend910B2", toolkit)


def test_a_hanging_compiler_is_stopped_at_the_build_time_limit(fake, monkeypatch):
    toolkit, _ = fake
    monkeypatch.setenv(config.BUILD_TIMEOUT_ENV, "0.5")
    with pytest.raises(KernelBuildError, match=f"longer than .* s .*{config.BUILD_TIMEOUT_ENV}") as caught:
        compile_npu_kernel(KERNEL + "// SLOW\n", 4, "Ascend910B2", toolkit)
    assert Path(str(caught.value).split("Full log: ")[1].splitlines()[0]).is_file()


def test_no_bisheng_or_an_old_toolkit_fails_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.setenv(config.CACHE_DIR_ENV, str(tmp_path / "cache"))
    toolkit = make_toolkit(tmp_path, "8.5.0")
    no_compiler = CannToolkit(toolkit.home, "8.5.0", None, toolkit.include_dirs, toolkit.library_dirs, "test")
    with pytest.raises(NpuUnavailable):
        compile_npu_kernel(KERNEL, 4, "Ascend910B2", no_compiler)
    with pytest.raises(NpuUnavailable):
        compile_npu_kernel(KERNEL, 4, "Ascend910B2", make_toolkit(tmp_path, "7.0.0"))
    assert not (tmp_path / "cache").exists()
