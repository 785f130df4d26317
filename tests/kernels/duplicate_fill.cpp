/*
 * duplicate_fill: z[:] = value (torch.full), with Duplicate on a VECOUT
 * buffer and DataCopyPad for the tail. bfloat16 goes through ToBfloat16.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength;
    uint32_t dtypeKey; // 0 float, 1 half, 2 bfloat16, 3 int32, 4 int16
    float fvalue;      // value for floating types
    int32_t ivalue;    // value for integer types
};

template <typename T> __aicore__ inline T FillValue(const TilingData &t) { return static_cast<T>(t.fvalue); }
template <> __aicore__ inline bfloat16_t FillValue<bfloat16_t>(const TilingData &t)
{
    return AscendC::ToBfloat16(t.fvalue);
}
template <> __aicore__ inline int32_t FillValue<int32_t>(const TilingData &t) { return t.ivalue; }
template <> __aicore__ inline int16_t FillValue<int16_t>(const TilingData &t) { return static_cast<int16_t>(t.ivalue); }

template <typename T>
class KernelFill {
public:
    __aicore__ inline KernelFill() {}
    __aicore__ inline void Init(GM_ADDR z, const TilingData &tiling)
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
        value = FillValue<T>(tiling);
        if (coreLength == 0) {
            return;
        }
        zGm.SetGlobalBuffer((__gm__ T *)z + offset, coreLength);
        pipe.InitBuffer(outQueueZ, 2, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < coreLength; done += tileLength) {
            uint32_t count = coreLength - done < tileLength ? coreLength - done : tileLength;
            AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
            AscendC::Duplicate(zLocal, value, count);
            outQueueZ.EnQue<T>(zLocal);
            zLocal = outQueueZ.DeQue<T>();
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPad(zGm[done], zLocal, copyParams);
            outQueueZ.FreeTensor(zLocal);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueZ;
    AscendC::GlobalTensor<T> zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    T value;
};

template <typename T>
__aicore__ inline void RunFill(GM_ADDR z, const TilingData &tiling)
{
    KernelFill<T> op;
    op.Init(z, tiling);
    op.Process();
}

extern "C" __global__ __aicore__ void duplicate_fill(GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    switch (t.dtypeKey) {
        case 0: RunFill<float>(z, t); break;
        case 1: RunFill<half>(z, t); break;
        case 2: RunFill<bfloat16_t>(z, t); break;
        case 3: RunFill<int32_t>(z, t); break;
        default: RunFill<int16_t>(z, t); break;
    }
}
