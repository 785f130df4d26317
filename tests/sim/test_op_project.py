"""Operator projects (op_host tiling header + OpDef/TilingFunc, op_kernel) run unmodified on the simulator.

The projects are in tests/op_projects, written the way msopgen projects and LLM benchmark answers are:
add_custom (three dtype combinations, InferShape/InferDataType, a TilingFunc that picks tiling key 1 for aligned
lengths and 2 for a tail, DataCopy vs DataCopyPad), scaled_softmax_custom (a REQUIRED Float and an OPTIONAL Bool
attribute, TILING_DATA_FIELD_DEF_ARR/_STRUCT, rows split over cores, TilingFunc failing for rows too long for UB)
and probe_custom (an OPTIONAL input, the user workspace, and a TilingFunc that misbehaves on request).
add_custom's and scaled_softmax_custom's calls share one child (``with project:``); the others' take one each.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import torch

from torch_ascendgen import config
from torch_ascendgen.errors import (
    KernelBuildError,
    KernelCrashError,
    KernelTimeoutError,
    OpProjectError,
    SimulatorError,
)
from torch_ascendgen.targets.sim.op_kernel import kernel_source
from torch_ascendgen.targets.sim.op_project import OpProject

PROJECTS = Path(__file__).resolve().parent.parent / "op_projects"


@pytest.fixture(scope="module")
def add_custom():
    with OpProject.from_directory(PROJECTS / "add_custom") as project:  # its calls share one child
        yield project


@pytest.fixture(scope="module")
def softmax():
    with OpProject.from_directory(PROJECTS / "scaled_softmax_custom") as project:
        yield project


@pytest.fixture(scope="module")
def probe() -> OpProject:
    root = PROJECTS / "probe_custom"
    return OpProject.from_sources((root / "op_host/probe_custom_tiling.h").read_text(),
                                  (root / "op_host/probe_custom.cpp").read_text(),
                                  (root / "op_kernel/probe_custom.cpp").read_text(), name="probe_custom")


def _random(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    if dtype.is_floating_point:
        return torch.randn(shape).to(dtype)
    return torch.randint(-(2**20), 2**20, shape, dtype=dtype)


def test_the_opdef_is_described_as_declared(add_custom, softmax):
    add = add_custom.describe()
    assert add.op_type == "AddCustom"
    assert [d.name for d in add.inputs] == ["x", "y"] and [d.name for d in add.outputs] == ["z"]
    assert add.inputs[0].dtypes == (1, 0, 3) and add.combo_count == 3  # DT_FLOAT16, DT_FLOAT, DT_INT32
    assert add.configs == ("ascend910b",) and add.has_infer_shape and add.has_infer_dtype
    attrs = softmax.describe().attrs
    assert [(a.name, a.kind, a.required, a.has_default) for a in attrs] == [
        ("scale", "Float", True, False), ("log", "Bool", False, True)]


@pytest.mark.parametrize(("shape", "dtype", "key"), [
    ((4, 100), torch.float32, 1),    # 400 floats: every core's length aligned
    ((3, 37), torch.float16, 2),     # 111 halves: the last core has a tail
    ((1000,), torch.int32, 1),
    ((7,), torch.float32, 2),        # fewer elements than one 32-byte block
    ((2, 3, 4096), torch.float16, 1),  # several UB tiles per core
])
def test_add_custom_matches_torch(add_custom, shape, dtype, key):
    x, y = _random(shape, dtype), _random(shape, dtype)
    run = add_custom.run(x, y)
    assert run.plan.tiling_key == key
    assert run.outputs[0].shape == x.shape and run.outputs[0].dtype == dtype
    assert torch.equal(run.outputs[0], x + y)


def test_tiling_bytes_have_the_layout_the_kernel_reads(add_custom, softmax):
    plan = add_custom.plan(torch.zeros(3, 37, dtype=torch.float16), torch.zeros(3, 37, dtype=torch.float16))
    total, block, last, tile = struct.unpack("<4I", plan.tiling)
    assert (total, block, last, tile) == (111, 16, 111 - 6 * 16, 16)
    assert plan.block_dim == 7 and plan.workspaces == (0,)
    plan = softmax.plan(torch.zeros(100, 37), scale=0.25)
    # shape[2], colsAligned, scale, logMode (+3 padding), RowSplit{formerNum, formerRows, tailRows}
    rows, cols, aligned, scale, log, former_num, former_rows, tail_rows = struct.unpack("<3IfB3x3I", plan.tiling)
    assert (rows, cols, aligned, scale, log) == (100, 37, 40, 0.25, 0)
    assert (former_num, former_rows, tail_rows) == (100 % 48, 3, 2) and plan.block_dim == 48


def test_the_launch_runs_the_branch_of_its_tiling_key(add_custom):
    """A length with a tail launched with key 1 takes the DataCopy branch, which the simulator refuses."""
    x = torch.randn(3, 37, dtype=torch.float16)
    plan = add_custom.plan(x, x)
    kernel = add_custom.kernel(x, x)
    z = torch.zeros_like(x)
    workspace = torch.zeros(32, dtype=torch.uint8)
    kernel.launch(plan.block_dim, x, x, z, workspace, plan.tiling, 2)
    assert torch.equal(z, x + x)
    with pytest.raises(SimulatorError) as caught:
        kernel.launch(plan.block_dim, x, x, z, workspace, plan.tiling, 1)
    assert caught.value.kind == "datacopy_alignment"
    assert caught.value.file == "op_kernel/add_custom.cpp" and "DataCopy(" in caught.value.source_line


KEYED_KERNEL = """
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (GetBlockIdx() != 0) {
        return;  // scalar writes of several cores would share cache lines: core 0 does it all
    }
    GlobalTensor<DTYPE_X> xGm, yGm;
    GlobalTensor<DTYPE_Z> zGm;
    xGm.SetGlobalBuffer((__gm__ DTYPE_X *)x, t.totalLength);
    yGm.SetGlobalBuffer((__gm__ DTYPE_Y *)y, t.totalLength);
    zGm.SetGlobalBuffer((__gm__ DTYPE_Z *)z, t.totalLength);
    for (uint32_t i = 0; i < t.totalLength; i++) {
#if TILING_KEY_VAR == 1
        zGm.SetValue(i, xGm.GetValue(i) + yGm.GetValue(i));
#else
        zGm.SetValue(i, xGm.GetValue(i) - yGm.GetValue(i));
#endif
    }
}
"""


def test_a_kernel_testing_tiling_key_var_is_built_per_key():
    host = PROJECTS / "add_custom" / "op_host"
    project = OpProject.from_sources((host / "add_custom_tiling.h").read_text(), (host / "add_custom.cpp").read_text(),
                                     KEYED_KERNEL, name="add_custom")
    x, y = torch.randn(64), torch.randn(64)
    assert torch.equal(project(x, y), x + y)            # key 1: 64 floats are 32-byte aligned
    assert torch.equal(project(x[:7], y[:7]), x[:7] - y[:7])  # key 2: a tail


@pytest.mark.parametrize(("shape", "scale", "log"), [
    ((5, 37), 0.5, False),
    ((100, 64), 2.0, True),       # more rows than cores: former and tail cores
    ((2, 3, 200), 1.0, False),    # rows from every leading dim
])
def test_scaled_softmax_matches_torch(softmax, shape, scale, log):
    x = torch.randn(shape)
    y = softmax(x, scale=scale, log=log) if log else softmax(x, scale=scale)
    expected = torch.log_softmax(x * scale, -1) if log else torch.softmax(x * scale, -1)
    torch.testing.assert_close(y, expected, rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def high_level_softmax():
    with OpProject.from_directory(PROJECTS / "softmax_custom") as project:
        yield project


@pytest.mark.parametrize("shape", [(37, 64), (5, 256), (200, 32)])
def test_a_project_on_the_high_level_softmax_with_its_host_tiling(high_level_softmax, shape):
    """op_host calls SoftMaxTilingFunc/GetSoftMaxMinTmpSize (tiling/tiling_api.h) into a TILING_DATA_FIELD_DEF_STRUCT
    field; the kernel passes that SoftMaxTiling to AscendC::SoftMax, as LLM kernel benchmarks' projects do."""
    x = torch.randn(shape) * 3
    torch.testing.assert_close(high_level_softmax(x), torch.softmax(x, -1), rtol=1e-5, atol=1e-6)


def test_optional_input_and_user_workspace(probe):
    x, bias = torch.randn(100), torch.randn(100)
    run = probe.run(x, None, None, isolated=False)  # the host code in a child, the (trusted) kernel here
    assert run.plan.workspaces == (16 * 1024 * 1024 + 400,)
    assert torch.equal(run.outputs[0], x)
    assert torch.equal(probe(x, bias, None), x + bias)
    assert torch.equal(probe(x, bias, torch.tensor([2.5])), (x + bias) * 2.5)  # the ValueDepend scale's value


@pytest.mark.parametrize(("soc", "facts"), [
    ("Ascend910B4", (40, 20, 196608, 1)),    # SocVersion::ASCEND910B
    ("Ascend910_9391", (48, 24, 196608, 2)),  # ASCEND910_93
    ("Ascend310P3", (8, 8, 262144, 3)),       # ASCEND310P
])
def test_the_platform_api_reports_the_simulated_soc(probe, soc, facts):
    x = torch.randn(4).half() if soc == "Ascend310P3" else torch.randn(4)  # the probe's 310P config takes half
    plan = probe.plan(x, None, None, soc=soc)
    aiv, aic, ub, version, tsch, manager, instances = struct.unpack("<16xIIQIIII24x", plan.tiling)
    assert (aiv, aic, ub, version) == facts
    # CalcTschBlockDim: a vector-only op's 5 slices, then the page's pattern (aivNum slices, AIC+AIV groups)
    assert tsch == 5000 + aiv // (aiv // aic) and manager == aiv  # and PlatformAscendCManager's SoC
    assert instances == 1  # the OPTIONAL bias left out takes no input instance


def test_an_addconfig_with_its_own_lists_is_what_that_soc_sees(probe):
    assert [d.dtypes for d in probe.describe(soc="Ascend310P3").inputs] == [(1,), (1,), (1,)]  # DT_FLOAT16
    assert [d.dtypes for d in probe.describe(soc="Ascend910B2").inputs] == [(0,), (0,), (0,)]  # DT_FLOAT
    with pytest.raises(OpProjectError, match=r"declares no dtype combination for x=torch.float32"):
        probe.plan(torch.randn(4), None, None, soc="Ascend310P3")


def test_input_instances_and_opdef_indices(probe):
    with_bias = probe.plan(torch.randn(4), torch.randn(4), None)
    assert struct.unpack("<44xI24x", with_bias.tiling) == (2,)
    with_scale = probe.plan(torch.randn(4), None, torch.tensor([0.5]))
    assert struct.unpack("<44xIfI16x", with_scale.tiling) == (2, 0.5, 1)  # the scale is instance 1 here


def test_get_tiling_data_is_the_tiling_bytes_in_place(probe):
    plan = probe.plan(torch.randn(4), None, None, mode=9)
    assert struct.unpack_from("<I", plan.tiling) == (5,) and len(plan.tiling) == 72


def test_list_and_string_attributes(probe):
    defaults = probe.plan(torch.randn(4), None, None)
    assert struct.unpack("<56xqII", defaults.tiling) == (6, 5, 3)  # ListInt({1, 2, 3}), String("probe")
    given = probe.plan(torch.randn(4), None, None, dims=[10, -4], tag="")
    assert struct.unpack("<56xqII", given.tiling) == (6, 0, 2)
    with pytest.raises(OpProjectError, match=r"attribute dims is declared ListInt; got \[1.5\]"):
        probe.plan(torch.randn(4), None, None, dims=[1.5])


@pytest.fixture(scope="module")
def add_n() -> OpProject:
    return OpProject.from_directory(PROJECTS / "add_n_custom")


@pytest.mark.parametrize(("count", "shape", "dtype"), [(3, (5, 33), torch.float32), (2, (1000,), torch.float16),
                                                        (1, (64,), torch.float32)])
def test_dynamic_input_reaches_the_kernel_as_a_list(add_n, count, shape, dtype):
    xs = [torch.randn(shape).to(dtype) for _ in range(count)]
    expected = xs[0].clone()
    for x in xs[1:]:
        expected += x
    assert torch.equal(add_n(xs), expected)


def test_dynamic_input_errors(add_n):
    with pytest.raises(OpProjectError, match=r"input x is DYNAMIC; pass a non-empty list of tensors"):
        add_n(torch.randn(4))
    with pytest.raises(OpProjectError, match=r"TilingFunc of AddNCustom returned failure"):
        add_n([torch.randn(4), torch.randn(5)])
    with pytest.raises(OpProjectError, match=r"no dtype combination for x=\[torch.float32, torch.float16\]"):
        add_n([torch.randn(4), torch.randn(4).half()])


def test_calls_that_do_not_match_the_opdef_name_the_fix(add_custom, softmax):
    x32, x16 = torch.randn(8), torch.randn(8).half()
    with pytest.raises(OpProjectError, match=r"declares no dtype combination for x=torch.float32, y=torch.float16"):
        add_custom(x32, x16)
    with pytest.raises(OpProjectError, match=r"\(DT_FLOAT16, DT_FLOAT16\) -> \(DT_FLOAT16\)"):
        add_custom(x32.double(), x32.double())
    with pytest.raises(OpProjectError, match=r"takes 2 inputs \(x, y\), got 1"):
        add_custom(x32)
    with pytest.raises(OpProjectError, match=r"input y is REQUIRED"):
        add_custom(x32, None)
    with pytest.raises(OpProjectError, match=r"attribute scale \(Float\) has no default value; pass scale="):
        softmax(torch.randn(2, 8))
    with pytest.raises(OpProjectError, match=r"attribute scale is declared Float; got 'big'"):
        softmax(torch.randn(2, 8), scale="big")
    with pytest.raises(OpProjectError, match=r"has no attribute temperature; its attributes: scale, log"):
        softmax(torch.randn(2, 8), scale=1.0, temperature=2.0)
    with pytest.raises(OpProjectError, match=r'ascend910b .* add this->AICore\(\).AddConfig\("ascend310p"\)'):
        add_custom(x32, x32, soc="Ascend310P3")


def test_what_the_tiling_func_decides_is_checked(add_custom, softmax):
    with pytest.raises(OpProjectError, match=r"TilingFunc of ScaledSoftmaxCustom returned failure .* \[1, 20000\]"):
        softmax(torch.randn(1, 20000), scale=1.0)
    with pytest.raises(OpProjectError, match=r"TilingFunc of AddCustom set block dim 0"):
        add_custom(torch.randn(0), torch.randn(0))


@pytest.mark.parametrize(("mode", "message"), [
    (3, r"HugeTilingData::SaveToBuffer: the TilingData is 70000 bytes, the buffer holds 65536"),
    (4, r"GetAttrPointer<T>\(0\): attribute 'mode' is declared Int; read it as int64_t"),
    (5, r"GetCoreMemSize: only UB, L1, L0_A, L0_B and L0_C are simulated"),
    (6, r"the op's host code threw probe asked to throw"),
    (8, r"GetData<T>\(\): the tiling sees the values of inputs declared ValueDepend only"),
])
def test_host_api_misuse_is_reported_by_name(probe, mode, message):
    with pytest.raises(OpProjectError, match=message):
        probe(torch.randn(8), None, None, mode=mode)


def test_a_tiling_func_that_crashes_or_hangs_costs_only_its_child(probe, monkeypatch):
    with pytest.raises(KernelCrashError, match=r"ProbeCustom \(its host code and kernel\) crashed its child"):
        probe(torch.randn(8), None, None, mode=1)
    with monkeypatch.context() as patched:
        patched.setenv(config.RUN_TIMEOUT_ENV, "4")
        with pytest.raises(KernelTimeoutError, match=r"ProbeCustom \(its host code and kernel\) did not finish"):
            probe(torch.randn(8), None, None, mode=2)
    x = torch.randn(8)
    assert torch.equal(probe(x, None, None), x)  # this process and the project still work


def test_calls_inside_with_share_one_child_that_a_crash_replaces(probe):
    x = torch.randn(8)
    with probe:
        assert torch.equal(probe(x, None, None), x)
        assert probe._worker.calls_in_child == 1
        assert torch.equal(probe(x, x, None), x + x)
        assert probe._worker.calls_in_child == 2  # the same child
        with pytest.raises(KernelCrashError, match=r"ProbeCustom \(its host code and kernel\)"):
            probe(x, None, None, mode=1)
        assert torch.equal(probe(x, None, None), x)  # a fresh child
        assert probe._worker.calls_in_child == 1
    assert probe._worker is None


def test_kernel_diagnostics_name_the_op_kernel_line(probe):
    with pytest.raises(SimulatorError) as caught:
        probe(torch.randn(8), None, None, mode=7)
    error = caught.value
    assert error.kind == "gm_out_of_bounds" and error.file == "op_kernel/probe_custom.cpp"
    assert "xGm.GetValue(i)" in error.source_line
    kernel = (PROJECTS / "probe_custom/op_kernel/probe_custom.cpp").read_text().splitlines()
    assert "xGm.GetValue(i)" in kernel[error.line - 1]


def test_build_errors_name_the_project_file_and_line(add_custom):
    host = PROJECTS / "add_custom" / "op_host"
    header, op_host_text = (host / "add_custom_tiling.h").read_text(), (host / "add_custom.cpp").read_text()
    kernel = add_custom.op_kernel[1].replace("    GET_TILING_DATA(tiling_data, tiling);",
                                             "    GET_TILING_DATA(tiling_data, tiling);\n    NoSuchApi(x);")
    line = kernel.splitlines().index("    NoSuchApi(x);") + 1
    bad_kernel = OpProject.from_sources(header, op_host_text, kernel, name="add_custom")
    with pytest.raises(KernelBuildError, match=rf"op_kernel/add_custom.cpp:{line}:5: error: .*NoSuchApi") as caught:
        bad_kernel.kernel(torch.randn(8), torch.randn(8))
    assert f"{line} |     NoSuchApi(x);\n" in caught.value.log  # the kernel's own line quoted, not the prelude's
    bad_host = OpProject.from_sources(header, op_host_text.replace("context->SetBlockDim(blockDim);",
                                                                   "context->SetBlockDimension(blockDim);"),
                                      add_custom.op_kernel[1], name="add_custom")
    with pytest.raises(KernelBuildError, match=r"op_host/add_custom.cpp:\d+:\d+: error: .*SetBlockDimension"):
        bad_host(torch.randn(8), torch.randn(8))


@pytest.mark.unit
def test_the_kernel_prelude_defines_the_combination(add_custom):
    description = add_custom.describe()
    source = kernel_source(description, 0, add_custom.tiling_header[1], add_custom.op_kernel[1])
    assert "#define DTYPE_X half\n" in source and "#define ORIG_DTYPE_Z DT_FLOAT16\n" in source
    assert "#define DT_FLOAT16 1\n" in source and "TILING_KEY_VAR" not in source
    assert '#include "host/register/tilingdata_base.h"' in source
    assert "\n#line 1\n" + add_custom.op_kernel[1] in source
    old_style = add_custom.op_kernel[1].replace(", GM_ADDR workspace, GM_ADDR tiling)", ", GM_ADDR tiling)")
    with pytest.raises(OpProjectError, match=r"add_custom takes 4 parameters; .* \(x, y\), its outputs \(z\), then "
                                             r"workspace and tiling: 5 GM_ADDR parameters"):
        kernel_source(description, 0, add_custom.tiling_header[1], old_style)
    base = '#include "register/tilingdata_base.h"'
    with_api = add_custom.tiling_header[1].replace(base, base + '\n#include "tiling/tiling_api.h"')
    source = kernel_source(description, 0, with_api, add_custom.op_kernel[1])
    assert "\n// tiling_api.h: its structs come with kernel_operator.h\n" in source  # host helpers stay host-side
    including = '#include "../op_host/add_custom_tiling.h"\n' + add_custom.op_kernel[1]
    source = kernel_source(description, 0, add_custom.tiling_header[1], including, header_name="add_custom_tiling.h")
    assert "\n#line 1\n// add_custom_tiling.h: included before the kernel\n" in source
    keyed = kernel_source(description, 2, add_custom.tiling_header[1], add_custom.op_kernel[1], tiling_key=7)
    assert "#define DTYPE_Y int32_t\n" in keyed and "#define TILING_KEY_VAR 7\n" in keyed
    assert "ascendgen_registered_tiling_AddCustom::type\n" in keyed


@pytest.mark.unit
def test_a_malformed_answer_of_the_host_code_is_a_typed_error():
    from torch_ascendgen.targets.sim import op_host

    with pytest.raises(OpProjectError, match=r"the host code's answer is malformed"):
        op_host.parse_plan("ok\nstatus zero\n")
    with pytest.raises(OpProjectError, match=r"the OpDef description is malformed"):
        op_host.parse_description("ok\ninput x\n")
    plan = op_host.parse_plan("ok\noutput 0 0 2 -1,4\nstatus 0\nblock_dim 1\ntiling_key 0\ntiling_size 0\n"
                              "tiling_capacity 65536\ntiling -\nworkspaces 0\n")
    assert plan.output_shapes == ((-1, 4),) and plan.tiling == b""


@pytest.mark.unit
def test_a_struct_registered_for_a_tiling_key_is_read_under_that_key(add_custom):
    """REGISTER_TILING_DATA_CLASS(<OpType>_<key>, S): GET_TILING_DATA reads an S under that key, the default
    struct under any other; such kernels are built once per key."""
    header = add_custom.tiling_header[1].replace(
        "REGISTER_TILING_DATA_CLASS(AddCustom, TilingData)",
        "REGISTER_TILING_DATA_CLASS(AddCustom, TilingData)\nREGISTER_TILING_DATA_CLASS(AddCustom_2, TailTiling)")
    project = OpProject(("add_custom_tiling.h", header), add_custom.op_host, add_custom.op_kernel)
    assert project._per_key and not add_custom._per_key
    description = add_custom.describe()
    for key, struct_type in ((2, "AddCustom_2"), (1, "AddCustom")):
        source = kernel_source(description, 0, header, add_custom.op_kernel[1], tiling_key=key)
        registered = f"::optiling::ascendgen_registered_tiling_{struct_type}::type"
        assert f"#define ASCENDGEN_OP_TILING_TYPE {registered}\n" in source


def test_a_kernel_with_its_own_header_beside_it(tmp_path):
    """op_kernel/*.h go to the kernel build (DrivingSDK's projects keep the kernel class in op_kernel/<op>.h)."""
    root = tmp_path / "add_custom"
    for part in ("op_host", "op_kernel"):
        (root / part).mkdir(parents=True)
    for name in ("add_custom.cpp", "add_custom_tiling.h"):
        (root / "op_host" / name).write_text((PROJECTS / "add_custom/op_host" / name).read_text())
    kernel = (PROJECTS / "add_custom/op_kernel/add_custom.cpp").read_text()
    entry = kernel.index('extern "C"')
    (root / "op_kernel/add_custom_class.h").write_text(kernel[:entry])
    (root / "op_kernel/add_custom.cpp").write_text('#include "add_custom_class.h"\n' + kernel[entry:])
    project = OpProject.from_directory(root)
    assert [name for name, _ in project.kernel_headers] == ["add_custom_class.h"]
    x, y = torch.randn(2, 96), torch.randn(2, 96)
    torch.testing.assert_close(project(x, y), x + y)


def test_a_tiling_header_with_host_only_includes_builds_into_the_kernel(tmp_path):
    """A tiling header that includes its TilingFunc's headers (register/op_def_registry.h, the platform API) still
    gives the kernel its TilingData: the kernel side skips those (DrivingSDK's knn_tiling.h includes both)."""
    root = tmp_path / "add_custom"
    for part in ("op_host", "op_kernel"):
        (root / part).mkdir(parents=True)
    tiling = (PROJECTS / "add_custom/op_host/add_custom_tiling.h").read_text()
    host_only = '#include "register/op_def_registry.h"\n#include "tiling/platform/platform_ascendc.h"\n'
    (root / "op_host/add_custom_tiling.h").write_text(host_only + tiling)
    (root / "op_host/add_custom.cpp").write_text((PROJECTS / "add_custom/op_host/add_custom.cpp").read_text())
    (root / "op_kernel/add_custom.cpp").write_text((PROJECTS / "add_custom/op_kernel/add_custom.cpp").read_text())
    x, y = torch.randn(3, 64), torch.randn(3, 64)
    torch.testing.assert_close(OpProject.from_directory(root)(x, y), x + y)
