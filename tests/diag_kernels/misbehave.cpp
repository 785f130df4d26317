/*
 * misbehave: y = x + 1, or one of the ways a kernel can take its process down that no simulator
 * check can stop (raw pointer writes, abort, endless loops, host allocation). Run only with
 * launch_isolated (tests/test_sim_isolation.py).
 *
 * OK also writes the child's address-space and data limits (RLIMIT_AS, RLIMIT_DATA, as doubles,
 * -1 for none) to aux, so that the test knows a runaway allocation is bounded before it runs one.
 */
#include <sys/resource.h>

#include <cstdlib>
#include <vector>

#include "kernel_operator.h"

enum Mode : uint32_t {
    OK = 0,
    RAW_WRITE_THROUGH_NULL = 1,  // a partial result stored through a workspace pointer that is null
    ABORT = 2,
    SPIN_ON_FLAG = 3,            // waits for a GM flag that no block ever sets
    GROW_HOST_VECTOR = 4,        // keeps a 64 MB host-side copy of every step, forever
    MISALIGNED_COPY = 5,         // an ordinary diagnostic, to check it survives the trip back
};

struct TilingData {
    uint32_t length;  // a multiple of 8, at most 1024
    uint32_t mode;
};

__aicore__ inline double Limit(int resource)
{
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return -1.0;
    return static_cast<double>(limit.rlim_cur);
}

extern "C" __global__ __aicore__ void misbehave(GM_ADDR x, GM_ADDR y, GM_ADDR aux, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, t.length);
    yGm.SetGlobalBuffer((__gm__ float *)y, t.length);
    pipe.InitBuffer(inQueue, 1, 1024 * sizeof(float));
    pipe.InitBuffer(outQueue, 1, 1024 * sizeof(float));

    AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    if (t.mode == MISALIGNED_COPY) {
        AscendC::DataCopy(xLocal[3], xGm, t.length); // <- misaligned_copy
    }
    AscendC::DataCopy(xLocal, xGm, t.length);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    AscendC::LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
    AscendC::Adds(yLocal, xLocal, 1.0f, t.length);

    if (t.mode == RAW_WRITE_THROUGH_NULL) {
        ((__gm__ float *)aux)[AscendC::GetBlockIdx() + 2] = 1.0f;
    } else if (t.mode == ABORT) {
        std::abort();
    } else if (t.mode == SPIN_ON_FLAG) {
        AscendC::GlobalTensor<int32_t> flagGm;
        flagGm.SetGlobalBuffer((__gm__ int32_t *)aux, 8);
        while (flagGm.GetValue(0) == 0) {
        }
    } else if (t.mode == GROW_HOST_VECTOR) {
        std::vector<std::vector<float>> history;
        for (;;) history.emplace_back(16u << 20, 1.0f);
    } else if (t.mode == OK) {
        ((__gm__ double *)aux)[0] = Limit(RLIMIT_AS);
        ((__gm__ double *)aux)[1] = Limit(RLIMIT_DATA);
    }

    outQueue.EnQue(yLocal);
    inQueue.FreeTensor(xLocal);
    yLocal = outQueue.DeQue<float>();
    AscendC::DataCopy(yGm, yLocal, t.length);
    outQueue.FreeTensor(yLocal);
}
