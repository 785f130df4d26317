"""int4b_t (sim/types.h, tensor.h, cast.h, data_copy.h): tensors of two elements per byte, Cast half <-> int4b_t
(Cast.md table 4: every round mode to int4b_t, saturating; CAST_NONE back) and DataCopy of int4b_t tensors (counts in
elements, bytes = n / 2), against torch; and ggml's get_row_q4_0 with its short copy lengthened.

Element 2k is the low nibble of byte k (an assumption: the pages do not say; ggml's Q4_0 kernels read it so).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
from pathlib import Path

import pytest
import torch

from kernel_checks import expect_error, marked_line
from torch_ascendgen.targets.sim.simulator import compile_kernel

N = 128  # elements per launch: 64 bytes of int4b_t
CAST, FROM_GM, ODD_COUNT, SHORT_COPY, LEVEL0, GET_VALUE, ODD_OFFSET, SIZES, PAD_COPY, PAD_SIDES, DUMP = range(11)

SOURCE = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void int4_kernel(GM_ADDR x, GM_ADDR packedIn, GM_ADDR packedOut, GM_ADDR y,
                                                  uint32_t n, uint32_t mode, uint32_t op, uint32_t offset)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, qb, yb;
    pipe.InitBuffer(xb, n * sizeof(half));
    pipe.InitBuffer(qb, n * sizeof(int8_t) / 2);  // Cast.md: half the int8_t space
    pipe.InitBuffer(yb, n * sizeof(half));
    LocalTensor<half> xl = xb.Get<half>(), yl = yb.Get<half>();
    LocalTensor<int4b_t> q = qb.Get<int8_t>().ReinterpretCast<int4b_t>();
    GlobalTensor<half> xGm, yGm;
    GlobalTensor<int4b_t> inGm, outGm;
    xGm.SetGlobalBuffer((__gm__ half*)x);
    yGm.SetGlobalBuffer((__gm__ half*)y);
    inGm.SetGlobalBuffer((__gm__ int4b_t*)packedIn);
    outGm.SetGlobalBuffer((__gm__ int4b_t*)packedOut);
    RoundMode roundMode = static_cast<RoundMode>(mode);
    if (op == 0) {
        DataCopy(xl, xGm, n);
        PipeBarrier<PIPE_ALL>();
        Cast(q, xl, roundMode, n);  // @cast_to_int4
        PipeBarrier<PIPE_ALL>();
        DataCopy(outGm, q, n);
    } else if (op == 1) {
        DataCopy(q, inGm[offset], n);
    } else if (op == 2) {
        Cast(q, xl, roundMode, n - 1);  // @cast_odd
    } else if (op == 3) {
        DataCopy(q, inGm, 32);  // @copy_short
    } else if (op == 4) {
        Cast(q, xl, roundMode, 128, 1, {1, 1, 2, 8});  // @level0
    } else if (op == 5) {
        q.GetValue(0);  // @get_value
    } else if (op == 6) {
        DataCopy(q, inGm[1], n);  // @odd_offset
    } else if (op == 8) {
        DataCopyExtParams bytes16{1, 16, 0, 0, 0};  // 32 elements of int4b_t
        DataCopyPad(q, inGm[offset], bytes16, DataCopyPadExtParams<int4b_t>{false, 0, 0, int4b_t(0)});
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(outGm[offset], q, bytes16);
        return;
    } else if (op == 10) {
        DataCopy(q, inGm, n);
        PipeBarrier<PIPE_ALL>();
        DumpTensor(q, 9, 6);
        DumpTensor(inGm[offset], 10, 4);
        return;
    } else if (op == 9) {
        DataCopyPadExtParams<int4b_t> sides{true, 2, 0, int4b_t(3)};
        DataCopyPad(q, inGm, DataCopyExtParams{1, 16, 0, 0, 0}, sides);  // @pad_sides
        return;
    } else {
        yl.SetValue(0, (half)(float)q.GetSize());
        yl.SetValue(1, (half)(float)q.ReinterpretCast<int8_t>().GetSize());
        yl.SetValue(2, (half)(float)q[64].GetSize());
        yl.SetValue(3, (half)(float)(q[64].GetPhyAddr() - q.GetPhyAddr()));
        yl.SetValue(4, (half)(float)sizeof(int4b_t));
        PipeBarrier<PIPE_ALL>();
        DataCopy(yGm, yl, n);
        return;
    }
    PipeBarrier<PIPE_ALL>();
    Cast(yl, q, RoundMode::CAST_NONE, n);  // @cast_to_half
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, yl, n);
}
"""

MODES = {"CAST_NONE": 0, "CAST_RINT": 1, "CAST_FLOOR": 2, "CAST_CEIL": 3, "CAST_ROUND": 4, "CAST_TRUNC": 5}


@pytest.fixture(scope="module")
def kernel():
    return compile_kernel(SOURCE, entry="int4_kernel")


def line_of(marker: str) -> int:
    return marked_line(SOURCE, marker)


def rounded(x: torch.Tensor, mode: str) -> torch.Tensor:
    """x (float32) rounded per the Cast.md mode, saturated to int4b_t's [-8, 7]; NaN becomes 0."""
    r = {"CAST_NONE": torch.round, "CAST_RINT": torch.round, "CAST_FLOOR": torch.floor, "CAST_CEIL": torch.ceil,
         "CAST_TRUNC": torch.trunc, "CAST_ROUND": lambda v: torch.sign(v) * torch.floor(v.abs() + 0.5)}[mode](x)
    return torch.nan_to_num(r, nan=0.0).clamp(-8, 7).to(torch.int16)


def pack(q: torch.Tensor) -> torch.Tensor:
    nib = q.reshape(-1, 2) & 0xF
    return (nib[:, 0] | (nib[:, 1] << 4)).to(torch.uint8)


def run(kernel, op: int, *, x=None, packed=None, mode=0, offset=0, soc=None, report=False):
    x = torch.zeros(N, dtype=torch.float16) if x is None else x
    packed = torch.zeros(N, dtype=torch.uint8) if packed is None else packed
    out = torch.zeros(N // 2, dtype=torch.uint8)
    y = torch.zeros(N, dtype=torch.float16)
    result = kernel.launch(1, x, packed, out, y, N, mode, op, offset, soc=soc)
    return result if report else (out, y)


@pytest.mark.parametrize("mode", list(MODES))
def test_cast_half_to_int4_rounds_saturates_and_packs(kernel, mode):
    g = torch.Generator().manual_seed(MODES[mode])
    x = ((torch.rand(N, generator=g) - 0.5) * 24).half()
    x[:6] = torch.tensor([1.5, 2.5, -1.5, -2.5, 100.0, float("nan")], dtype=torch.float16)
    out, y = run(kernel, CAST, x=x, mode=MODES[mode])
    q = rounded(x.float(), mode)
    assert torch.equal(out, pack(q))
    assert torch.equal(y, q.half())  # back through Cast int4b_t -> half


def test_cast_page_example_for_int4(kernel):
    """Cast.md: 1.5 to int4b_t gives 2 (RINT), 1 (FLOOR), 2 (CEIL), 2 (ROUND), 1 (TRUNC)."""
    x = torch.full((N,), 1.5, dtype=torch.float16)
    got = [run(kernel, CAST, x=x, mode=MODES[m])[1][0].item() for m in
           ("CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC")]
    assert got == [2, 1, 2, 2, 1]


def test_datacopy_counts_int4_elements_and_offsets_by_bytes(kernel):
    """GlobalTensor<int4b_t>[64] starts 32 bytes in; DataCopy of 128 elements moves 64 bytes."""
    g = torch.Generator().manual_seed(3)
    q = torch.randint(-8, 8, (2 * N,), generator=g, dtype=torch.int16)
    _, y = run(kernel, FROM_GM, packed=pack(q), offset=64)
    assert torch.equal(y, q[64:64 + N].half())


def test_datacopypad_moves_int4_bytes(kernel):
    """blockLen is in bytes: 16 bytes carry 32 elements, to and from GM offsets given in elements."""
    packed = torch.arange(N, dtype=torch.uint8)
    out, _ = run(kernel, PAD_COPY, packed=packed, offset=64)
    assert torch.equal(out[32:48], packed[32:48]) and (out[:32] == 0).all() and (out[48:] == 0).all()


def test_dump_tensor_prints_int4_elements(kernel):
    q = torch.tensor([1, -2, 7, -8, 0, 3, 5, -1] * (N // 8), dtype=torch.int16)
    text = run(kernel, DUMP, packed=pack(q), offset=2, report=True).debug_text
    assert "desc=9," in text and "data_type=DT_INT4" in text and "[1, -2, 7, -8, 0, 3]" in text
    assert "desc=10," in text and "[7, -8, 0, 3]" in text  # from element 2 of the GlobalTensor


def test_tensor_sizes_count_elements(kernel):
    _, y = run(kernel, SIZES)
    assert y[:5].tolist() == [N, N // 2, N - 64, 32, 1]


@pytest.mark.parametrize("op,kind,marker,words", [
    (ODD_COUNT, "bad_argument", "@cast_odd", "must be even"),
    (SHORT_COPY, "datacopy_alignment", "@copy_short", "16 bytes"),
    (LEVEL0, "unsupported_api", "@level0", "count form"),
    (GET_VALUE, "unsupported_api", "@get_value", "int8_t"),
    (ODD_OFFSET, "bad_argument", "@odd_offset", "odd number of elements"),
    (PAD_SIDES, "unsupported_api", "@pad_sides", "half bytes"),
])
def test_int4_rules_name_the_kernel_line(kernel, op, kind, marker, words):
    e = expect_error(kind, run, kernel, op)
    assert words in e.message and e.line == line_of(marker), e.message


def test_int4_cast_is_not_on_310p(kernel):
    e = expect_error("unsupported_dtype", run, kernel, CAST, soc="Ascend310P3")
    assert "int4b_t" in e.message and e.line == line_of("@cast_to_int4")


# ---- ggml's get_row_q4_0 (MIT), vendored in the fidelity suite --------------------------------------------------

FIDELITY = Path(__file__).resolve().parents[2] / "benchmarks" / "fidelity"


def fidelity_runner():
    if str(FIDELITY) not in sys.path:
        sys.path.insert(0, str(FIDELITY))  # run.py imports its siblings by name
    spec = importlib.util.spec_from_file_location("fidelity_run_int4", FIDELITY / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module


def test_ggml_get_row_q4_0_matches_torch_once_its_copy_is_whole_blocks():
    """The suite expects datacopy_alignment (a 16-byte DataCopy); with 64 elements copied (32 bytes, reading 16 bytes
    further into the same GM buffer) the dequantised rows match the suite's torch reference, through the runner."""
    run = fidelity_runner()
    case = next(c for c in run.CASES if c.id == "ggml-org/get_row_q4_0")
    if not run.fetched(case):
        pytest.skip("the fidelity kernels are not fetched here (python benchmarks/fidelity/vendor.py --mirrors <dir>)")
    source = (FIDELITY / "kernels" / case.repo / case.path).read_text()
    patched, hits = re.subn(r"DataCopy\(input_local, input_gm\[offset\], QK4_0\)",
                            "DataCopy(input_local, input_gm[offset], 2 * QK4_0)", source)
    assert hits == 1
    variant = dataclasses.replace(case.variants[0], diagnostic="")
    kernel = compile_kernel(patched, entry=variant.entry, filename="get_row_q4_0.cpp")
    assert run.run_variant(kernel, variant) == ("", "")
    # and unpatched, the runner sees the expected diagnostic
    assert run.run_variant(compile_kernel(source, entry=variant.entry), case.variants[0]) == ("", "")


# ---- AscendAntiQuant with int4b_t src (AscendAntiQuant.md: int8_t, int4b_t on A2/A3) -------------------------------

ANTI_QUANT = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void anti_quant_int4(GM_ADDR src, GM_ADDR params, GM_ADDR dst, uint32_t k,
                                                      uint32_t n, uint32_t groups, uint32_t transposed,
                                                      uint32_t perTensor)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> sb, ob, cb, db, tb;
    uint32_t paramCount = groups * n;
    pipe.InitBuffer(sb, k * n / 2);
    pipe.InitBuffer(ob, paramCount * sizeof(half));
    pipe.InitBuffer(cb, paramCount * sizeof(half));
    pipe.InitBuffer(db, k * n * sizeof(half));
    pipe.InitBuffer(tb, 1024);
    LocalTensor<int4b_t> s = sb.Get<int4b_t>();
    LocalTensor<half> offset = ob.Get<half>(), scale = cb.Get<half>(), d = db.Get<half>();
    GlobalTensor<int4b_t> srcGm;
    GlobalTensor<half> paramGm, dstGm;
    srcGm.SetGlobalBuffer((__gm__ int4b_t*)src);
    paramGm.SetGlobalBuffer((__gm__ half*)params);
    dstGm.SetGlobalBuffer((__gm__ half*)dst);
    DataCopy(s, srcGm, k * n);
    DataCopy(offset, paramGm, paramCount);
    DataCopy(scale, paramGm[paramCount], paramCount);
    PipeBarrier<PIPE_ALL>();
    LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
    if (perTensor) {
        AscendAntiQuant<int4b_t, half, false>(d, s, offset.GetValue(0), scale.GetValue(0), tmp, k);  // @anti_tensor
    } else if (transposed) {
        AntiQuantShapeInfo info = {n, groups, n, groups};
        AscendAntiQuant<int4b_t, half, true>(d, s, offset, scale, tmp, k, info);
    } else {
        AntiQuantShapeInfo info = {groups, n, groups, n};
        AscendAntiQuant<int4b_t, half, false>(d, s, offset, scale, tmp, k, info);  // @anti_channel
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(dstGm, d, k * n);
}
"""


@pytest.fixture(scope="module")
def anti_kernel():
    return compile_kernel(ANTI_QUANT, entry="anti_quant_int4")


def anti_quant(anti_kernel, q, offset, scale, k, n, groups, *, transposed=0, per_tensor=0, soc=None):
    dst = torch.zeros(k * n, dtype=torch.float16)
    params = torch.cat([offset.reshape(-1), scale.reshape(-1)]).half()
    anti_kernel.launch(1, pack(q.reshape(-1)), params, dst, k, n, groups, transposed, per_tensor, soc=soc)
    return dst


@pytest.mark.parametrize("transposed", [0, 1])
def test_anti_quant_int4_per_channel_matches_torch(anti_kernel, transposed):
    g = torch.Generator().manual_seed(5 + transposed)
    k, n, groups = 128, 16, 4
    q = torch.randint(-8, 8, (k, n) if not transposed else (n, k), generator=g, dtype=torch.int16)
    shape = (groups, n) if not transposed else (n, groups)
    offset = ((torch.rand(shape, generator=g) - 0.5) * 4).half()
    scale = (torch.rand(shape, generator=g) + 0.5).half()
    dst = anti_quant(anti_kernel, q, offset, scale, k, n, groups, transposed=transposed)
    # src [K, N] with offset/scale [K / groupSize, N]; transposed src [N, K] with [N, K / groupSize]
    axis = 1 if transposed else 0
    offset_full, scale_full = (t.repeat_interleave(k // groups, dim=axis) for t in (offset, scale))
    expected = (q.half() + offset_full) * scale_full  # half steps, as the page's Add then Mul
    assert torch.equal(dst.reshape(expected.shape), expected)


def test_anti_quant_int4_per_tensor_matches_torch(anti_kernel):
    g = torch.Generator().manual_seed(9)
    k, n = 64, 32
    q = torch.randint(-8, 8, (k, n), generator=g, dtype=torch.int16)
    offset, scale = torch.full((1, n), 1.5), torch.full((1, n), -0.25)
    dst = anti_quant(anti_kernel, q, offset, scale, k, n, 1, per_tensor=1)
    assert torch.equal(dst.reshape(k, n), (q.half() + 1.5) * -0.25)


def test_anti_quant_int4_is_not_on_310p(anti_kernel):
    q = torch.zeros(64, 32, dtype=torch.int16)
    e = expect_error("unsupported_dtype", anti_quant, anti_kernel, q, torch.zeros(1, 32), torch.ones(1, 32), 64, 32,
                     1, per_tensor=1, soc="Ascend310P3")
    assert "int4b_t" in e.message and e.line == marked_line(ANTI_QUANT, "@anti_tensor")
