/*
 * cube_handoff: a mixed kernel (KERNEL_TYPE_MIX_AIC_1_2): the cube core (AIC) reserves an L1 staging buffer, doubles
 * x into a GM workspace and signals its two vector cores (CrossCoreSetFlag mode 2); each AIV waits for the flag, copies
 * its row of the workspace into UB, adds 1 and writes its row of y: y = 2 * x + 1, two rows of 64 floats.
 *
 * TilingData.mode 0 is the correct kernel; each other mode breaks one rule of the split AI Core on the line marked
 * "// <- <case>".
 */
#include "kernel_operator.h"
using namespace AscendC;

enum Mode : uint32_t {
    OK = 0,
    VECTOR_CODE_ON_AIC = 1,  // the AIC falls through into the vector code: it has no UB
    WHOLE_MATRIX_IN_L1 = 2,  // a 1024 x 1024 half matrix staged in L1 at once: 2 MB, L1 has 512 KB
    READ_BEFORE_FLAG = 3,    // the AIVs read the workspace without waiting for the AIC's flag
};

struct TilingData {
    uint32_t cols;
    uint32_t stageBytes;
    uint32_t mode;
};

extern "C" __global__ __aicore__ void cube_handoff(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    GET_TILING_DATA(tilingData, tiling);
    const uint32_t cols = tilingData.cols;
    GlobalTensor<float> xGm, yGm, wsGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 2 * cols);
    yGm.SetGlobalBuffer((__gm__ float*)y, 2 * cols);
    wsGm.SetGlobalBuffer((__gm__ float*)workspace, 2 * cols);
    if ASCEND_IS_AIC {
        TPipe cubePipe;
        TBuf<TPosition::A1> stage;
        uint32_t stageBytes = tilingData.stageBytes;
        if (tilingData.mode == WHOLE_MATRIX_IN_L1) stageBytes = 1024 * 1024 * sizeof(half);
        cubePipe.InitBuffer(stage, stageBytes); // <- whole_matrix_in_l1
        for (uint32_t i = 0; i < 2 * cols; ++i) wsGm.SetValue(i, 2.0f * xGm.GetValue(i));
        DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE>(wsGm);
        CrossCoreSetFlag<2, PIPE_S>(0);
        if (tilingData.mode != VECTOR_CODE_ON_AIC) return;
    }
    if (tilingData.mode != READ_BEFORE_FLAG && ASCEND_IS_AIV) CrossCoreWaitFlag<2, PIPE_MTE2>(0);
    const uint32_t row = GetSubBlockIdx();
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, cols * sizeof(float)); // <- vector_code_on_aic
    pipe.InitBuffer(outQueue, 1, cols * sizeof(float));
    LocalTensor<float> in = inQueue.AllocTensor<float>();
    DataCopy(in, wsGm[row * cols], cols); // <- read_before_flag
    inQueue.EnQue(in);
    in = inQueue.DeQue<float>();
    LocalTensor<float> out = outQueue.AllocTensor<float>();
    Adds(out, in, 1.0f, cols);
    inQueue.FreeTensor(in);
    outQueue.EnQue(out);
    out = outQueue.DeQue<float>();
    DataCopy(yGm[row * cols], out, cols);
    outQueue.FreeTensor(out);
}
