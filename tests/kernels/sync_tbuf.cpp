/*
 * sync_tbuf: z = (x + y) * x with TBuf-only buffers and explicit pipe
 * synchronisation instead of queues:
 *   MTE2 -> V  : SetFlag/WaitFlag<HardEvent::MTE2_V>
 *   V -> V     : PipeBarrier<PIPE_V>
 *   V -> MTE3  : SetFlag/WaitFlag<HardEvent::V_MTE3>
 *   MTE3 -> MTE2 before the next tile overwrites the buffers.
 * Event ids come from GetTPipePtr()->FetchEventID.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t formerNum;
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength;
};

class KernelSyncTBuf {
public:
    __aicore__ inline KernelSyncTBuf() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &tiling)
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
        if (coreLength == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, coreLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, coreLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + offset, coreLength);
        pipe.InitBuffer(xBuf, tileLength * sizeof(float));
        pipe.InitBuffer(yBuf, tileLength * sizeof(float));
        pipe.InitBuffer(zBuf, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        if (coreLength == 0) {
            return;
        }
        AscendC::LocalTensor<float> xLocal = xBuf.Get<float>();
        AscendC::LocalTensor<float> yLocal = yBuf.Get<float>();
        AscendC::LocalTensor<float> zLocal = zBuf.Get<float>();
        AscendC::TEventID eventMte2V = GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE2_V);
        AscendC::TEventID eventVMte3 = GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_MTE3);
        AscendC::TEventID eventMte3Mte2 = GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE3_MTE2);
        for (uint32_t done = 0; done < coreLength; done += tileLength) {
            uint32_t count = coreLength - done < tileLength ? coreLength - done : tileLength;
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            AscendC::DataCopyPad(xLocal, xGm[done], copyParams, padParams);
            AscendC::DataCopyPad(yLocal, yGm[done], copyParams, padParams);
            AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(eventMte2V);
            AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(eventMte2V);

            AscendC::Add(zLocal, xLocal, yLocal, count);
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Mul(zLocal, zLocal, xLocal, count);
            AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(eventVMte3);
            AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(eventVMte3);

            AscendC::DataCopyPad(zGm[done], zLocal, copyParams);
            AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(eventMte3Mte2);
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(eventMte3Mte2);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xBuf, yBuf, zBuf;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void sync_tbuf(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelSyncTBuf op;
    op.Init(x, y, z, t);
    op.Process();
}
