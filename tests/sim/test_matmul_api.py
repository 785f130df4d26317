"""The high-level Matmul API (sim/matmul.h) and its host tiling (host/tiling/matmul_tiling.h) against torch.

One contract kernel (tests/kernels/matmul/matmul_api.cpp), built once per module: its tiling function runs
MultiCoreMatmulTiling for [M, N, K] and the case's types, transposes, bias, core count and fixed base block; the
kernel splits M and N over blocks as the tiling says (SetTail on the edge blocks) and takes C with IterateAll, with
Iterate + GetTensorC to GM, through a VECIN tensor, or block by block (enSequentialWrite). Results are checked against
a float64 matmul within the error bound of float (or int32) accumulation plus one rounding to C's type. Pages:
Matmul使用说明.md, TCubeTiling结构体.md, GetTensorC.md, Matmul-Tiling类使用说明.md (asc-devkit v8.5.0).
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

SOURCE = (Path(__file__).parent.parent / "kernels" / "matmul" / "matmul_api.cpp").read_text()

# dtype code: (A and B, C, bias)
TYPES = {
    0: (torch.float16, torch.float32, torch.float32),
    1: (torch.float16, torch.float16, torch.float32),
    2: (torch.bfloat16, torch.float32, torch.float32),
    3: (torch.int8, torch.int32, torch.int32),
    4: (torch.float32, torch.float32, torch.float32),
    5: (torch.bfloat16, torch.bfloat16, torch.float32),
}
OUT_EPS = {torch.float32: 2.0 ** -24, torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8, torch.int32: 0.0}
ALL_AT_ONCE, ITERATE_TO_GM, THROUGH_UB, SEQUENTIAL = 0, 1, 2, 3
TCUBE_FIELDS = ("usedCoreNum M N Ka Kb singleCoreM singleCoreN singleCoreK baseM baseN baseK depthA1 depthB1 stepM "
                "stepN isBias transLength iterateOrder shareMode shareL1Size shareL0CSize shareUbSize batchM batchN "
                "singleBatchM singleBatchN stepKa stepKb dbL0A dbL0B dbL0C").split()
HEADER_BYTES = 24  # the six int32 fields before TCubeTiling in the kernel's TilingData


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="matmul_api", filename="matmul_api.cpp", contract=True)


def plan(kernel, m, n, k, *, dtype=0, mode=ALL_AT_ONCE, trans_a=False, trans_b=False, bias=False, cores=1,
         base=(-1, -1, -1), l0c=0):
    """The tiling bytes and block count the host tiling gives."""
    options = [dtype, mode, int(trans_a), int(trans_b), int(bias), cores, *base, l0c]
    return kernel.tiling([[m, n, k], options])


def fields(data: bytes) -> dict[str, int]:
    status = struct.unpack_from("<i", data, 16)[0]
    values = struct.unpack_from(f"<{len(TCUBE_FIELDS)}i", data, HEADER_BYTES)
    return {"status": status, **dict(zip(TCUBE_FIELDS, values))}


def with_fields(data: bytes, **changes: int) -> bytes:
    raw = bytearray(data)
    for name, value in changes.items():
        struct.pack_into("<i", raw, HEADER_BYTES + 4 * TCUBE_FIELDS.index(name), value)
    return bytes(raw)


def inputs(m, n, k, dtype, trans_a, trans_b, seed=0):
    gen = torch.Generator().manual_seed(seed)
    ab, _, bias_t = TYPES[dtype]
    if ab == torch.int8:
        a = torch.randint(-128, 128, (m, k), generator=gen, dtype=torch.int8)
        b = torch.randint(-128, 128, (k, n), generator=gen, dtype=torch.int8)
        bias = torch.randint(-10000, 10000, (n,), generator=gen, dtype=torch.int32)
    else:
        a = torch.randn(m, k, generator=gen).to(ab)
        b = torch.randn(k, n, generator=gen).to(ab)
        bias = torch.randn(n, generator=gen).to(bias_t)
    a_stored = a.t().contiguous() if trans_a else a
    b_stored = b.t().contiguous() if trans_b else b
    return a, b, bias, a_stored, b_stored


def run(kernel, m, n, k, *, dtype=0, mode=ALL_AT_ONCE, trans_a=False, trans_b=False, bias=False, cores=1,
        base=(-1, -1, -1), breakage=0, tiling=None, a_rows=None, seed=0):
    """C from the kernel and the float64 reference with its error bound."""
    tl = plan(kernel, m, n, k, dtype=dtype, mode=mode, trans_a=trans_a, trans_b=trans_b, bias=bias, cores=cores,
              base=base)
    assert fields(tl.data)["status"] == 0
    data = tiling if tiling is not None else tl.data
    a, b, bias_v, a_stored, b_stored = inputs(m, n, k, dtype, trans_a, trans_b, seed)
    if a_rows is not None:
        a_stored = a_stored[:a_rows].clone()
    c_type = TYPES[dtype][1]
    f = fields(data)
    size = m * n if mode != SEQUENTIAL else (-(-m // f["baseM"])) * (-(-n // f["baseN"])) * f["baseM"] * f["baseN"]
    c = torch.zeros(size, dtype=c_type)
    kernel.launch(tl.block_dim, a_stored, b_stored, bias_v if bias else None, c, None, data, breakage)
    ref = a.double() @ b.double() + (bias_v.double() if bias else 0)
    bound = k * 2.0 ** -23 * (a.double().abs() @ b.double().abs() + (bias_v.double().abs() if bias else 0))
    bound = bound + OUT_EPS[c_type] * ref.abs()
    if mode == SEQUENTIAL:
        c = place_blocks(c, m, n, f["baseM"], f["baseN"], f["iterateOrder"])
    return c.reshape(m, n), ref, bound


def place_blocks(c, m, n, base_m, base_n, order):
    """Blocks written one after another (rows n wide for the tail blocks) back into [m, n]."""
    out = torch.zeros(m, n, dtype=c.dtype)
    m_blocks, n_blocks = -(-m // base_m), -(-n // base_n)
    for i in range(m_blocks * n_blocks):
        bm, bn = (i % m_blocks, i // m_blocks) if order == 0 else (i // n_blocks, i % n_blocks)
        rows, cols = min(base_m, m - bm * base_m), min(base_n, n - bn * base_n)
        block = c[i * base_m * base_n:i * base_m * base_n + rows * cols].reshape(rows, cols)
        out[bm * base_m:bm * base_m + rows, bn * base_n:bn * base_n + cols] = block
    return out


def assert_within(c, ref, bound):
    error = (c.double() - ref).abs()
    worst = (error - bound).max().item()
    assert worst <= 0, f"off by {worst} beyond the bound at {(error - bound).argmax().item()}"
    if c.dtype != torch.int32:  # not vacuous: the result is not all zeros
        assert c.double().abs().max() > 0


@pytest.mark.parametrize("dtype", [0, 1, 2, 3, 4, 5])
def test_iterate_all_to_gm_matches_torch_per_dtype(kernel, dtype):
    c, ref, bound = run(kernel, 40, 72, 50, dtype=dtype, base=(16, 32, -1))
    assert_within(c, ref, bound)
    if dtype == 3:
        assert torch.equal(c.long(), ref.long())


@pytest.mark.parametrize("trans_a,trans_b", [(False, True), (True, False), (True, True)])
def test_transposed_inputs_with_bias(kernel, trans_a, trans_b):
    c, ref, bound = run(kernel, 33, 47, 70, trans_a=trans_a, trans_b=trans_b, bias=True, base=(16, 16, 32))
    assert_within(c, ref, bound)


@pytest.mark.parametrize("mode", [ITERATE_TO_GM, THROUGH_UB, SEQUENTIAL])
def test_iterate_hands_out_every_block_in_order(kernel, mode):
    c, ref, bound = run(kernel, 50, 70, 30, dtype=1, mode=mode, bias=True, base=(16, 32, 16))
    assert_within(c, ref, bound)


def test_int8_with_bias_is_exact(kernel):
    c, ref, _ = run(kernel, 17, 40, 300, dtype=3, bias=True, base=(16, 16, 64))
    assert torch.equal(c.long(), ref.long())


def test_multicore_split_with_tails_from_the_host_tiling(kernel):
    """MultiCoreMatmulTiling cuts [200, 150] over 6 cores; the edge blocks run SetTail."""
    m, n, k = 200, 150, 64
    f = fields(plan(kernel, m, n, k, cores=6).data)
    assert f["status"] == 0 and 1 < f["usedCoreNum"] <= 6
    assert f["singleCoreM"] % 16 == 0 and f["singleCoreN"] % 16 == 0 and f["singleCoreK"] == k
    assert f["usedCoreNum"] == -(-m // f["singleCoreM"]) * -(-n // f["singleCoreN"])
    assert m % f["singleCoreM"] != 0 or n % f["singleCoreN"] != 0  # some block is a tail
    for mode in (ALL_AT_ONCE, THROUGH_UB):
        c, ref, bound = run(kernel, m, n, k, dtype=0, mode=mode, bias=True, cores=6)
        assert_within(c, ref, bound)


def test_host_tiling_fits_the_buffers_and_the_alignment(kernel):
    for m, n, k, dtype, trans_b in [(1024, 1024, 1024, 0, False), (4096, 4096, 64, 4, True), (16, 16, 16, 3, True)]:
        f = fields(plan(kernel, m, n, k, dtype=dtype, trans_b=trans_b, bias=True, cores=24).data)
        size = 1 if dtype == 3 else 4 if dtype == 4 else 2
        assert f["status"] == 0
        assert f["baseM"] % 16 == 0 and f["baseN"] % 16 == 0
        assert f["baseK"] % (32 // size if trans_b else 16) == 0
        assert f["baseM"] * f["baseK"] * size * f["dbL0A"] <= 65536
        assert f["baseN"] * f["baseK"] * size * f["dbL0B"] <= 65536
        assert f["baseM"] * f["baseN"] * 4 * f["dbL0C"] <= 131072
        l1 = (f["baseM"] * f["depthA1"] + f["baseN"] * f["depthB1"]) * f["baseK"] * size + f["baseN"] * 4
        assert l1 <= 524288 and f["isBias"] == 1
    smaller = fields(plan(kernel, 256, 256, 64, l0c=32768).data)
    assert smaller["baseM"] * smaller["baseN"] * 4 <= 32768


def test_host_tiling_refuses_what_cannot_fit(kernel):
    assert fields(plan(kernel, 64, 64, 64, base=(24, 16, 16)).data)["status"] == -1  # baseM not a multiple of 16


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def test_a_base_block_not_a_multiple_of_16_is_reported_at_registration(kernel):
    good = plan(kernel, 64, 64, 64).data
    e = expect_error("bad_argument", run, kernel, 64, 64, 64, tiling=with_fields(good, baseM=24))
    assert "baseM is 24, not a multiple of 16" in e.message and e.line == line_of("@regist")


def test_a_tiling_too_big_for_l0c_is_reported(kernel):
    good = plan(kernel, 256, 256, 64).data
    e = expect_error("local_memory_overflow", run, kernel, 256, 256, 64,
                     tiling=with_fields(good, baseM=256, baseN=256))
    assert "L0C" in e.message and "262144" in e.message and e.line == line_of("@regist")


@pytest.mark.parametrize("breakage,marker,words", [
    (1, "@before_init", "before the object was initialised"),
    (2, "@iterate_all", "without SetTensorA"),
    (3, "@iterate_all", "after End()"),
])
def test_misuse_is_reported_at_the_kernel_line(kernel, breakage, marker, words):
    e = expect_error("bad_argument", run, kernel, 32, 32, 32, breakage=breakage)
    assert words in e.message and e.line == line_of(marker), e.message


def test_a_too_short_a_matrix_is_out_of_bounds(kernel):
    e = expect_error("gm_out_of_bounds", run, kernel, 64, 32, 48, a_rows=40)
    assert e.line == line_of("@iterate_all"), e.message


def test_the_cube_pipes_are_charged(kernel):
    tl = plan(kernel, 128, 128, 256)
    a, b = torch.randn(128, 256).half(), torch.randn(256, 128).half()
    c = torch.zeros(128 * 128)
    report = kernel.launch(tl.block_dim, a, b, None, c, None, tl.data, 0)
    busy = {pipe: sum(core["pipe_busy_ns"][pipe] for core in report.cores) for pipe in ("MTE2", "MTE1", "M", "FIX")}
    assert all(busy[p] > 0 for p in busy)
    fractals = (128 // 16) * (128 // 16) * (256 // 16)
    assert busy["M"] >= fractals / 1.8  # one fractal a cycle at 1.8 GHz at best


@pytest.fixture(scope="module")
def matmul_project():
    from torch_ascendgen.targets.sim.op_project import OpProject
    with OpProject.from_directory(Path(__file__).parent.parent / "kernels" / "matmul" / "matmul_custom") as project:
        yield project


@pytest.mark.parametrize("shape,bias", [((96, 200, 64), True), ((33, 47, 40), False)])
def test_an_operator_project_takes_its_tiling_from_multicore_matmul_tiling(matmul_project, shape, bias):
    """op_host fills TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData) with MultiCoreMatmulTiling on the
    PlatformAscendC; the MIX_AIC_1_2 kernel's vector cores each compute their part with IterateAll."""
    m, n, k = shape
    a, b = torch.randn(m, k).half(), torch.randn(k, n).half()
    bias_v = torch.randn(n) if bias else None
    c = matmul_project(a, b, bias_v)
    ref = a.double() @ b.double() + (bias_v.double() if bias else 0)
    bound = k * 2.0 ** -23 * (a.double().abs() @ b.double().abs() + (bias_v.double().abs() if bias else 0))
    assert_within(c, ref, bound + 2.0 ** -24 * ref.abs())


LEAKY_SOURCE = (Path(__file__).parent.parent / "kernels" / "matmul" / "matmul_leakyrelu.cpp").read_text()


@pytest.fixture(scope="module")
def leaky_kernel():
    return compile_kernel(LEAKY_SOURCE, entry="matmul_leakyrelu", filename="matmul_leakyrelu.cpp", contract=True)


@pytest.mark.parametrize("shape,vector_cores", [((64, 128, 96), 4), ((70, 150, 40), 6)])
def test_matmul_then_leaky_relu_in_a_mixed_kernel(leaky_kernel, shape, vector_cores):
    """KERNEL_TYPE_MIX_AIC_1_2: the AIVs take blocks into a VECIN queue, LeakyRelu them and copy them out; the AICs
    leave at REGIST_MATMUL_OBJ."""
    m, n, k = shape
    tl = leaky_kernel.tiling([[m, n, k], [vector_cores, 100]])
    assert tl.data[4] == 0  # GetTiling's status
    a, b, bias = torch.randn(m, k).half(), torch.randn(k, n).half(), torch.randn(n)
    c = torch.full((m * n,), float("nan"))
    report = leaky_kernel.launch(tl.block_dim, a, b, bias, c, None, tl.data)
    ref = torch.nn.functional.leaky_relu(a.double() @ b.double() + bias.double(), 0.1)
    bound = k * 2.0 ** -23 * (a.double().abs() @ b.double().abs() + bias.double().abs()) + 2.0 ** -22 * ref.abs()
    assert_within(c.reshape(m, n), ref, bound + 1e-6)
    assert sum(core["pipe_busy_ns"]["V"] for core in report.cores) > 0


CUBE_ONLY_SOURCE = r"""
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void cube_only_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace,
                                                       GM_ADDR tilingGm)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    TCubeTiling tiling = *reinterpret_cast<const TCubeTiling*>(tilingGm + 24);  // the contract kernel's bytes
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    GlobalTensor<half> ag, bg;
    GlobalTensor<float> cg;
    int64_t m0 = GetBlockIdx() * tiling.singleCoreM;
    ag.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a) + m0 * tiling.Ka);
    bg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
    cg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c) + m0 * tiling.N);
    mm.SetTensorA(ag);
    mm.SetTensorB(bg);
    mm.IterateAll(cg);
    mm.End();
}
"""


def test_an_aic_only_kernel_computes_on_its_cube_cores(kernel):
    """KERNEL_TYPE_AIC_ONLY: no vector core is there to serve, so the AIC itself runs the API. The 1024 x 1024 x
    1024 half matmul over 8 cube cores must simulate in seconds."""
    import time
    cube = compile_kernel(CUBE_ONLY_SOURCE, entry="cube_only_matmul", filename="cube_only.cpp")
    m = n = k = 1024
    tl = plan(kernel, m, n, k, base=(128, 256, 64))
    f = fields(tl.data)
    data = with_fields(tl.data, singleCoreM=m // 8, usedCoreNum=8)
    a, b = torch.randn(m, k).half(), torch.randn(k, n).half()
    c = torch.zeros(m * n)
    started = time.perf_counter()
    report = cube.launch(8, a, b, c, None, data)
    assert time.perf_counter() - started < 10
    ref = a.double() @ b.double()
    assert_within(c.reshape(m, n), ref, k * 2.0 ** -23 * (a.double().abs() @ b.double().abs()))
    assert f["baseM"] == 128 and f["baseN"] == 256
    cycles = (128 // 16) * (1024 // 16) * (1024 // 16)  # the fractals one core multiplies, one a cycle
    assert report.estimated_ns > cycles / 1.8


FORMS_SOURCE = (Path(__file__).parent.parent / "kernels" / "matmul" / "matmul_forms.cpp").read_text()


@pytest.fixture(scope="module")
def forms_kernel():
    return compile_kernel(FORMS_SOURCE, entry="matmul_forms", filename="matmul_forms.cpp", contract=True)


def run_form(forms_kernel, mode, m=40, n=70, k=24, c_elements=None):
    tl = forms_kernel.tiling([[m, n, k], [mode]])
    assert tl.data[4] == 0  # GetTiling's status
    a, b = torch.randn(m, k).half(), torch.randn(k, n).half()
    c = torch.zeros(c_elements or m * n)
    forms_kernel.launch(1, a, b, c, None, tl.data)
    bound = k * 2.0 ** -23 * (a.double().abs() @ b.double().abs())
    return c, a.double() @ b.double(), bound


def test_public_forms_atomic_add_doubles_the_product(forms_kernel):
    c, ref, bound = run_form(forms_kernel, 0)
    assert_within(c.reshape(40, 70), 2 * ref, 2 * bound)


def test_public_forms_asynchronous_blocks_come_from_the_workspace(forms_kernel):
    blocks = 3 * 3  # [40, 70] in [16, 32] blocks
    c, ref, bound = run_form(forms_kernel, 1, c_elements=blocks * 16 * 32)
    assert_within(place_blocks(c, 40, 70, 16, 32, 0), ref, bound)


def test_public_forms_scalar_a_sums_b_over_k(forms_kernel):
    m, n, k = 40, 70, 24
    tl = forms_kernel.tiling([[m, n, k], [2]])
    b = torch.randn(k, n).half()
    c = torch.zeros(m * n)
    forms_kernel.launch(1, torch.zeros(m, k).half(), b, c, None, tl.data)
    expected = b.double().sum(0).expand(m, n)
    assert_within(c.reshape(m, n), expected, k * 2.0 ** -23 * b.double().abs().sum(0).expand(m, n))


def test_public_forms_c_wider_than_b_with_set_org_shape(forms_kernel):
    c, ref, bound = run_form(forms_kernel, 3, c_elements=40 * 78)
    c = c.reshape(40, 78)
    assert_within(c[:, :70], ref, bound)
    assert (c[:, 70:] == 0).all()


def test_public_forms_two_objects_in_one_registration(forms_kernel):
    c, ref, bound = run_form(forms_kernel, 4, c_elements=2 * 40 * 70)
    c = c.reshape(2, 40, 70)
    assert_within(c[0], ref, bound)
    assert torch.equal(c[0], c[1])


def test_a_single_core_shape_past_the_matrix_is_reported(forms_kernel):
    tl = forms_kernel.tiling([[40, 70, 24], [0]])
    data = bytearray(tl.data)
    struct.pack_into("<i", data, 8 + 4 * TCUBE_FIELDS.index("singleCoreM"), 56)
    a, b, c = torch.randn(40, 24).half(), torch.randn(24, 70).half(), torch.zeros(40 * 70)
    e = expect_error("bad_argument", forms_kernel.launch, 1, a, b, c, None, bytes(data))
    assert "singleCoreM is 56 but must be in 1..M = 40" in e.message, e.message


UNSUPPORTED_SOURCE = r"""
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void half_to_int32(GM_ADDR tilingGm)
{
    TCubeTiling tiling = *reinterpret_cast<const TCubeTiling*>(tilingGm);
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, int32_t>> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);  // @unsupported
}
"""


def test_a_type_combination_the_api_lacks_is_reported(kernel):
    bad = compile_kernel(UNSUPPORTED_SOURCE, entry="half_to_int32", filename="half_to_int32.cpp")
    cube = plan(kernel, 32, 32, 32).data[HEADER_BYTES:]
    e = expect_error("unsupported_dtype", bad.launch, 1, cube)
    assert "A half, B half and C int32_t" in e.message
    assert e.line == marked_line(UNSUPPORTED_SOURCE, "@unsupported")


def test_public_forms_c_in_nz_is_fractals_of_16_columns(forms_kernel):
    """NZ C (Matmul使用说明.md table 3): columns in groups of 16, each group every row (rounded up to 16) of 16."""
    m, n = 40, 70  # k = 24 in the kernel
    m16, n16 = 48, 80
    c, ref, bound = run_form(forms_kernel, 5, c_elements=n16 * m16)
    nz = c.reshape(n16 // 16, m16, 16).permute(1, 0, 2).reshape(m16, n16)
    assert_within(nz[:m, :n], ref, bound)
    assert (nz[m:, :] == 0).all() and (nz[:, n:] == 0).all()


CO1_SOURCE = r"""
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void co1_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace,
                                                 GM_ADDR tilingGm)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    TCubeTiling tiling = *reinterpret_cast<const TCubeTiling*>(tilingGm + 24);
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::CO1, CubeFormat::NZ, float>> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    TQue<TPosition::CO1, 1> co1;
    pipe.InitBuffer(co1, 1, tiling.baseM * tiling.baseN * sizeof(float));
    GlobalTensor<half> ag, bg;
    GlobalTensor<float> cg;
    ag.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a));
    bg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
    cg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c));
    mm.SetTensorA(ag);
    mm.SetTensorB(bg);
    int32_t mIter = (tiling.M + tiling.baseM - 1) / tiling.baseM, count = 0;
    while (true) {
        LocalTensor<float> l0c = co1.AllocTensor<float>();
        if (!mm.Iterate(false, l0c)) {
            co1.FreeTensor(l0c);
            break;
        }
        co1.EnQue(l0c);
        l0c = co1.DeQue<float>();
        int32_t bm = count % mIter, bn = count / mIter;
        int32_t rows = tiling.M - bm * tiling.baseM < tiling.baseM ? tiling.M - bm * tiling.baseM : tiling.baseM;
        int32_t cols = tiling.N - bn * tiling.baseN < tiling.baseN ? tiling.N - bn * tiling.baseN : tiling.baseN;
        FixpipeParamsV220 params(uint16_t(cols), uint16_t(rows), uint16_t((rows + 15) / 16 * 16),
                                 uint32_t(tiling.N), false);
        Fixpipe(cg[bm * tiling.baseM * tiling.N + bn * tiling.baseN], l0c, params);
        co1.FreeTensor(l0c);
        ++count;
    }
    mm.End();
}
"""


def test_a_user_managed_co1_block_leaves_through_fixpipe(kernel):
    """Matmul使用说明.md's third way: Iterate(false, l0cTensor) into the kernel's CO1 queue tensor, then Fixpipe."""
    co1 = compile_kernel(CO1_SOURCE, entry="co1_matmul", filename="co1_matmul.cpp")
    m, n, k = 40, 70, 48
    tl = plan(kernel, m, n, k, base=(32, 32, 16))
    a, b = torch.randn(m, k).half(), torch.randn(k, n).half()
    c = torch.zeros(m * n)
    co1.launch(1, a, b, c, None, tl.data)
    assert_within(c.reshape(m, n), a.double() @ b.double(), k * 2.0 ** -23 * (a.double().abs() @ b.double().abs()))


def test_a_transpose_the_matmul_type_does_not_allow_is_reported(forms_kernel):
    """SetTensorB.md: with the MatmulType's ISTRANS false, isTransposeB true gives wrong results."""
    e = expect_error("bad_argument", run_form, forms_kernel, 6)
    assert "ISTRANS = false" in e.message and e.line == marked_line(FORMS_SOURCE, "@transpose_b")
