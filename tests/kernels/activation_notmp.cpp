/*
 * activation_notmp: high-level activations whose temporary space is reserved
 * by the API framework (no sharedTmpBuffer argument):
 * Sigmoid, Tanh, Gelu, Silu. float or half; former/tail cores, DataCopyPad tails.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength;
    uint32_t reserved;
    uint32_t opKey;    // 0 sigmoid, 1 tanh, 2 gelu, 3 silu
    uint32_t dtypeKey; // 0 float, 1 half
};

template <typename T>
class KernelActivationNoTmp {
public:
    __aicore__ inline KernelActivationNoTmp() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, const TilingData &tiling)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint64_t offset;
        if (blockIdx < tiling.formerNum) {
            coreLength = tiling.formerLength;
            offset = (uint64_t)blockIdx * tiling.formerLength;
        } else {
            coreLength = tiling.tailLength;
            offset = (uint64_t)tiling.formerNum * tiling.formerLength +
                     (uint64_t)(blockIdx - tiling.formerNum) * tiling.tailLength;
        }
        tileLength = tiling.tileLength;
        opKey = tiling.opKey;
        if (coreLength == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, coreLength);
        zGm.SetGlobalBuffer((__gm__ T *)z + offset, coreLength);
        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, 2, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        uint32_t tileNum = (coreLength + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = (i == tileNum - 1) ? coreLength - i * tileLength : tileLength;
            CopyIn(i * tileLength, count);
            Compute(count);
            CopyOut(i * tileLength, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        if (opKey == 0) {
            AscendC::Sigmoid(zLocal, xLocal, count);
        } else if (opKey == 1) {
            AscendC::Tanh(zLocal, xLocal, count);
        } else if (opKey == 2) {
            AscendC::Gelu(zLocal, xLocal, count);
        } else {
            AscendC::Silu(zLocal, xLocal, count);
        }
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(zGm[offset], zLocal, copyParams);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueZ;
    AscendC::GlobalTensor<T> xGm, zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t opKey = 0;
};

extern "C" __global__ __aicore__ void activation_notmp(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        KernelActivationNoTmp<float> op;
        op.Init(x, z, t);
        op.Process();
    } else {
        KernelActivationNoTmp<half> op;
        op.Init(x, z, t);
        op.Process();
    }
}
