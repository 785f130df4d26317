"""Operator projects on the NPU path (targets/npu/op_project.py) without an NPU or CANN.

- The host driver (csrc/runtime/npu_op_host.cpp) is built with g++ together with a stand-in op_host against the stub
  CANN headers in tests/npu_stubs/include, loaded with ctypes and run: shapes, dtypes and attributes reach the
  TilingFunc through ContextBuilder, and block dim, tiling key, tiling bytes and workspace come back.
- The kernel-side TilingData expansion (csrc/templates/npu_op_kernel.h) is compared field by field with the
  simulator's host-side layout for every shipped project in tests/op_projects.
- The kernel launcher (csrc/templates/npu_op_launcher.cpp) is compiled by g++ against a stand-in kernel_operator.h
  (bisheng's <<<>>> as a plain call, as tests/sim/test_npu_build.py does) and run: GET_TILING_DATA, the keyed
  struct, TILING_KEY_IS and DTYPE_* work as a CANN op build gives them.
- The whole build with a fake bisheng and a fake host compiler that record their command lines, for both CANN modes.
Nothing here runs on an NPU.
"""

from __future__ import annotations

import ctypes
import json
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from torch_ascendgen import config
from torch_ascendgen._paths import csrc_dir
from torch_ascendgen.errors import KernelBuildError, OpProjectError
from torch_ascendgen.records import join_files
from torch_ascendgen.targets.npu import op_project
from torch_ascendgen.targets.npu.build import NPU_ABI_VERSION, bisheng_command
from torch_ascendgen.targets.npu.cann import CannToolkit
from torch_ascendgen.targets.npu.op_project import (
    HOST_DRIVER,
    HOST_LIBRARY,
    HOST_PRELUDE,
    KERNEL_HEADER,
    OP_MANIFEST,
    OpBundle,
    attr_text,
    compile_npu_op_project,
    host_command,
    host_tiling,
    host_unit,
    kernel_library,
    kernel_tiling_header,
    kernel_unit,
    tiling_keys,
)
from torch_ascendgen.targets.sim.op_host import AttrDecl, OpDescription, ParamDecl

_REAL_DESCRIBE = op_project.describe  # the fake fixture replaces it; one test puts it back
STUBS = Path(__file__).resolve().parents[1] / "npu_stubs" / "include"
OP_PROJECTS = Path(__file__).resolve().parents[1] / "op_projects"

TILING_H = """\
#ifndef PROBE_OP_TILING_H
#define PROBE_OP_TILING_H
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(ProbeTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, total);
  TILING_DATA_FIELD_DEF(float, scale);
  TILING_DATA_FIELD_DEF(int64_t, mode);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ProbeOp, ProbeTilingData)
BEGIN_TILING_DATA_DEF(ProbeKey3Data)
  TILING_DATA_FIELD_DEF(uint8_t, flag);
  TILING_DATA_FIELD_DEF(uint32_t, total);
  TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ProbeOp_3, ProbeKey3Data)
}
#endif
"""

# A stand-in op_host: its TilingFunc echoes what the driver handed it (element count, attributes) and picks the key
# from the element count's parity; mode 7 makes it fail.
OP_HOST = """\
#include "probe_op_tiling.h"
#include "register/op_def_registry.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ProbeTilingData t;
    t.set_total(uint32_t(context->GetInputShape(0)->GetStorageShape().GetShapeSize()));
    t.set_scale(*context->GetAttrs()->GetAttrPointer<float>(0));
    t.set_mode(*context->GetAttrs()->GetAttrPointer<int64_t>(1) + int64_t(context->StubInputDataType(0)) * 100 +
               int64_t(std::strlen(context->GetAttrs()->GetStr(2))) * 1000);
    context->SetBlockDim(t.total > 64 ? 8 : 2);
    context->SetTilingKey(t.total % 2 ? 3 : 1);
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    size_t* sizes = context->GetWorkspaceSizes(2);
    sizes[0] = 100;
    sizes[1] = 28;
    return t.mode % 100 == 7 ? ge::GRAPH_FAILED : ge::GRAPH_SUCCESS;
}
}
namespace ops {
class ProbeOp : public OpDef {
public:
    explicit ProbeOp(const char* name) : OpDef(name) { @set_tiling@ }
};
OP_ADD(ProbeOp);
}
"""

# A stand-in kernel: y = x * scale over `total` elements; workspace[0] = the key's branch, [1] = sizeof(DTYPE_X),
# [2] = ORIG_DTYPE_Y; for key 3 the keyed struct (a uint8_t flag first) is read instead.
OP_KERNEL = """\
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void probe_op(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const DTYPE_X* in = reinterpret_cast<const DTYPE_X*>(x);
    DTYPE_Y* out = reinterpret_cast<DTYPE_Y*>(y);
    for (uint32_t i = 0; i < t.total; ++i) {
        out[i] = in[i] * t.scale;
    }
    if (TILING_KEY_IS(1)) {
        workspace[0] = 1;
    } else if (TILING_KEY_IS(3)) {
        workspace[0] = 3;
    }
    workspace[1] = sizeof(DTYPE_X);
    workspace[2] = ORIG_DTYPE_Y;
}
"""

STAND_IN_KERNEL_OPERATOR = """\
// Stand-in for CANN's kernel_operator.h in a g++ check of the operator-project launcher (host memory as GM).
#pragma once
#include <cstdint>
#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR __gm__ uint8_t*
#define KERNEL_TASK_TYPE_DEFAULT(value) (void)(value)
#define ASCENDGEN_LAUNCH(kernel, blocks, stream) (void)(blocks), (void)(stream), kernel
"""

# The kernel side's high-level-API tiling structs: the simulator's, which its host side uses too.
STAND_IN_KERNEL_TILING = '#pragma once\n#include "sim/softmax_tiling.h"\nusing AscendC::tiling::SoftMaxTiling;\n'


def _description(attrs: tuple[AttrDecl, ...] = ()) -> OpDescription:
    """ProbeOp's OpDef as the simulator's describe reports it: x, y in float32 or float16."""
    def param(name):
        return ParamDecl(name, "required", (0, 1), (2, 2), False, False, False)
    return OpDescription("ProbeOp", (param("x"),), (param("y"),), attrs, (), True, False, False)


ATTRS = (AttrDecl("scale", "Float", True, False), AttrDecl("mode", "Int", True, False),
         AttrDecl("tag", "String", True, False))


def _bundle(kernel: str = OP_KERNEL, set_tiling: str = "this->AICore().SetTiling(optiling::TilingFunc);",
            attrs: dict | None = None) -> OpBundle:
    files = {"op_host/probe_op_tiling.h": TILING_H, "op_host/probe_op.cpp": OP_HOST.replace("@set_tiling@", set_tiling),
             "op_kernel/probe_op.cpp": kernel,
             "attrs.json": json.dumps({"scale": 1.5, "mode": 5, "tag": "ab"} if attrs is None else attrs)}
    return OpBundle.from_source(join_files(files))


def _gxx(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    cxx = config.cxx()
    if shutil.which(cxx) is None:
        pytest.fail(f"no C++ compiler {cxx!r}: these tests need g++")
    return subprocess.run([cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=180)


def _write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def _stub_toolkit(root: Path, version: str = "8.5.0", bisheng: Path | None = None,
                  libraries: tuple[str, ...] = ()) -> CannToolkit:
    home = root / f"cann-{version}"
    (home / "lib64").mkdir(parents=True, exist_ok=True)
    for name in libraries:
        (home / "lib64" / f"lib{name}.so").write_text("")
    return CannToolkit(home=home, version=version, bisheng=bisheng, include_dirs=(STUBS,),
                       library_dirs=(home / "lib64",), source="test")


# ---- the host driver, built with g++ against the stubs and run ------------------------------------------------

def _build_host(root: Path, bundle: OpBundle) -> Path:
    _write(root, {p: t for p, t in bundle.files.items() if p.startswith("op_host/")} | {
        "unit.cpp": host_unit(bundle), HOST_PRELUDE: (csrc_dir() / "runtime" / HOST_PRELUDE).read_text(),
        HOST_DRIVER: (csrc_dir() / "runtime" / HOST_DRIVER).read_text()})
    command = host_command(_stub_toolkit(root), Path("unit.cpp"), Path(HOST_LIBRARY))
    done = _gxx(command[2:], root)  # host_command's flags and paths, with -Wall -Wextra -Werror
    assert done.returncode == 0, done.stderr
    return root / HOST_LIBRARY


@pytest.fixture(scope="session")
def host_library(tmp_path_factory) -> str:
    return str(_build_host(tmp_path_factory.mktemp("op_host"), _bundle()))


def _attrs(scale=1.5, mode=5, tag="ab") -> str:
    return attr_text(_description(ATTRS), {"scale": scale, "mode": mode, "tag": tag})


def test_the_driver_runs_the_tiling_func_the_opdef_registers(host_library):
    plan = host_tiling(host_library, "ProbeOp", "Ascend910B4", [(1, (3, 5))], [(1, (3, 5))], _attrs(tag="abcd"))
    total, scale, mode = struct.unpack("<Ifq", plan.tiling)
    assert (total, scale, mode) == (15, 1.5, 5 + 1 * 100 + 4 * 1000)  # shape, attrs, dtype (DT_FLOAT16) arrive
    assert (plan.block_dim, plan.tiling_key, plan.workspace_bytes) == (2, 3, 128)


def test_the_driver_plans_each_call_afresh(host_library):
    plan = host_tiling(host_library, "ProbeOp", "Ascend910B4", [(0, (10, 10))], [(0, (10, 10))], _attrs(scale=-2))
    assert struct.unpack("<Ifq", plan.tiling)[:2] == (100, -2.0)
    assert (plan.block_dim, plan.tiling_key) == (8, 1)


def test_a_failing_tiling_func_names_the_op_and_its_status(host_library):
    with pytest.raises(RuntimeError, match=r"TilingFunc of ProbeOp returned status 4294967295"):
        host_tiling(host_library, "ProbeOp", "Ascend910B4", [(0, (4,))], [(0, (4,))], _attrs(mode=7))


def test_an_unknown_soc_is_the_platform_managers_error(host_library):
    with pytest.raises(RuntimeError, match=r"host code of ProbeOp failed: CANN has no platform description of Nope"):
        host_tiling(host_library, "ProbeOp", "Nope", [(0, (4,))], [(0, (4,))], _attrs())


def test_a_malformed_attribute_line_is_an_error_not_a_crash(host_library):
    with pytest.raises(RuntimeError, match=r"malformed attribute: scale Float 2 1"):
        host_tiling(host_library, "ProbeOp", "Ascend910B4", [(0, (4,))], [(0, (4,))], "scale Float 2 1\n")


def test_an_opdef_without_set_tiling_is_refused_with_the_fix(tmp_path):
    library = _build_host(tmp_path, _bundle(set_tiling="(void)optiling::TilingFunc;"))
    with pytest.raises(RuntimeError, match=r"registers no tiling function: call this->AICore\(\).SetTiling"):
        host_tiling(str(library), "ProbeOp", "Ascend910B4", [(0, (4,))], [(0, (4,))], _attrs())


def test_attribute_text_follows_the_declaration_order_and_kinds():
    description = _description((AttrDecl("dims", "ListInt", True, False), AttrDecl("s", "Float", True, False),
                                AttrDecl("on", "Bool", True, False), AttrDecl("tag", "String", True, False)))
    text = attr_text(description, {"tag": "", "on": True, "s": 0.5, "dims": [1, 2]})
    assert text == "dims ListInt 2 1 2\ns Float 1 0x1.0000000000000p-1\non Bool 1 1\ntag String 1 -\n"
    with pytest.raises(OpProjectError, match=r"needs its value: add \"on\": <value> to attrs.json"):
        attr_text(description, {"tag": "", "s": 0.5, "dims": []})
    with pytest.raises(OpProjectError, match=r"not a Bool"):
        attr_text(description, {"tag": "", "on": 1, "s": 0.5, "dims": []})
    with pytest.raises(OpProjectError, match=r"names extra, which ProbeOp does not declare"):
        attr_text(description, {"extra": 1})


def test_an_attribute_attrs_json_omits_takes_the_default_the_opdef_declares():
    description = _description((AttrDecl("log", "Bool", False, True), AttrDecl("eps", "Float", False, True),
                                AttrDecl("axes", "ListInt", False, True), AttrDecl("tag", "String", False, True)))
    op_host_source = ('this->Attr("log").AttrType(OPTIONAL).Bool(true);\n'
                      'this->Attr("eps")\n    .AttrType(OPTIONAL)\n    .Float(1e-5f);\n'
                      'this->Attr("axes").AttrType(OPTIONAL).ListInt({-1, 2});\nthis->Attr("tag").String("x");\n')
    assert attr_text(description, {"tag": "given"}, op_host_source) == (
        "log Bool 1 1\neps Float 1 0x1.4f8b588e368f1p-17\naxes ListInt 2 -1 2\ntag String 1 676976656e\n")
    with pytest.raises(OpProjectError, match=r"needs its value: add \"eps\""):
        attr_text(description, {"log": True, "axes": [], "tag": ""}, 'this->Attr("eps").Float(kEps);')


# ---- the kernel-side TilingData layout, against the simulator's host side -------------------------------------

_STRUCT = re.compile(r"BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)(.*?)END_TILING_DATA_DEF", re.S)
_FIELD = re.compile(r"TILING_DATA_FIELD_DEF(?:_ARR|_STRUCT)?\s*\(([^)]*)\)")


def _layout_program(header_include: str, header: str, prelude: str) -> str:
    """A program printing every struct's size and every field's offset and size, one line each."""
    lines = [prelude, f'#include "{header_include}"', "#include <cstddef>", "#include <cstdio>", "int main() {"]
    for name, body in _STRUCT.findall(header):
        lines.append(f'    std::printf("{name} %zu\\n", sizeof(optiling::{name}));')
        for field in (f.split(",")[-1].strip() for f in _FIELD.findall(body)):
            lines.append(f'    std::printf("{name}.{field} %zu %zu\\n", offsetof(optiling::{name}, {field}), '
                         f"sizeof(optiling::{name}::{field}));")
    return "\n".join([*lines, "    return 0;", "}"]) + "\n"


def _run_layout(root: Path, includes: list[str], files: dict[str, str]) -> list[str]:
    _write(root, files)
    done = _gxx(["-Wno-invalid-offsetof", *(f"-I{d}" for d in includes), "layout.cpp", "-o", "layout"], root)
    assert done.returncode == 0, done.stderr
    return subprocess.run([str(root / "layout")], capture_output=True, text=True, check=True).stdout.splitlines()


@pytest.mark.parametrize("project", sorted(p.name for p in OP_PROJECTS.iterdir()))
def test_the_kernel_side_struct_has_the_simulator_hosts_layout(tmp_path, project):
    header = (OP_PROJECTS / project / "op_host" / f"{project}_tiling.h").read_text()
    sim = csrc_dir() / "ascendc_sim"
    host = _run_layout(tmp_path / "host", [str(sim / "host"), str(sim)], {
        "tiling.h": header, "layout.cpp": _layout_program("tiling.h", header, "")})
    kernel = _run_layout(tmp_path / "kernel", [".", str(sim)], {
        "tiling.h": kernel_tiling_header(header), "kernel_operator.h": STAND_IN_KERNEL_OPERATOR,
        "kernel_tiling/kernel_tiling.h": STAND_IN_KERNEL_TILING,
        KERNEL_HEADER: (csrc_dir() / "templates" / KERNEL_HEADER).read_text(),
        "layout.cpp": _layout_program("tiling.h", header, '#include "kernel_operator.h"')})
    assert len(host) > 1 and kernel == host


def test_the_kernel_side_header_keeps_every_line_in_place():
    header = (OP_PROJECTS / "softmax_custom" / "op_host" / "softmax_custom_tiling.h").read_text()
    rewritten = kernel_tiling_header(header)
    assert len(rewritten.splitlines()) == len(header.splitlines())  # diagnostics keep the header's line numbers
    assert '#include "npu_op_kernel.h"' in rewritten and '#include "kernel_tiling/kernel_tiling.h"' in rewritten
    assert "tilingdata_base.h" not in rewritten and "tiling_api.h" not in rewritten


# ---- the kernel launcher, compiled with g++ and run ------------------------------------------------------------

@pytest.fixture(scope="session")
def kernel_libraries(tmp_path_factory) -> dict[int, ctypes.CDLL]:
    root = tmp_path_factory.mktemp("op_kernel")
    bundle = _bundle()
    units = {f"launcher_{k}.cpp": kernel_unit(bundle, _description(), 0, k) for k in tiling_keys(OP_KERNEL)}
    _write(root, units | {"op_kernel/probe_op.cpp": OP_KERNEL, "kernel_operator.h": STAND_IN_KERNEL_OPERATOR,
                          "op_host/probe_op_tiling.h": kernel_tiling_header(TILING_H),
                          KERNEL_HEADER: (csrc_dir() / "templates" / KERNEL_HEADER).read_text()})
    libraries = {}
    for key in tiling_keys(OP_KERNEL):
        done = _gxx(["-fPIC", "-shared", "-I.", f"launcher_{key}.cpp", "-o", kernel_library(key)], root)
        assert done.returncode == 0, done.stderr
        libraries[key] = ctypes.CDLL(str(root / kernel_library(key)))
    return libraries


def _launch(library: ctypes.CDLL, tiling: bytes, count: int) -> tuple[list[float], bytes]:
    x = (ctypes.c_float * count)(*[float(i + 1) for i in range(count)])
    y = (ctypes.c_float * count)()
    workspace = (ctypes.c_uint8 * 32)()
    data = (ctypes.c_uint8 * len(tiling)).from_buffer_copy(tiling)
    args = (ctypes.c_void_p * 4)(*[ctypes.addressof(a) for a in (x, y, workspace, data)])
    assert library.ascendgen_launch(2, None, args) == 0
    return list(y), bytes(workspace[:3])


def test_the_launcher_exports_the_npu_runtimes_abi(kernel_libraries):
    key1, key3 = kernel_libraries[1], kernel_libraries[3]
    assert key1.ascendgen_npu_abi_version() == NPU_ABI_VERSION
    assert key1.ascendgen_gm_arg_count() == 4  # x, y, workspace, tiling
    key1.ascendgen_op_tiling_key.restype = key3.ascendgen_op_tiling_key.restype = ctypes.c_uint64
    assert (key1.ascendgen_op_tiling_key(), key3.ascendgen_op_tiling_key()) == (1, 3)
    assert key1.ascendgen_tiling_size() == 16 and key3.ascendgen_tiling_size() == 12  # each key's registered struct
    assert key1.ascendgen_tiling(1, 0, None, None, None, None) == 0  # the contract's entry declines: no launch
    assert key1.ascendgen_launch(0, None, (ctypes.c_void_p * 4)()) != 0


def test_get_tiling_data_and_tiling_key_is_as_an_op_build_gives_them(kernel_libraries):
    y, workspace = _launch(kernel_libraries[1], struct.pack("<Ifq", 3, 2.0, 0), 4)
    assert y == [2.0, 4.0, 6.0, 0.0] and workspace == bytes([1, 4, 0])  # key 1's branch, float, DT_FLOAT
    y, workspace = _launch(kernel_libraries[3], struct.pack("<B3xIf", 9, 2, -1.0), 4)
    assert y == [-1.0, -2.0, 0.0, 0.0] and workspace == bytes([3, 4, 0])  # key 3 reads its own struct


def test_tiling_keys_are_the_literals_the_kernel_tests():
    assert tiling_keys(OP_KERNEL) == (1, 3)
    assert tiling_keys("void k() { /* TILING_KEY_IS(9) */ }") == (0,)
    assert tiling_keys("if (TILING_KEY_IS(20UL)) {} else if (TILING_KEY_IS( 2 )) {}") == (2, 20)
    with pytest.raises(OpProjectError, match=r"TILING_KEY_IS\(KEY\): the key must be a non-negative integer literal"):
        tiling_keys("if (TILING_KEY_IS(KEY)) {}")


def test_the_dtype_macros_follow_the_matched_combination():
    unit = kernel_unit(_bundle(), _description(), 1, 1)
    assert "#define DTYPE_X half\n#define ORIG_DTYPE_X DT_FLOAT16" in unit
    assert "#define TILING_KEY_VAR 1ULL" in unit and '#include "op_kernel/probe_op.cpp"' in unit


@pytest.mark.parametrize(("files", "message"), [
    ({"op_kernel/a.cpp": "", "op_kernel/b.cpp": ""}, r"has 2 \(op_kernel/a.cpp, op_kernel/b.cpp\)"),
    ({"op_kernel/a.cpp": "", "op_host/a.cpp": ""}, r"lacks op_host/a_tiling.h"),
    ({"op_kernel/a.cpp": "", "op_host/a.cpp": "", "op_host/a_tiling.h": ""}, r"registers 0 OpDefs with OP_ADD"),
    ({"op_kernel/a.cpp": "", "op_host/a.cpp": "OP_ADD(A);", "op_host/a_tiling.h": "", "build.sh": ""},
     r"holds op_host/*.cpp|.h, op_kernel/*.cpp|.h and attrs.json; not build.sh"),
])
def test_a_bundle_that_is_not_an_operator_project_is_refused(files, message):
    with pytest.raises(OpProjectError, match=message):
        OpBundle.from_source(join_files(files))


# ---- the build, with a fake bisheng and a fake host compiler --------------------------------------------------

FAKE_COMPILER = """#!{python}
import json, os, sys
args = sys.argv[1:]
if args == ["--version"]:
    print("fake compiler 1.0 (torch_ascendgen tests)")
    sys.exit(0)
if args == ["-dumpmachine"]:
    print("x86_64-unknown-linux-gnu")
    sys.exit(0)
files = sorted(os.path.join(d, f)[2:] for d, _, names in os.walk(".") for f in names)
with open({record!r}, "a") as f:
    f.write(json.dumps({{"argv": [os.path.basename(sys.argv[0]), *args], "cwd": os.path.basename(os.getcwd()),
                        "files": files}}) + "\\n")
if any("BROKEN" in open(p).read() for p in files if p.endswith(".cpp")):
    sys.stderr.write("op_kernel/probe_op.cpp:4:5: error: use of undeclared identifier 'BROKEN'\\n    BROKEN;\\n")
    sys.exit(1)
with open(args[args.index("-o") + 1], "w") as f:
    f.write("not really a library")
"""


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """Fake bisheng and g++ recording their calls; the OpDef description the simulator's describe would give."""
    monkeypatch.setenv(config.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(config.SANDBOX_ENV, "off")  # the fakes (Python scripts) record outside the build sandbox
    record = tmp_path / "calls.jsonl"
    for name in ("bisheng", "fake-g++"):
        path = tmp_path / "fake" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(FAKE_COMPILER.format(python=sys.executable, record=str(record)))
        path.chmod(0o755)
    monkeypatch.setenv(config.CXX_ENV, str(tmp_path / "fake" / "fake-g++"))
    monkeypatch.setattr(op_project, "describe", lambda bundle, soc: _description(ATTRS))

    def calls() -> list[dict]:
        return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []

    return tmp_path / "fake" / "bisheng", calls


TASK = SimpleNamespace(inputs=[SimpleNamespace(dtype=torch.float32)], outputs=[SimpleNamespace(dtype=torch.float32)])


@pytest.mark.parametrize(("version", "mode_flags"), [("8.5.0", ["-x", "asc", "--npu-arch=dav-2201"]),
                                                      ("8.2.RC1", ["-xcce", "--cce-soc-version=Ascend910B4"])])
def test_the_build_runs_both_compilers_with_the_exact_commands(tmp_path, fake, version, mode_flags):
    bisheng, calls = fake
    toolkit = _stub_toolkit(tmp_path, version, bisheng, libraries=("tiling_api", "register"))
    built = compile_npu_op_project(join_files(_bundle().files), TASK, "Ascend910B4", toolkit)
    host, *kernels = calls()
    assert host["cwd"] == "host" and host["argv"] == ["fake-g++", *host_command(toolkit, Path("op_host_unit.cpp"),
                                                                               Path(HOST_LIBRARY))[1:]]
    assert host["argv"][-2:] == ["-ltiling_api", "-lregister"]  # the toolkit's, of HOST_LIBRARIES
    assert {"op_host/probe_op.cpp", "op_host/probe_op_tiling.h", HOST_PRELUDE, HOST_DRIVER} <= set(host["files"])
    assert [k["argv"][1:] for k in kernels] == [
        bisheng_command(Path(f"launcher_{key}.cpp"), Path(kernel_library(key)), "Ascend910B4", toolkit)[1:]
        for key in (1, 3)]
    assert all(flag in kernels[0]["argv"] for flag in mode_flags) and kernels[0]["cwd"] == "kernel"
    assert {"op_kernel/probe_op.cpp", "op_host/probe_op_tiling.h", KERNEL_HEADER} <= set(kernels[0]["files"])
    op = json.loads((built.directory / OP_MANIFEST).read_text())
    assert (op["keys"], op["input_dtypes"], op["attrs"]) == ([1, 3], [0], _attrs())
    assert built.library == built.directory / "kernel_1.so" and (built.directory / HOST_LIBRARY).is_file()
    assert op_project.is_op_build(built) and not built.cached
    again = compile_npu_op_project(join_files(_bundle().files), TASK, "Ascend910B4", toolkit)
    assert again.cached and again.directory == built.directory and len(calls()) == 3


def test_a_kernel_that_does_not_compile_names_its_file(tmp_path, fake):
    bisheng, _ = fake
    toolkit = _stub_toolkit(tmp_path, "8.5.0", bisheng)
    with pytest.raises(KernelBuildError, match=r"(?s)bisheng exited with status 1.*op_kernel/probe_op.cpp:4:5"):
        compile_npu_op_project(join_files(_bundle(kernel=OP_KERNEL + "BROKEN\n").files), TASK, "Ascend910B4", toolkit)


def test_a_task_whose_dtypes_the_opdef_does_not_declare_is_refused(tmp_path, fake):
    bisheng, calls = fake
    task = SimpleNamespace(inputs=[SimpleNamespace(dtype=torch.int32)], outputs=[SimpleNamespace(dtype=torch.int32)])
    with pytest.raises(KernelBuildError, match=r"cannot be built for the NPU: .*declares no dtype combination"):
        compile_npu_op_project(join_files(_bundle().files), task, "Ascend910B4",
                               _stub_toolkit(tmp_path, "8.5.0", bisheng))
    assert calls() == []


def test_a_shipped_project_is_described_by_the_simulators_shims_and_built(tmp_path, fake, monkeypatch):
    """The real describe (the simulator's host shims, in a child) feeds the units: inputs, outputs, the OPTIONAL
    attribute's default."""
    bisheng, calls = fake
    root = OP_PROJECTS / "scaled_softmax_custom"
    files = {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}
    source = join_files(files | {"attrs.json": '{"scale": 0.5}'})
    with monkeypatch.context() as real_compiler:  # the simulator's host build needs the real g++, not the fake
        real_compiler.setenv(config.CXX_ENV, shutil.which("g++") or "g++")
        description = _REAL_DESCRIBE(OpBundle.from_source(source), "Ascend910B4")
    monkeypatch.setattr(op_project, "describe", lambda bundle, soc: description)
    built = compile_npu_op_project(source, TASK, "Ascend910B4", _stub_toolkit(tmp_path, "8.5.0", bisheng))
    op = json.loads((built.directory / OP_MANIFEST).read_text())
    assert (op["op_type"], op["keys"], op["input_dtypes"], op["output_dtypes"]) == ("ScaledSoftmaxCustom", [0], [0],
                                                                                    [0])
    assert op["attrs"] == "scale Float 1 0x1.0000000000000p-1\nlog Bool 1 0\n"
    assert [c["cwd"] for c in calls()] == ["host", "kernel"]


# ---- the runner in the NPU child, with the stub-built host library and a stand-in runtime module ---------------

class _FakeRuntime:
    def __init__(self):
        self.tilings, self.launches = [], []

    def DeviceTiling(self, data, device_index):  # noqa: N802 - the module's class name
        self.tilings.append((data, device_index))
        return ("device tiling", len(self.tilings))

    def launch(self, library, block_dim, inputs, outputs, workspace, tiling):
        self.launches.append((library, block_dim, inputs, outputs, workspace, tiling))


@pytest.fixture
def op_kernel(tmp_path, monkeypatch, host_library):
    """An NpuOpKernel over a build directory holding the stub-built host library and op.json, its kernel libraries
    stand-ins reporting their key's tiling size, taking CPU tensors as if they were on NPU 0."""
    from torch_ascendgen.targets.npu import runtime as npu_runtime
    from torch_ascendgen.targets.npu.build import NpuBuild

    shutil.copy(host_library, tmp_path / HOST_LIBRARY)
    op = {"name": "probe_op", "op_type": "ProbeOp", "keys": [1, 3], "combo": 0, "input_dtypes": [0],
          "output_dtypes": [0], "attrs": _attrs(), "soc": "Ascend910B4"}
    (tmp_path / OP_MANIFEST).write_text(json.dumps(op))
    runtime = _FakeRuntime()
    monkeypatch.setattr(npu_runtime, "npu_runtime_module", lambda: runtime)
    monkeypatch.setattr(npu_runtime, "_device_index", lambda inputs: 0)
    monkeypatch.setattr(npu_runtime, "load_npu_library",
                        lambda path: SimpleNamespace(path=path, tiling_size=24 if path.endswith("_3.so") else 16))
    build = NpuBuild("key", tmp_path, tmp_path / kernel_library(1), tmp_path / "build.log", 0.0, True)
    task = SimpleNamespace(specialized=False, traced_shapes=None, guards=(),
                           inputs=[SimpleNamespace(shape=("s0", 5), dtype=torch.float32)],
                           outputs=[SimpleNamespace(shape=("s0", 5), dtype=torch.float32)])
    kernel = op_project.npu_kernel(build, task, "Ascend910B4")
    assert isinstance(kernel, op_project.NpuOpKernel)
    return kernel, runtime


def test_the_runner_plans_with_the_tiling_func_and_launches_the_keys_library(op_kernel):
    kernel, runtime = op_kernel
    x = torch.randn(3, 5)
    (out,) = kernel(x)
    ((library, block_dim, inputs, outputs, workspace, tiling),) = runtime.launches
    assert library.path.endswith("kernel_3.so") and block_dim == 2  # 15 elements: odd, key 3; not above 64
    assert outputs == [out] and out.shape == (3, 5) and torch.equal(inputs[0], x)
    assert workspace.numel() == 128 and tiling == ("device tiling", 1)
    data, device = runtime.tilings[0]
    assert device == 0 and struct.unpack("<Ifq", data[:16]) == (15, 1.5, 2005)  # mode 5 + tag "ab" (2 * 1000)
    assert data[16:] == bytes(8)  # zero-padded to the key's struct size
    assert kernel.plan([torch.randn(3, 5)])[1].tiling_key == 3 and len(runtime.tilings) == 1  # one plan per shape
    kernel(torch.randn(4, 5))
    assert runtime.launches[-1][0].path.endswith("kernel_1.so") and runtime.launches[-1][1] == 2


def test_a_key_no_kernel_variant_tests_is_a_run_error_naming_it(op_kernel):
    kernel, _ = op_kernel
    kernel.op["keys"] = [1]
    with pytest.raises(RuntimeError, match=r"set tiling key 3, which no TILING_KEY_IS of op_kernel/probe_op.cpp names"):
        kernel.plan([torch.randn(3, 5)])
