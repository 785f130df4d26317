/*
 * adversarial_add: y = x + 1 (kernel contract), or one of the ways a model-written kernel can get a
 * wrong or unmeasured result past a simulator that checks only its own API calls. The test prepends
 * `#define MODE <n>` (tests/test_sim_gm_protection.py); every mode but OK must be refused.
 */
#include <atomic>

#include "kernel_operator.h"

using namespace AscendC;

#ifndef MODE
#define MODE 0
#endif

enum Mode : uint32_t {
    OK = 0,
    RAW_WRITE_PAST_OUTPUT = 1,  // the last block also stores one element past y's end
    RAW_READ_PAST_INPUT = 2,    // the last block adds 0 * x[total] (one element past x's end)
    RAW_IN_BOUNDS = 3,          // all the work as a scalar loop over raw GM pointers: invisible to the cost model
    RAW_SHARED_WRITE = 4,       // every block also stores y[0] raw: two blocks write the same bytes
    STATIC_COUNTER = 5,         // a launch counter in static memory: from the 11th launch on, y = x + 2
    ORDER_DEPENDENT = 6,        // the block that starts first decides the result of every block
};

constexpr uint32_t TILE = 2048;

struct TilingData {
    uint32_t total;
    uint32_t perBlock;  // a multiple of 8 elements; the last block takes the rest
};

static std::atomic<uint32_t> g_launches{0};
static std::atomic<uint32_t> g_started{0};
static std::atomic<uint32_t> g_finished{0};
static std::atomic<int32_t> g_first{-1};

__aicore__ inline float Bump(uint32_t block, uint32_t blocks)
{
    if (MODE == STATIC_COUNTER) {
        uint32_t launch = g_launches.load();
        if (g_finished.fetch_add(1) + 1 == blocks) {  // the last block of a launch counts it
            g_finished = 0;
            g_launches.fetch_add(1);
        }
        return launch >= 10 ? 1.0f : 0.0f;
    }
    if (MODE == ORDER_DEPENDENT) {
        int32_t expected = -1;
        if (g_started.fetch_add(1) == 0) g_first.compare_exchange_strong(expected, int32_t(block));
        while (g_first.load() < 0) {
        }
        float bump = g_first.load() == 0 ? 0.0f : 1.0f;
        if (g_finished.fetch_add(1) + 1 == blocks) {  // the last block resets the launch's state
            g_finished = 0;
            g_started = 0;
            g_first = -1;
        }
        return bump;
    }
    return 0.0f;
}

__aicore__ inline void AddOne(GlobalTensor<float>& xGm, GlobalTensor<float>& yGm, uint32_t length, float bump)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, TILE * sizeof(float));
    pipe.InitBuffer(outQueue, 1, TILE * sizeof(float));
    for (uint32_t offset = 0; offset < length; offset += TILE) {
        uint32_t count = length - offset < TILE ? length - offset : TILE;
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopyPad(xLocal, xGm[offset], params, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
        inQueue.EnQue(xLocal);
        xLocal = inQueue.DeQue<float>();
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        Adds(yLocal, xLocal, 1.0f + bump, count);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
        yLocal = outQueue.DeQue<float>();
        DataCopyPad(yGm[offset], yLocal, params);
        outQueue.FreeTensor(yLocal);
    }
}

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    uint64_t total = 1;
    for (int32_t d = 0; d < ranks[0]; ++d) total *= static_cast<uint64_t>(dims[d]);
    if (total == 0 || total > 0xFFFFFFFFull) return 0;
    uint64_t blocks = (total + 255) / 256;
    if (blocks > coreNum) blocks = coreNum;
    if (blocks < 2 && total >= 16) blocks = 2;
    uint64_t perBlock = ((total + blocks - 1) / blocks + 7) / 8 * 8;
    tiling->total = static_cast<uint32_t>(total);
    tiling->perBlock = static_cast<uint32_t>(perBlock);
    *workspaceBytes = 0;
    return static_cast<uint32_t>((total + perBlock - 1) / perBlock);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR in0, GM_ADDR out0, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    uint32_t block = GetBlockIdx(), blocks = GetBlockNum();
    uint32_t start = t.perBlock * block;
    uint32_t length = start >= t.total ? 0 : (t.total - start < t.perBlock ? t.total - start : t.perBlock);
    __gm__ float* x = (__gm__ float*)in0;
    __gm__ float* y = (__gm__ float*)out0;
    float bump = Bump(block, blocks);
    if (MODE == RAW_IN_BOUNDS) {
        for (uint32_t i = start; i < start + length; ++i) y[i] = x[i] + 1.0f; // <- raw_in_bounds
        return;
    }
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer(x + start, length);
    yGm.SetGlobalBuffer(y + start, length);
    AddOne(xGm, yGm, length, bump);
    bool last = block + 1 == blocks;
    if (MODE == RAW_WRITE_PAST_OUTPUT && last) y[t.total] = 0.0f; // <- raw_write_past_output
    if (MODE == RAW_READ_PAST_INPUT && last) {
        volatile float past = x[t.total]; // <- raw_read_past_input
        (void)past;
    }
    if (MODE == RAW_SHARED_WRITE) y[0] = x[0] + 1.0f; // <- raw_shared_write
}
