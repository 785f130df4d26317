/*
 * zero_last_output: fills the last tensor (the one float32 output of a two-input function) with zeros.
 * A wrong kernel on purpose: the budget tests need a candidate that builds, runs on every input set and
 * fails verification, whatever the function computes.
 */
#include "kernel_operator.h"
using namespace AscendC;

struct TilingData {
    uint64_t total;
    uint32_t tile;
    uint32_t blocks;
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks,
                                     const int64_t* dims, TilingData* tiling, uint64_t* workspaceBytes) {
    int64_t offset = 0;
    for (int32_t i = 0; i < tensorCount - 1; ++i) offset += ranks[i];
    uint64_t total = 1;
    for (int32_t d = 0; d < ranks[tensorCount - 1]; ++d) total *= (uint64_t)dims[offset + d];
    tiling->total = total;
    tiling->tile = 8192;
    tiling->blocks = coreNum;
    *workspaceBytes = 0;
    return coreNum;
}

extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR in0, GM_ADDR in1, GM_ADDR out0, GM_ADDR workspace,
                                                       GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    GlobalTensor<float> outGm;
    outGm.SetGlobalBuffer((__gm__ float*)out0, t.total);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, t.tile * sizeof(float));
    LocalTensor<float> zeros = buf.Get<float>();
    Duplicate(zeros, 0.0f, t.tile);
    uint64_t tiles = (t.total + t.tile - 1) / t.tile;
    for (uint64_t i = GetBlockIdx(); i < tiles; i += GetBlockNum()) {
        uint64_t start = i * t.tile;
        uint32_t count = (uint32_t)((t.total - start) < t.tile ? (t.total - start) : t.tile);
        PipeBarrier<PIPE_ALL>();
        if ((count * sizeof(float)) % 32 == 0) {
            DataCopy(outGm[start], zeros, count);
        } else {
            DataCopyPad(outGm[start], zeros, DataCopyExtParams{1, (uint32_t)(count * sizeof(float)), 0, 0, 0});
        }
    }
}
