"""The cube instructions (sim/cube_copy.h, sim/mmad.h, sim/fixpipe.h): a matmul written with them alone matches
torch for every input type, with tails in M, N and K and several blocks; the ND -> NZ layout matches the page's own
example; the cube rules (fractal alignment, dtype combinations, L0 room, MTE1 -> M and M -> FIX synchronisation)
are reported at the kernel line."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

KERNELS = Path(__file__).resolve().parent.parent / "kernels" / "cube"
MATMUL = (KERNELS / "matmul_lowlevel.cpp").read_text()
RULES = (KERNELS / "cube_rules.cpp").read_text()

# 随路转换ND2NZ搬运.md's example: a 32 x 32 half matrix, GM -> VECIN with Nd2NzParams{1, 32, 32, 0, 32, 32, 1, 0}.
ND2NZ_EXAMPLE = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void nd2nz_example(GM_ADDR src, GM_ADDR dst)
{
    GlobalTensor<half> srcGm, dstGm;
    srcGm.SetGlobalBuffer((__gm__ half*)src);
    dstGm.SetGlobalBuffer((__gm__ half*)dst);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    pipe.InitBuffer(inQueue, 1, 32 * 32 * sizeof(half));
    LocalTensor<half> local = inQueue.AllocTensor<half>();
    Nd2NzParams params{1, 32, 32, 0, 32, 32, 1, 0};
    DataCopy(local, srcGm, params);
    inQueue.EnQue(local);
    local = inQueue.DeQue<half>();
    DataCopy(dstGm, local, 32 * 32);
    inQueue.FreeTensor(local);
}
"""


@pytest.fixture(scope="session")
def matmul():
    return compile_kernel(MATMUL, "cube_matmul", filename="matmul_lowlevel.cpp")


@pytest.fixture(scope="session")
def rules():
    return compile_kernel(RULES, "cube_rules", filename="cube_rules.cpp")


def float_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def fixpipe_scale(bits: int) -> float:
    """The scale the Fixpipe applies: the float of the low 32 bits with 13 mantissa bits cleared (Fixpipe.md)."""
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFE000))[0]


# mode: (input dtype, output dtype, B passed transposed)
MODES = {
    "half->float": (0, torch.half, torch.float32),
    "half->half (F322F16)": (1, torch.half, torch.half),
    "bfloat16->float": (2, torch.bfloat16, torch.float32),
    "int8->int32": (3, torch.int8, torch.int32),
    "float (B transposed)->float": (4, torch.float32, torch.float32),
    "int8->half (DEQF16)": (5, torch.int8, torch.half),
    "half->float ReLU": (6, torch.half, torch.float32),
    "int8->half (VDEQF16)": (7, torch.int8, torch.half),
}

# (M, N, K, baseM, baseN, baseK, blocks): tails in every dimension, a one-row tile (GEMV), more tiles than blocks.
SHAPES = [
    (50, 40, 70, 32, 32, 64, 4),
    (33, 70, 100, 32, 48, 32, 3),
    (64, 64, 64, 64, 64, 64, 1),
]


def inputs(mode: int, in_dtype: torch.dtype, m: int, n: int, k: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    if in_dtype == torch.int8:
        a = torch.randint(-128, 128, (m, k), dtype=torch.int8, generator=g)
        b = torch.randint(-128, 128, (k, n), dtype=torch.int8, generator=g)
    else:
        a = torch.randn(m, k, generator=g).to(in_dtype)
        b = torch.randn(k, n, generator=g).to(in_dtype)
    return a, b


def column_scales(n: int) -> torch.Tensor:
    """VDEQF16's scale per column: float bits in the low 32 bits of a uint64_t (held as int64)."""
    values = torch.linspace(0.0005, 0.004, n)
    return values.view(torch.int32).to(torch.int64)


def reference(mode: int, a: torch.Tensor, b: torch.Tensor, scale_bits: int) -> torch.Tensor:
    ref = a.double() @ b.double()
    if mode == 5:
        ref = ref * fixpipe_scale(scale_bits)
    if mode == 7:
        n = b.shape[1]
        ref = ref * torch.tensor([fixpipe_scale(int(bits)) for bits in column_scales(n + 4)[:n]], dtype=torch.float64)
    if mode == 6:
        ref = ref.clamp(min=0)
    return ref


def tolerance(mode: int, out_dtype: torch.dtype, a: torch.Tensor, b: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """Float sums of k products (each exact) err by at most k * 2^-24 * sum |a_i b_i|; the output rounds once more
    (half: 2^-11 relative, plus half's smallest subnormal). int8 sums are exact int32."""
    if out_dtype == torch.int32:
        return torch.zeros_like(ref)
    k = a.shape[1]
    magnitude = a.double().abs() @ b.double().abs()
    if mode in (5, 7):
        magnitude = magnitude * 0.0  # int32 sums are exact; only the scale and the rounding to half err
    accumulate = k * 2.0**-24 * magnitude
    rounding = {torch.float32: 2.0**-24, torch.half: 2.0**-10}[out_dtype] * ref.abs() + 2.0**-24
    return accumulate + rounding


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[:3])) + f"-b{s[-1]}")
@pytest.mark.parametrize("name", list(MODES))
def test_a_matmul_of_cube_instructions_matches_torch(matmul, name, shape):
    mode, in_dtype, out_dtype = MODES[name]
    m, n, k, base_m, base_n, base_k, blocks = shape
    a, b = inputs(mode, in_dtype, m, n, k, seed=hash((name, shape)) % 1000)
    scale_bits = float_bits(0.00123)
    c = torch.full((m, n), 7, dtype=out_dtype)
    b_arg = b.t().contiguous() if mode == 4 else b
    scales = column_scales(n + 4)  # room for the last tile's copy of whole 32-byte blocks
    matmul.launch(blocks, a, b_arg, c, scales, mode, m, n, k, base_m, base_n, base_k, scale_bits)
    ref = reference(mode, a, b, scale_bits)
    error = (c.double() - ref).abs()
    bound = tolerance(mode, out_dtype, a, b, ref)
    assert bool((error <= bound).all()), f"max error {error.max().item()} at {divmod(int(error.argmax()), n)}"


def test_the_nd_to_nz_copy_lays_out_the_pages_example():
    kernel = compile_kernel(ND2NZ_EXAMPLE, "nd2nz_example", filename="nd2nz_example.cpp")
    src = torch.arange(1, 1025, dtype=torch.float32).half()
    dst = torch.zeros(1024, dtype=torch.half)
    kernel.launch(1, src, dst)
    # The page: [1 2 ... 15 16 33 34 ... 47 48 65 66 ...]: each row's first 16 elements, row after row, then the
    # second 16 of every row.
    expected = src.view(32, 2, 16).permute(1, 0, 2).reshape(-1)
    assert torch.equal(dst, expected)


def line_of(source: str, needle: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if needle in line)


def run_rules(kernel, mode: int, bias: torch.Tensor | None = None):
    g = torch.Generator().manual_seed(mode)
    a = torch.randn(16, 32, generator=g).half()
    b = torch.randn(32, 16, generator=g).half()
    c = torch.zeros(16, 16)
    kernel.launch(1, a, b, torch.zeros(16) if bias is None else bias, c, mode)
    return a, b, c


def test_the_rules_kernel_with_its_flags_computes_the_product(rules):
    a, b, c = run_rules(rules, 0)
    ref = a.double() @ b.double()
    assert torch.allclose(c.double(), ref, rtol=0, atol=1e-4)


def test_a_bias_row_in_the_bias_table_is_added_to_every_row(rules):
    bias = torch.randn(16, generator=torch.Generator().manual_seed(3)) * 10
    a, b, c = run_rules(rules, 8, bias)
    assert torch.allclose(c.double(), a.double() @ b.double() + bias.double(), rtol=0, atol=1e-4)


def test_a_half_bias_is_widened_to_float_on_its_way_into_the_bias_table(rules):
    bias = (torch.randn(16, generator=torch.Generator().manual_seed(4)) * 10).half()
    packed = torch.zeros(16)
    packed.view(torch.half)[:16] = bias
    a, b, c = run_rules(rules, 10, packed)
    assert torch.allclose(c.double(), a.double() @ b.double() + bias.double(), rtol=0, atol=1e-4)


def test_unit_flag_hands_the_mmad_result_to_the_fixpipe_without_a_flag(rules):
    a, b, c = run_rules(rules, 11)
    assert torch.allclose(c.double(), a.double() @ b.double(), rtol=0, atol=1e-4)


def test_init_const_value_fills_whole_fractals(rules):
    a, b, c = run_rules(rules, 12)
    expected = a[:, :16].double() @ b[:16].double() + 16 * 1 * 2
    assert torch.allclose(c.double(), expected, rtol=0, atol=1e-4)


def test_fixpipe_under_set_atomic_add_accumulates_into_gm(rules):
    a, b, c = run_rules(rules, 13)
    assert torch.allclose(c.double(), 2 * (a.double() @ b.double()), rtol=0, atol=2e-4)


def test_mmad_with_cmatrix_init_val_false_accumulates_into_l0c(rules):
    a, b, c = run_rules(rules, 9)
    assert torch.allclose(c.double(), 2 * (a.double() @ b.double()), rtol=0, atol=2e-4)


RULE_CASES = {
    1: ("cube_alignment", "LoadData(mode == 1", "not a multiple of 512 bytes"),
    2: ("cube_dtype", "Mmad(c1Half", "dst half, fm half, filter half"),
    3: ("local_overrun", "mode == 3 ? 2 * K", "fm (A) needs 2048 bytes"),
    4: ("pipe_race", "mode == 3 ? 2 * K", "the MTE1 pipe wrote"),
    5: ("pipe_race", "Fixpipe(cGm, c1, fix)", "the M pipe wrote"),
    6: ("cube_dtype", "Fixpipe(cGm, c1, fix)", "F322F16 does not turn float into float"),
    7: ("bad_argument", "LoadData(mode == 7", "A1->A2 or B1->B2 only (Load2D.md), not B1->A1"),
}


@pytest.mark.parametrize("mode", list(RULE_CASES))
def test_cube_rules_are_reported_at_the_kernel_line(rules, mode):
    kind, needle, text = RULE_CASES[mode]
    with pytest.raises(SimulatorError) as raised:
        run_rules(rules, mode)
    error = raised.value
    assert (error.kind, error.line) == (kind, line_of(RULES, needle)), str(error)
    assert text in str(error)


CHAIN = (KERNELS / "cube_chain.cpp").read_text()


def test_a_product_kept_in_l1_feeds_the_next_mmad_and_every_fixpipe_output_agrees():
    kernel = compile_kernel(CHAIN, "cube_chain", filename="cube_chain.cpp")
    g = torch.Generator().manual_seed(11)
    a, b, d = (torch.randn(32, 32, generator=g).half() for _ in range(3))
    p_half, q, p_float = torch.zeros(32, 32, dtype=torch.half), torch.zeros(32, 32), torch.zeros(32, 32)
    p8 = torch.zeros(32, 32, dtype=torch.int8)
    scale_bits = float_bits(20.0)
    kernel.launch(1, a, b, d, p_half, q, p8, p_float, scale_bits)
    p = a.double() @ b.double()
    assert torch.allclose(p_float.double(), p, rtol=0, atol=1e-4)  # DataCopy(GM, CO1) with NZ2ND
    assert torch.equal(p_half, p_float.half())  # F322F16 rounds to nearest even, as torch does
    expected8 = torch.round(p_float.double() * fixpipe_scale(scale_bits)).clamp(-128, 127).to(torch.int8)
    assert torch.equal(p8, expected8)
    assert bool((p8 == 127).any() and (p8 == -128).any()), "the scale should drive some values into saturation"
    assert torch.allclose(q.double(), d.double() @ p_half.double(), rtol=0, atol=1e-3)


CONV = (KERNELS / "conv_img2col.cpp").read_text()


@pytest.fixture(scope="session")
def conv():
    return compile_kernel(CONV, "conv_img2col", filename="conv_img2col.cpp")


# (H, W, C, K, stride, dilation, pad)
CONV_CASES = [(6, 7, 16, 3, 1, 1, 1), (9, 8, 32, 3, 2, 2, 2), (5, 5, 16, 1, 1, 1, 0)]


@pytest.mark.parametrize("via_registers", [0, 1], ids=["params", "registers"])
@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: "h{}w{}c{}k{}s{}d{}p{}".format(*c))
def test_img2col_load_and_one_mmad_compute_a_convolution(conv, case, via_registers):
    h, w, c, k, stride, dilation, pad = case
    g = torch.Generator().manual_seed(sum(case))
    x = torch.randn(c, h, w, generator=g).half()
    weight = torch.randn(16, c, k, k, generator=g).half()
    ref = torch.nn.functional.conv2d(x.double()[None], weight.double(), stride=stride, padding=pad,
                                     dilation=dilation)[0]
    ho, wo = ref.shape[1:]
    x_nc1hwc0 = x.view(c // 16, 16, h, w).permute(0, 2, 3, 1).contiguous()
    w_c1khkwnc0 = weight.view(16, c // 16, 16, k, k).permute(1, 3, 4, 0, 2).contiguous()
    y = torch.zeros(ho * wo, 16)
    conv.launch(1, x_nc1hwc0, w_c1khkwnc0, y, h, w, c, k, stride, dilation, pad, ho * wo, via_registers)
    expected = ref.permute(1, 2, 0).reshape(ho * wo, 16)
    assert torch.allclose(y.double(), expected, rtol=0, atol=1e-3 * c * k * k / 16)


OLDER_FORMS = (KERNELS / "cube_older_forms.cpp").read_text()


def test_older_spellings_load3d_into_l0b_is_bias_mmad_and_the_v200_fixpipe_match_torch():
    kernel = compile_kernel(OLDER_FORMS, "cube_older_forms", filename="cube_older_forms.cpp")
    m, k, n, gap = 32, 32, 48, 2
    g = torch.Generator().manual_seed(5)
    a, b, e = torch.randn(m, k, generator=g).half(), torch.randn(k, n, generator=g).half(), torch.randn(
        k, n, generator=g).half()
    column = m * 16 + gap * 8  # floats from one NZ column's start to the next (burst + dstStride blocks)
    y_half, y_nz = torch.zeros(m, n, dtype=torch.half), torch.full(((n // 16 - 1) * column + m * 16,), -7.0)
    kernel.launch(1, a, b, e, y_half, y_nz)
    p = a.double() @ b.double() + a.double() @ e.double()  # isBias: the second Mmad adds to L0C
    columns = torch.stack([y_nz[c * column:c * column + m * 16].view(m, 16) for c in range(n // 16)])
    assert torch.allclose(columns.permute(1, 0, 2).reshape(m, n).double(), p, rtol=0, atol=1e-3)
    gaps = torch.cat([y_nz[c * column + m * 16:(c + 1) * column] for c in range(n // 16 - 1)])
    assert bool((gaps == -7.0).all()), "the dstStride gap between NZ columns must stay untouched"
    assert torch.equal(y_half, columns.permute(1, 0, 2).reshape(m, n).half())  # NZ2ND with F322F16


OLDER_REFUSALS = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void older_refusals(uint32_t mode)
{
    TPipe pipe;
    TBuf<TPosition::B1> b1Buf;
    TBuf<TPosition::B2> b2Buf;
    TBuf<TPosition::CO1> c1Buf;
    pipe.InitBuffer(b1Buf, 4096);
    pipe.InitBuffer(b2Buf, 4096);
    pipe.InitBuffer(c1Buf, 4096);
    if (mode == 0) {
        LoadData3DParamsV2<float> params;
        params.l1H = 1;
        params.l1W = 16;
        params.channelSize = 16;
        params.kExtension = 16;
        params.mExtension = 16;
        LoadData(b2Buf.Get<float>(), b1Buf.Get<float>(), params);  // float into B2
    } else {
        DataCopyEnhancedParams enhanced;
        enhanced.blockMode = BlockMode::BLOCK_MODE_MATRIX;
        DataCopy(b1Buf.Get<half>(), c1Buf.Get<float>(), DataCopyParams(1, 1, 0, 0), enhanced);  // CO1 -> L1
    }
}
"""


@pytest.fixture(scope="session")
def older_refusals():
    return compile_kernel(OLDER_REFUSALS, "older_refusals", filename="older_refusals.cpp")


@pytest.mark.parametrize("mode, kind, text", [
    (0, "unsupported_api", "Load3Dv2 into B2 is simulated for half and bfloat16_t only"),
    (1, "bad_argument", "Atlas A2/A3 have no CO1 -> CO2 copy"),
], ids=["load3d-float-into-b2", "enhanced-co1-copy-on-a2"])
def test_the_older_forms_without_a_documented_a2_meaning_stop_with_the_reason(older_refusals, mode, kind, text):
    with pytest.raises(SimulatorError) as raised:
        older_refusals.launch(1, mode)
    assert raised.value.kind == kind and text in str(raised.value), str(raised.value)
