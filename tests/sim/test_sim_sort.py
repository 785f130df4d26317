"""Sorting APIs (sim/sort.h) against torch.sort and the documented examples.

Sort32.md, MrgSort.md, MrgSort-37.md, Sort.md, Concat.md, Extract.md, GetSortOffset.md,
GetMrgSortResult.md (asc-devkit v8.5.0). A sorted element is 8 bytes: the score in the low bytes
and the uint32 index in the high 4; descending by score, equal scores in input order. The reference
is a stable torch sort of (score, index) pairs, checked bit for bit.
"""

from __future__ import annotations

import pytest
import torch

from kernel_checks import expect_error
from torch_ascendgen.targets.sim.simulator import compile_kernel

FLOAT, HALF = 0, 1
DTYPES = {FLOAT: torch.float32, HALF: torch.float16}
MAXN = 512  # elements of every buffer

# p: op, n, repeat, len0..len3, validBit, mrgRepeat, suspend, srcOff (elements), q1Off (sort elements)
SORT = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Run(GM_ADDR score, GM_ADDR index, GM_ADDR sorted, GM_ADDR value, GM_ADDR idxOut,
                           GM_ADDR counts, const uint32_t* p)
{
    uint32_t op = p[0], n = p[1], srcOff = p[11], q1Off = p[12];
    int32_t repeat = (int32_t)p[2];
    TPipe pipe;
    TBuf<TPosition::VECCALC> bScore, bIndex, bSorted, bMerged, bTmp, bValue, bIdx;
    pipe.InitBuffer(bScore, (512 + 64) * sizeof(T));
    pipe.InitBuffer(bIndex, 512 * sizeof(uint32_t));
    pipe.InitBuffer(bSorted, 512 * 8);
    pipe.InitBuffer(bMerged, 512 * 8);
    pipe.InitBuffer(bTmp, 512 * 8);
    pipe.InitBuffer(bValue, 512 * sizeof(T));
    pipe.InitBuffer(bIdx, 512 * sizeof(uint32_t));
    GlobalTensor<T> scoreGm, valueGm;
    GlobalTensor<uint32_t> indexGm, idxGm, countGm;
    GlobalTensor<uint8_t> sortedGm;
    scoreGm.SetGlobalBuffer((__gm__ T*)score);
    indexGm.SetGlobalBuffer((__gm__ uint32_t*)index);
    sortedGm.SetGlobalBuffer((__gm__ uint8_t*)sorted);
    valueGm.SetGlobalBuffer((__gm__ T*)value);
    idxGm.SetGlobalBuffer((__gm__ uint32_t*)idxOut);
    countGm.SetGlobalBuffer((__gm__ uint32_t*)counts);
    LocalTensor<T> s = bScore.Get<T>()[srcOff];
    LocalTensor<uint32_t> idx = bIndex.Get<uint32_t>();
    LocalTensor<T> sortedL = bSorted.Get<T>();
    LocalTensor<T> merged = bMerged.Get<T>();
    LocalTensor<T> tmp = bTmp.Get<T>();
    LocalTensor<T> values = bValue.Get<T>();
    LocalTensor<uint32_t> idxs = bIdx.Get<uint32_t>();
    LocalTensor<uint32_t> cnt = bIdx.Get<uint32_t>()[504];
    DataCopy(bScore.Get<T>(), scoreGm, 512 + 64);
    DataCopy(idx, indexGm, 512);
    PipeBarrier<PIPE_ALL>();
    uint16_t lens[4] = {(uint16_t)p[3], (uint16_t)p[4], (uint16_t)p[5], (uint16_t)p[6]};
    uint16_t validBit = (uint16_t)p[7];
    int32_t mrgRepeat = (int32_t)p[8];
    bool suspend = p[9] != 0;
    uint32_t total = (lens[0] + lens[1] + lens[2] + (validBit == 15 ? lens[3] : 0)) * (mrgRepeat > 0 ? mrgRepeat : 1);
    LocalTensor<T> out = sortedL;
    if (op == 0) {
        Sort32(sortedL, s, idx, repeat);  // @sort32
    } else if (op == 1 || op == 2 || op == 5) {
        LocalTensor<T> concat;
        Concat(concat, s, tmp, (int32_t)(n / 16));
        if (op == 1) Sort<T, true>(sortedL, concat, idx, tmp, repeat);  // @sortfull
        else if (op == 2) Sort<T, false>(sortedL, concat, idx, tmp, repeat);
        else Sort<T, true>(sortedL, concat, idx, sortedL, repeat);  // @sorttmp
    } else {
        Sort32(sortedL, s, idx, repeat);
        PipeBarrier<PIPE_V>();
        uint32_t q = GetSortOffset<T>(32);
        MrgSortSrcList<T> list(sortedL[0], sortedL[q1Off ? q1Off : q], sortedL[2 * q], sortedL[3 * q]);
        if (validBit == 3) list.src3 = LocalTensor<T>();
        if (op == 3) {
            MrgSort4Info info(lens, suspend, validBit, (uint16_t)mrgRepeat);
            MrgSort(merged, list, info);  // @mrgsort
            if (suspend) {
                uint16_t r0, r1, r2, r3;
                GetMrgSortResult(r0, r1, r2, r3);
                cnt.SetValue(0, r0); cnt.SetValue(1, r1); cnt.SetValue(2, r2); cnt.SetValue(3, r3);
            }
        } else {
            uint32_t sortedNum[4] = {0, 0, 0, 0};
            if (suspend) MrgSort<T, true>(merged, list, lens, sortedNum, validBit, mrgRepeat);
            else MrgSort<T, false>(merged, list, lens, sortedNum, validBit, mrgRepeat);  // @mrgsort37
            for (int i = 0; i < 4; ++i) cnt.SetValue(4 + i, sortedNum[i]);
        }
        PipeBarrier<PIPE_ALL>();
        out = merged;
        n = total;
    }
    PipeBarrier<PIPE_V>();
    int32_t extractRepeat = (int32_t)((n + 31) / 32);
    if (op != 4 || !suspend) Extract(values, idxs, out, extractRepeat);  // @extract
    PipeBarrier<PIPE_ALL>();
    DataCopy(sortedGm, out.template ReinterpretCast<uint8_t>(), 512 * 8);
    DataCopy(valueGm, values, 512);
    DataCopy(idxGm, bIdx.Get<uint32_t>(), 512);
}

extern "C" __global__ __aicore__ void sort_kernel(GM_ADDR score, GM_ADDR index, GM_ADDR sorted, GM_ADDR value,
                                                  GM_ADDR idxOut, GM_ADDR counts, GM_ADDR params)
{
    const uint32_t* p = (const uint32_t*)params;
    if (p[13] == 0) Run<float>(score, index, sorted, value, idxOut, counts, p);
    else Run<half>(score, index, sorted, value, idxOut, counts, p);
}
"""

# The Region Proposal APIs are refused on Atlas A2/A3; GetSortLen is checked against GetSortOffset.
REFUSED = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void refused(GM_ADDR out, uint32_t which)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 4096);
    LocalTensor<half> t = b.Get<half>();
    GlobalTensor<uint32_t> og;
    og.SetGlobalBuffer((__gm__ uint32_t*)out);
    og.SetValue(0, GetSortLen<half>(128));
    og.SetValue(1, GetSortLen<float>(128));
    og.SetValue(2, GetSortOffset<half>(32));
    og.SetValue(3, GetSortOffset<float>(32));
    if (which == 1) RpSort16(t, t[1024], 1);  // @rpsort16
    if (which == 2) ProposalConcat(t, t[1024], 1, 4);  // @pconcat
    if (which == 3) {
        MrgSortSrcList<half> list(t, t[128], t[256], t[384]);
        MrgSort4Info info;
        MrgSort4(t[1024], list, info);  // @mrgsort4
    }
    if (which == 4) ProposalExtract(t, t[1024], 1, 4);
    if (which == 5) {
        uint16_t a, b, c, d;
        GetMrgSortResult(a, b, c, d);  // @mrgresult
    }
}
"""

_kernels: dict[str, object] = {}


def kernel(name: str):
    if name not in _kernels:
        source = {"sort_kernel": SORT, "refused": REFUSED}[name]
        _kernels[name] = compile_kernel(source, entry=name)
    return _kernels[name]


def line_of(source: str, marker: str) -> int:
    hits = [i + 1 for i, text in enumerate(source.splitlines()) if text.rstrip().endswith(marker)]
    assert len(hits) == 1, marker
    return hits[0]


def run(dtype, scores, *, op, repeat, index=None, lens=(0, 0, 0, 0), valid=15, mrg_repeat=1, suspend=False,
        src_off=0, q1_off=0, soc=None):
    n = scores.numel()
    sg = torch.zeros(512 + 64, dtype=DTYPES[dtype])
    sg[src_off:src_off + n] = scores
    ig = torch.zeros(512, dtype=torch.int32)
    ig[:n] = torch.arange(n, dtype=torch.int32) if index is None else index
    sorted_ = torch.zeros(512 * 2, dtype=torch.int32)
    value = torch.zeros(512, dtype=DTYPES[dtype])
    idx = torch.zeros(512, dtype=torch.int32)
    counts = torch.zeros(8, dtype=torch.int32)
    p = [op, n, repeat, *lens, valid, mrg_repeat, int(suspend), 0, src_off, q1_off, dtype, 0, 0]
    params = torch.tensor(p, dtype=torch.int64).to(torch.int32)
    kernel("sort_kernel").launch(1, sg, ig, sorted_, value, idx, counts, params, soc=soc)
    return sorted_, value, idx


def ref_sort(scores: torch.Tensor, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Descending, stable; NaN first (as torch.sort descending)."""
    order = torch.sort(scores.float(), descending=True, stable=True).indices
    return scores[order], index[order]


def pairs(sorted_: torch.Tensor, dtype: int, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(score, index) of the first n 8-byte elements of the raw sorted buffer."""
    words = sorted_[: 2 * n].view(n, 2)
    index = words[:, 1]
    if dtype == FLOAT:
        return words[:, 0].view(torch.float32), index
    return words[:, 0].contiguous().view(torch.int16).view(n, 2)[:, 0].contiguous().view(torch.float16), index


def test_sort32_sorts_each_group_of_32_descending_with_index():
    torch.manual_seed(0)
    for dtype in (FLOAT, HALF):
        x = (torch.rand(128) * 10).to(DTYPES[dtype])
        x[5] = x[9] = x[20]  # ties keep input order
        sorted_, _, _ = run(dtype, x, op=0, repeat=4)
        score, index = pairs(sorted_, dtype, 128)
        for g in range(4):
            want_s, want_i = ref_sort(x[32 * g: 32 * g + 32], torch.arange(32 * g, 32 * g + 32, dtype=torch.int32))
            assert torch.equal(score[32 * g: 32 * g + 32], want_s)
            assert torch.equal(index[32 * g: 32 * g + 32], want_i)
        if dtype == HALF:  # the 2 reserved bytes of a half element are undefined: poisoned
            reserved = sorted_[:256].view(128, 2)[:, 0].contiguous().view(torch.int16).view(128, 2)[:, 1]
            assert torch.all(reserved == -1)


def test_sort32_documented_example_first_group():
    # Sort32.md: the first 32 scores of its example, indexes all 0; the output begins 9.626377 0 9.505127 0 ...
    first = [7.867878, 9.065992, 9.374247, 1.0911566, 9.262053, 2.035779, 3.747487, 2.9315646, 5.237765, 5.176559,
             7.965426, 3.2341435, 7.203623, 1.5736973, 3.386001, 5.077001, 4.593656, 1.8485032, 7.8554387, 5.1269145,
             7.223478, 8.259627, 5.5502934, 8.795028, 9.626377, 7.7227993, 9.505127, 6.683293, 6.232041, 2.1760664,
             4.504409, 2.906819]
    x = torch.tensor(first, dtype=torch.float32)
    sorted_, _, _ = run(FLOAT, x, op=0, repeat=1, index=torch.zeros(32, dtype=torch.int32))
    score, index = pairs(sorted_, FLOAT, 32)
    assert score[:4].tolist() == pytest.approx([9.626377, 9.505127, 9.374247, 9.262053])
    assert score[-1].item() == pytest.approx(1.0911566)
    assert torch.all(index == 0)


def test_full_sort_concat_extract_documented_example():
    # MrgSort-37.md / Sort.md: 128 scores given as [31..0, 127..96, ...] with equal indexes sort to 127..0,
    # the indexes following their scores (the pages elide the middle groups; two are filled in here).
    x = torch.cat([torch.arange(31, -1, -1), torch.arange(127, 95, -1), torch.arange(63, 31, -1),
                   torch.arange(95, 63, -1)])
    for dtype in (FLOAT, HALF):
        _, value, idx = run(dtype, x.to(DTYPES[dtype]), op=1, repeat=4, index=x.to(torch.int32))
        assert value[:128].tolist() == list(range(127, -1, -1))
        assert idx[:128].tolist() == list(range(127, -1, -1))


def test_full_sort_matches_torch_with_nan_and_ties():
    torch.manual_seed(1)
    for dtype in (FLOAT, HALF):
        x = torch.randint(-20, 20, (256,)).to(DTYPES[dtype])  # many ties
        x[7] = float("nan")
        x[100] = float("-inf")
        _, value, idx = run(dtype, x, op=1, repeat=8)
        want_v, want_i = ref_sort(x, torch.arange(256, dtype=torch.int32))
        assert torch.equal(idx[:256], want_i)
        bits = torch.int32 if dtype == FLOAT else torch.int16
        assert torch.equal(value[:256].view(bits), want_v.view(bits))


def test_sort_without_full_sort_is_sort32_per_group():
    torch.manual_seed(2)
    x = torch.randn(64)
    _, value, idx = run(FLOAT, x, op=2, repeat=2)
    for g in range(2):
        want_v, want_i = ref_sort(x[32 * g: 32 * g + 32], torch.arange(32 * g, 32 * g + 32, dtype=torch.int32))
        assert torch.equal(value[32 * g: 32 * g + 32], want_v)
        assert torch.equal(idx[32 * g: 32 * g + 32], want_i)


def test_mrgsort_merges_four_sorted_queues():
    torch.manual_seed(3)
    for dtype in (FLOAT, HALF):
        x = torch.randint(0, 30, (128,)).to(DTYPES[dtype])
        _, value, idx = run(dtype, x, op=3, repeat=4, lens=(32, 32, 32, 32), valid=15)
        want_v, want_i = ref_sort(x, torch.arange(128, dtype=torch.int32))  # ties: lower queue = lower index
        assert torch.equal(value[:128], want_v)
        assert torch.equal(idx[:128], want_i)


def test_mrgsort_two_queues_of_different_lengths_and_repeat_two():
    torch.manual_seed(4)
    x = torch.randn(256)
    # two valid queues: the first 20 of group 0 and the first 11 of group 1
    _, value, idx = run(FLOAT, x, op=4, repeat=8, lens=(20, 11, 0, 0), valid=3)
    g0 = ref_sort(x[:32], torch.arange(32, dtype=torch.int32))
    g1 = ref_sort(x[32:64], torch.arange(32, 64, dtype=torch.int32))
    want_v, want_i = ref_sort(torch.cat([g0[0][:20], g1[0][:11]]), torch.cat([g0[1][:20], g1[1][:11]]))
    assert torch.equal(value[:31], want_v) and torch.equal(idx[:31], want_i)
    # repeatTimes 2 over 8 contiguous queues of 32: two independent merges of 128
    _, value, idx = run(FLOAT, x, op=3, repeat=8, lens=(32, 32, 32, 32), valid=15, mrg_repeat=2)
    for r in range(2):
        want_v, want_i = ref_sort(x[128 * r: 128 * r + 128], torch.arange(128 * r, 128 * r + 128, dtype=torch.int32))
        assert torch.equal(value[128 * r: 128 * r + 128], want_v)
        assert torch.equal(idx[128 * r: 128 * r + 128], want_i)


def test_mrgsort_exhausted_suspension_stops_and_reports_counts():
    # queue 0 holds the 4 largest scores, so it runs out first; the merge stops right there.
    x = torch.cat([torch.arange(100, 132).float(), torch.arange(0, 32).float(),
                   torch.arange(32, 64).float(), torch.arange(64, 96).float()])
    x[4:32] = -1000.0  # queue 0 (length 4): 103, 102, 101, 100, all above the other queues
    counts = torch.zeros(8, dtype=torch.int32)
    sg = torch.zeros(576)
    sg[:128] = x
    for op in (3, 4):
        p = [op, 128, 4, 4, 32, 32, 32, 15, 1, 1, 0, 0, 0, FLOAT, 0, 0]
        sorted_ = torch.zeros(1024, dtype=torch.int32)
        idx = torch.zeros(512, dtype=torch.int32)
        ig = torch.arange(512, dtype=torch.int32)
        kernel("sort_kernel").launch(1, sg, ig, sorted_, torch.zeros(512), idx, counts,
                                     torch.tensor(p, dtype=torch.int32))
        got = idx[504:508] if op == 3 else idx[508:512]
        assert got.tolist() == [4, 0, 0, 0]
        score, index = pairs(sorted_, FLOAT, 4)
        assert score.tolist() == [103.0, 102.0, 101.0, 100.0]


def test_sort_constraints_name_the_kernel_line():
    x = torch.randn(64)
    e = expect_error("repeat_overflow", run, FLOAT, x, op=0, repeat=256)
    assert e.line == line_of(SORT, "// @sort32")
    e = expect_error("ub_misaligned", run, FLOAT, x, op=0, repeat=1, src_off=3)
    assert e.line == line_of(SORT, "// @sort32")
    e = expect_error("local_overrun", run, FLOAT, x, op=0, repeat=17)  # scores past the 576-element buffer
    assert e.line == line_of(SORT, "// @sort32")
    e = expect_error("bad_argument", run, FLOAT, x, op=5, repeat=2)
    assert "tmp" in e.message and e.line == line_of(SORT, "// @sorttmp")
    e = expect_error("bad_argument", run, FLOAT, x, op=3, repeat=2, lens=(32, 32, 32, 32), valid=5)
    assert "validBit" in e.message and e.line == line_of(SORT, "// @mrgsort")
    e = expect_error("bad_argument", run, FLOAT, x, op=4, repeat=2, lens=(32, 32, 32, 31), valid=15, mrg_repeat=2)
    assert "repeatTimes" in e.message and e.line == line_of(SORT, "// @mrgsort37")
    e = expect_error("ub_misaligned", run, FLOAT, x, op=3, repeat=2, lens=(3, 3, 3, 3), valid=15, q1_off=1)
    assert "8-byte" in e.message and e.line == line_of(SORT, "// @mrgsort")


def test_sort_dtypes_and_soc():
    x = torch.randn(64)
    e = expect_error("unsupported_api", run, FLOAT, x, op=0, repeat=2, soc="Ascend310P3")
    assert "Atlas A2/A3" in e.message and e.line == line_of(SORT, "// @sort32")


def test_region_proposal_apis_are_refused_and_sort_len_is_in_elements():
    out = torch.zeros(8, dtype=torch.int32)
    kernel("refused").launch(1, out, 0)
    assert out[:4].tolist() == [512, 256, 128, 64]
    for which, marker in ((1, "// @rpsort16"), (2, "// @pconcat"), (3, "// @mrgsort4")):
        e = expect_error("unsupported_api", kernel("refused").launch, 1, out, which)
        assert e.line == line_of(REFUSED, marker)
    # a fresh launch has no suspended merge to report, even right after one that had
    test_mrgsort_exhausted_suspension_stops_and_reports_counts()
    e = expect_error("bad_argument", kernel("refused").launch, 1, out, 5)
    assert e.line == line_of(REFUSED, "// @mrgresult")


# ---- TopK ------------------------------------------------------------------------------------------

# p: small, largest, initIndex, hasFinish, withTmp, outter, inner, n, k, dtype, tmpVecin
TOPK = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T, bool init, bool fin, TopKMode mode>
__aicore__ inline void Call(const LocalTensor<T>& dv, const LocalTensor<int32_t>& di, const LocalTensor<T>& s,
                            const LocalTensor<int32_t>& si, const LocalTensor<bool>& f,
                            const LocalTensor<uint8_t>& tmp, bool withTmp, int32_t k, const TopKInfo& info,
                            bool largest)
{
    TopkTiling tiling;
    if (withTmp) TopK<T, init, fin, false, mode>(dv, di, s, si, f, tmp, k, tiling, info, largest);  // @topk_tmp
    else TopK<T, init, fin, false, mode>(dv, di, s, si, f, k, tiling, info, largest);  // @topk
}

template <typename T>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR xi, GM_ADDR fin, GM_ADDR v, GM_ADDR vi, const uint32_t* p)
{
    bool small = p[0], largest = p[1], init = p[2], hasFin = p[3], withTmp = p[4];
    TopKInfo info;
    info.outter = (int32_t)p[5]; info.inner = (int32_t)p[6]; info.n = (int32_t)p[7];
    int32_t k = (int32_t)p[8];
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bxi, bf, bv, bvi, bt;
    TBuf<TPosition::VECIN> bin;
    pipe.InitBuffer(bx, 2048 * sizeof(T));
    pipe.InitBuffer(bxi, 2048 * 4);
    pipe.InitBuffer(bf, 32);
    pipe.InitBuffer(bv, 1024 * sizeof(T));
    pipe.InitBuffer(bvi, 1024 * 4);
    pipe.InitBuffer(bt, 8192);
    pipe.InitBuffer(bin, 1024);
    GlobalTensor<T> xg, vg;
    GlobalTensor<int32_t> xig, vig;
    GlobalTensor<uint8_t> fg;
    xg.SetGlobalBuffer((__gm__ T*)x);
    xig.SetGlobalBuffer((__gm__ int32_t*)xi);
    fg.SetGlobalBuffer((__gm__ uint8_t*)fin);
    vg.SetGlobalBuffer((__gm__ T*)v);
    vig.SetGlobalBuffer((__gm__ int32_t*)vi);
    LocalTensor<T> s = bx.Get<T>(), dv = bv.Get<T>();
    LocalTensor<int32_t> si = bxi.Get<int32_t>(), di = bvi.Get<int32_t>();
    LocalTensor<bool> f = bf.Get<bool>();
    LocalTensor<uint8_t> tmp = p[10] ? bin.Get<uint8_t>() : bt.Get<uint8_t>();
    DataCopy(s, xg, 2048);
    DataCopy(si, xig, 2048);
    DataCopy(bf.Get<uint8_t>(), fg, 32);
    DataCopy(dv, vg, 1024);
    DataCopy(di, vig, 1024);
    PipeBarrier<PIPE_ALL>();
    uint32_t combo = (init ? 1 : 0) + (hasFin ? 2 : 0) + (small ? 4 : 0);
    switch (combo) {
        case 0: Call<T, false, false, TopKMode::TOPK_NORMAL>(dv, di, s, si, f, tmp, withTmp, k, info, largest); break;
        case 1: Call<T, true, false, TopKMode::TOPK_NORMAL>(dv, di, s, si, f, tmp, withTmp, k, info, largest); break;
        case 2: Call<T, false, true, TopKMode::TOPK_NORMAL>(dv, di, s, si, f, tmp, withTmp, k, info, largest); break;
        case 3: Call<T, true, true, TopKMode::TOPK_NORMAL>(dv, di, s, si, f, tmp, withTmp, k, info, largest); break;
        case 4: Call<T, false, false, TopKMode::TOPK_NSMALL>(dv, di, s, si, f, tmp, withTmp, k, info, largest); break;
        case 5: Call<T, true, false, TopKMode::TOPK_NSMALL>(dv, di, s, si, f, tmp, withTmp, k, info, largest); break;
        case 6: Call<T, false, true, TopKMode::TOPK_NSMALL>(dv, di, s, si, f, tmp, withTmp, k, info, largest); break;
        default: Call<T, true, true, TopKMode::TOPK_NSMALL>(dv, di, s, si, f, tmp, withTmp, k, info, largest); break;
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(vg, dv, 1024);
    DataCopy(vig, di, 1024);
}

extern "C" __global__ __aicore__ void topk_kernel(GM_ADDR x, GM_ADDR xi, GM_ADDR fin, GM_ADDR v, GM_ADDR vi,
                                                  GM_ADDR params)
{
    const uint32_t* p = (const uint32_t*)params;
    if (p[9] == 0) Run<float>(x, xi, fin, v, vi, p);
    else Run<half>(x, xi, fin, v, vi, p);
}
"""

_topk = None


def topk_kernel():
    global _topk
    if _topk is None:
        _topk = compile_kernel(TOPK, entry="topk_kernel")
    return _topk


def topk(dtype, x, k, *, small=False, largest=True, index=None, finish=None, tmp=True, n=None, tmp_vecin=False):
    rows, inner = x.shape
    xg = torch.zeros(2048, dtype=DTYPES[dtype])
    xg[: x.numel()] = x.flatten()
    xig = torch.zeros(2048, dtype=torch.int32)
    if index is not None:
        xig[: index.numel()] = index.flatten()
    fg = torch.zeros(32, dtype=torch.uint8)
    if finish is not None:
        fg[: len(finish)] = torch.tensor(finish, dtype=torch.uint8)
    v = torch.full((1024,), 3, dtype=DTYPES[dtype])
    vi = torch.full((1024,), 3, dtype=torch.int32)
    p = [int(small), int(largest), int(index is not None), int(finish is not None), int(tmp), rows, inner,
         n or inner, k, dtype, int(tmp_vecin), 0, 0, 0, 0, 0]
    topk_kernel().launch(1, xg, xig, fg, v, vi, torch.tensor(p, dtype=torch.int32))
    return v, vi


def ref_topk(row: list[float], k: int, largest: bool) -> list[int]:
    """Positions of the top k: NaN first, then by value, ties in input order (TopK.md)."""
    def key(j):
        v = row[j]
        return (0, 0) if v != v else (1, -v if largest else v)
    return sorted(range(len(row)), key=key)[:k]


def test_topk_normal_mode_matches_the_documented_order():
    torch.manual_seed(5)
    for dtype in (FLOAT, HALF):
        for largest in (True, False):
            x = torch.randint(-50, 50, (3, 64)).to(DTYPES[dtype])  # ties
            x[1, 10] = float("nan")
            x[2, 3] = float("inf") if largest else float("-inf")
            k = 5
            v, vi = topk(dtype, x, k, largest=largest, tmp=largest)
            pitch_v = 8 if dtype == FLOAT else 16
            for r in range(3):
                want = ref_topk(x[r].tolist(), k, largest)
                assert vi[r * 8: r * 8 + k].tolist() == [-1] * k  # no isInitIndex: "unusable", poisoned
                got_v = v[r * pitch_v: r * pitch_v + k]
                assert torch.equal(got_v.float().nan_to_num(123.0), x[r, want].float().nan_to_num(123.0))
                assert torch.isnan(v[r * pitch_v + k: (r + 1) * pitch_v].float()).all()  # past k: poisoned
                assert torch.all(vi[r * 8 + k: r * 8 + 8] == -1)


def test_topk_given_indexes_follow_their_values():
    torch.manual_seed(8)
    for dtype in (FLOAT, HALF):
        x = torch.randint(-50, 50, (2, 64)).to(DTYPES[dtype])
        v, vi = topk(dtype, x, 6, index=torch.arange(64, dtype=torch.int32) * 3)
        for r in range(2):
            assert vi[r * 8: r * 8 + 6].tolist() == [3 * j for j in ref_topk(x[r].tolist(), 6, True)]


def test_topk_finish_rows_and_given_indexes():
    # TopK.md's Normal example: (2, 32) float, k 5, smallest, isInitIndex, finish = [False, True]: row 1's
    # indexes are all n = 32.
    torch.manual_seed(6)
    x = torch.randn(2, 32) * 50000
    index = torch.arange(32, dtype=torch.int32) + 100
    v, vi = topk(FLOAT, x, 5, largest=False, index=index, finish=[False, True])
    want = ref_topk(x[0].tolist(), 5, False)
    assert vi[:5].tolist() == [j + 100 for j in want]
    assert vi[8:13].tolist() == [32] * 5
    assert torch.equal(v[8:13], x[1, ref_topk(x[1].tolist(), 5, False)])


def test_topk_small_mode_documented_shape_with_inf_padding():
    # TopK.md's Small example: (4, 17) padded to 32 with -inf, k 8, largest, per-row indexes.
    torch.manual_seed(7)
    x = torch.full((4, 32), float("-inf"))
    x[:, :17] = torch.randn(4, 17) * 30000
    index = torch.arange(32, dtype=torch.int32).repeat(4, 1)
    v, vi = topk(FLOAT, x, 8, small=True, index=index, n=17)
    for r in range(4):
        want = ref_topk(x[r, :17].tolist(), 8, True)
        assert vi[r * 8: r * 8 + 8].tolist() == want
        assert torch.equal(v[r * 8: r * 8 + 8], x[r, want])


def test_topk_constraints_name_the_kernel_line():
    x = torch.randn(2, 32)
    line = line_of(TOPK, "// @topk_tmp")
    e = expect_error("bad_argument", topk, FLOAT, x, 33)
    assert "k is 33" in e.message and e.line == line
    e = expect_error("bad_argument", topk, FLOAT, torch.randn(1, 64), 4, small=True)
    assert "inner = 32" in e.message
    e = expect_error("bad_argument", topk, FLOAT, x, 4, small=True, finish=[False, False])
    assert "isHasfinish" in e.message
    padded = torch.full((2, 32), -5.0)
    padded[:, 20:] = 0.0  # padding not filled with -inf: it would win
    e = expect_error("bad_argument", topk, FLOAT, padded, 3, n=20)
    assert "padding" in e.message and e.line == line
    e = expect_error("bad_argument", topk, FLOAT, x, 3, tmp_vecin=True)
    assert "VECCALC" in e.message
    e = expect_error("bad_argument", topk, FLOAT, x, 3, tmp=False, n=40)
    assert e.line == line_of(TOPK, "// @topk")


# ---- Region Proposals (310P) ----------------------------------------------------------------------

# op 0: ProposalConcat of every field from 6 planes, RpSort16, ProposalExtract of every field;
# op 1: ProposalConcat scores + RpSort16 per 16, then MrgSort4 of the 4 groups (lens, validBit, suspend)
PROPOSAL = r"""
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline void Run(GM_ADDR planes, GM_ADDR out, GM_ADDR raw, const uint32_t* p)
{
    uint32_t op = p[0], repeat = p[1], validBit = p[6], suspend = p[7], overlapDst = p[8], mode = p[9];
    TPipe pipe;
    TBuf<TPosition::VECCALC> bPlanes, bProp, bSorted, bOut;
    pipe.InitBuffer(bPlanes, 6 * 64 * sizeof(T));
    pipe.InitBuffer(bProp, 64 * 8 * sizeof(T));
    pipe.InitBuffer(bSorted, 64 * 8 * sizeof(T));
    pipe.InitBuffer(bOut, 6 * 64 * sizeof(T));
    GlobalTensor<T> planeGm, outGm, rawGm;
    planeGm.SetGlobalBuffer((__gm__ T*)planes);
    outGm.SetGlobalBuffer((__gm__ T*)out);
    rawGm.SetGlobalBuffer((__gm__ T*)raw);
    LocalTensor<T> pl = bPlanes.Get<T>(), prop = bProp.Get<T>(), sorted = bSorted.Get<T>(), o = bOut.Get<T>();
    DataCopy(pl, planeGm, 6 * 64);
    PipeBarrier<PIPE_ALL>();
    Duplicate(prop, T(0), 64 * 8);
    PipeBarrier<PIPE_V>();
    for (int f = 0; f < 6; ++f) {
        ProposalConcat(prop, pl[f * 64], (int32_t)repeat, (int32_t)(f == 5 ? mode : f));  // @pconcat
        PipeBarrier<PIPE_V>();
    }
    LocalTensor<T> result = sorted;
    uint16_t counts[4] = {0, 0, 0, 0};
    if (op == 0) {
        RpSort16(sorted, prop, (int32_t)repeat);  // @rpsort
    } else {
        RpSort16(prop, prop, 4);
        PipeBarrier<PIPE_V>();
        uint16_t lens[4] = {(uint16_t)p[2], (uint16_t)p[3], (uint16_t)p[4], (uint16_t)p[5]};
        MrgSortSrcList<T> list(prop[0], prop[16 * 8], prop[32 * 8], prop[48 * 8]);
        MrgSort4Info info(lens, suspend != 0, (uint16_t)validBit, 1);
        MrgSort4(overlapDst ? prop[8] : sorted, list, info);  // @mrgsort4
        if (suspend) GetMrgSortResult(counts[0], counts[1], counts[2], counts[3]);
    }
    PipeBarrier<PIPE_V>();
    for (int f = 0; f < 6; ++f) {
        ProposalExtract(o[f * 64], result, 4, f);
        PipeBarrier<PIPE_V>();
    }
    PipeBarrier<PIPE_ALL>();
    if (suspend) {
        for (int i = 0; i < 4; ++i) o.SetValue(6 * 64 - 4 + i, (T)(float)counts[i]);
        PipeBarrier<PIPE_ALL>();
    }
    DataCopy(outGm, o, 6 * 64);
    DataCopy(rawGm, result, 64 * 8);
}

extern "C" __global__ __aicore__ void proposal(GM_ADDR planes, GM_ADDR out, GM_ADDR raw, GM_ADDR params)
{
    const uint32_t* p = (const uint32_t*)params;
    if (p[10] == 0) Run<float>(planes, out, raw, p);
    else Run<half>(planes, out, raw, p);
}
"""

_proposal = None


def proposal(dtype, planes, *, op=0, repeat=4, lens=(16, 16, 16, 16), valid=15, suspend=False, overlap=False,
             mode=5, soc="Ascend310P3"):
    global _proposal
    if _proposal is None:
        _proposal = compile_kernel(PROPOSAL, entry="proposal")
    out = torch.zeros(6 * 64, dtype=DTYPES[dtype])
    raw = torch.zeros(64 * 8, dtype=DTYPES[dtype])
    p = [op, repeat, *lens, valid, int(suspend), int(overlap), mode, dtype, 0, 0, 0, 0, 0]
    _proposal.launch(1, planes.to(DTYPES[dtype]).flatten(), out, raw, torch.tensor(p, dtype=torch.int32), soc=soc)
    return out.view(6, 64), raw.view(64, 8)


def test_region_proposals_concat_sort16_extract_on_310p():
    torch.manual_seed(11)
    for dtype in (FLOAT, HALF):
        planes = torch.randint(-50, 50, (6, 64)).float()  # x1 y1 x2 y2 score label; ties in score
        out, raw = proposal(dtype, planes)
        for g in range(4):
            cols = planes[:, 16 * g: 16 * g + 16]
            order = sorted(range(16), key=lambda j: -cols[4, j].item())  # stable: equal scores in input order
            assert torch.equal(out[:, 16 * g: 16 * g + 16].float(), cols[:, order])
        assert torch.isnan(raw[:, 6:].float()).all()  # reserved_0/1 of sorted proposals: poisoned


def test_mrgsort4_merges_sorted_proposal_queues_on_310p():
    torch.manual_seed(12)
    planes = torch.randint(-50, 50, (6, 64)).float()
    planes[5] = torch.arange(64).float()  # the label carries the original position
    out, _ = proposal(FLOAT, planes, op=1)
    sorted_groups = []
    for g in range(4):
        cols = planes[:, 16 * g: 16 * g + 16]
        sorted_groups.append(cols[:, sorted(range(16), key=lambda j: -cols[4, j].item())])
    merged = torch.cat(sorted_groups, 1)
    order = sorted(range(64), key=lambda j: -merged[4, j].item())  # ties: lower queue first
    assert torch.equal(out, merged[:, order])
    # three queues of 5, 16, 3 with suspension: stops when the first runs out
    planes[4, :16] = 1000.0 + torch.arange(16).float()
    out, _ = proposal(FLOAT, planes, op=1, lens=(5, 16, 3, 0), valid=7, suspend=True)
    assert out[4, :5].tolist() == [1015.0, 1014.0, 1013.0, 1012.0, 1011.0]
    assert out[:, -4:][5].tolist() == [5.0, 0.0, 0.0, 0.0]


def test_region_proposal_constraints():
    planes = torch.zeros(6, 64)
    e = expect_error("bad_argument", proposal, FLOAT, planes, mode=6)
    assert "modeNumber" in e.message and e.line == line_of(PROPOSAL, "// @pconcat")
    e = expect_error("bad_argument", proposal, FLOAT, planes, op=1, lens=(8, 8, 8, 8), overlap=True)
    assert "overlap" in e.message and e.line == line_of(PROPOSAL, "// @mrgsort4")
    e = expect_error("repeat_overflow", proposal, FLOAT, planes, repeat=256)
    assert e.line == line_of(PROPOSAL, "// @pconcat")
    e = expect_error("unsupported_api", proposal, FLOAT, planes, soc="Ascend910B2")
    assert "Atlas A2/A3" in e.message and e.line == line_of(PROPOSAL, "// @pconcat")


def test_sort_apis_are_booked_in_the_cost_model():
    x = torch.randn(128)
    p = [1, 128, 4, 0, 0, 0, 0, 15, 1, 0, 0, 0, 0, FLOAT, 0, 0]
    report = kernel("sort_kernel").launch(1, torch.cat([x, torch.zeros(448)]), torch.arange(512, dtype=torch.int32),
                                          torch.zeros(1024, dtype=torch.int32), torch.zeros(512),
                                          torch.zeros(512, dtype=torch.int32), torch.zeros(8, dtype=torch.int32),
                                          torch.tensor(p, dtype=torch.int32))
    ops = report.vector_ops()
    assert ops["Sort"] == (1, 4 + 4)  # Sort32 over the 4 groups, then one 4-way merge round over all
    assert ops["Extract"] == (1, 8)
    v = torch.randn(2, 64)
    report = topk_kernel().launch(1, torch.cat([v.flatten(), torch.zeros(1920)]), torch.zeros(2048, dtype=torch.int32),
                                  torch.zeros(32, dtype=torch.uint8), torch.zeros(1024),
                                  torch.zeros(1024, dtype=torch.int32),
                                  torch.tensor([0, 1, 0, 0, 1, 2, 64, 64, 3, FLOAT] + [0] * 6, dtype=torch.int32))
    assert report.vector_ops()["TopK"][0] == 1
