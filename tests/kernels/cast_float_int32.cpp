/*
 * cast_float_int32: float (or half) -> int32 with a rounding mode chosen in the
 * tiling data (CAST_RINT/FLOOR/CEIL/ROUND/TRUNC), then int32 -> float
 * (CAST_NONE) as a second output.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength; // multiple of 16 elements
    uint32_t roundKey;   // 0 rint, 1 floor, 2 ceil, 3 round, 4 trunc
    uint32_t dtypeKey;   // 0 float source, 1 half source
};

__aicore__ inline AscendC::RoundMode ModeFromKey(uint32_t key)
{
    switch (key) {
        case 0: return AscendC::RoundMode::CAST_RINT;
        case 1: return AscendC::RoundMode::CAST_FLOOR;
        case 2: return AscendC::RoundMode::CAST_CEIL;
        case 3: return AscendC::RoundMode::CAST_ROUND;
        default: return AscendC::RoundMode::CAST_TRUNC;
    }
}

template <typename T>
class KernelCastToInt {
public:
    __aicore__ inline KernelCastToInt() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR zInt, GM_ADDR zBack, const TilingData &tiling)
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
        mode = ModeFromKey(tiling.roundKey);
        if (coreLength == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, coreLength);
        intGm.SetGlobalBuffer((__gm__ int32_t *)zInt + offset, coreLength);
        backGm.SetGlobalBuffer((__gm__ float *)zBack + offset, coreLength);
        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueInt, 2, tileLength * sizeof(int32_t));
        pipe.InitBuffer(outQueueBack, 2, tileLength * sizeof(float));
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
        AscendC::LocalTensor<int32_t> intLocal = outQueueInt.AllocTensor<int32_t>();
        AscendC::LocalTensor<float> backLocal = outQueueBack.AllocTensor<float>();
        AscendC::Cast(intLocal, xLocal, mode, count);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Cast(backLocal, intLocal, AscendC::RoundMode::CAST_NONE, count);
        outQueueInt.EnQue<int32_t>(intLocal);
        outQueueBack.EnQue<float>(backLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        AscendC::LocalTensor<int32_t> intLocal = outQueueInt.DeQue<int32_t>();
        AscendC::LocalTensor<float> backLocal = outQueueBack.DeQue<float>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(int32_t)), 0, 0, 0};
        AscendC::DataCopyPad(intGm[offset], intLocal, copyParams);
        AscendC::DataCopyPad(backGm[offset], backLocal, copyParams);
        outQueueInt.FreeTensor(intLocal);
        outQueueBack.FreeTensor(backLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueInt, outQueueBack;
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<int32_t> intGm;
    AscendC::GlobalTensor<float> backGm;
    AscendC::RoundMode mode = AscendC::RoundMode::CAST_RINT;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void cast_float_int32(GM_ADDR x, GM_ADDR zInt, GM_ADDR zBack, GM_ADDR workspace,
                                                        GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        KernelCastToInt<float> op;
        op.Init(x, zInt, zBack, t);
        op.Process();
    } else {
        KernelCastToInt<half> op;
        op.Init(x, zInt, zBack, t);
        op.Process();
    }
}
