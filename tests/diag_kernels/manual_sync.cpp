/*
 * manual_sync: y = x + x with TBuf memory and hand-written pipe synchronisation instead of queues,
 * the way kernels that tune their pipeline by hand are written: MTE2 loads a tile, V adds, MTE3
 * stores, and every hand-over between two pipes is a SetFlag/WaitFlag pair (MTE2->V, V->MTE3,
 * and, before a buffer is reused, V->MTE2 and MTE3->V).
 *
 * TilingData.mode 0 is the correct kernel; each other mode drops or misplaces one synchronisation,
 * on the line marked "// <- <case>". length is a multiple of tileLength, tileLength of 8.
 */
#include "kernel_operator.h"

enum Mode : uint32_t {
    OK = 0,
    WAIT_WITHOUT_SET = 1,
    SET_NEVER_WAITED = 2,
    NO_MTE2_TO_V = 3,
    NO_V_TO_MTE3 = 4,
    NO_V_TO_MTE2_BEFORE_RELOAD = 5,
    EVENT_ID_PER_TILE = 6,
    SCALAR_READ_WITHOUT_V_TO_S = 7,
    QUEUE_SYNC_HELPER = 8,  // correct: TQueSync instead of SetFlag/WaitFlag
};

struct TilingData {
    uint32_t length;
    uint32_t tileLength;
    uint32_t mode;
};

class KernelManualSync {
public:
    __aicore__ inline KernelManualSync() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR checksum, const TilingData &tiling)
    {
        length = tiling.length;
        tileLength = tiling.tileLength;
        mode = tiling.mode;
        xGm.SetGlobalBuffer((__gm__ float *)x, length);
        yGm.SetGlobalBuffer((__gm__ float *)y, length);
        checksumGm.SetGlobalBuffer((__gm__ float *)checksum, 1);
        pipe.InitBuffer(xBuf, tileLength * sizeof(float));
        pipe.InitBuffer(yBuf, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> xLocal = xBuf.Get<float>();
        AscendC::LocalTensor<float> yLocal = yBuf.Get<float>();
        AscendC::TEventID mte2ToV = GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE2_V);
        AscendC::TEventID vToMte3 = GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_MTE3);
        AscendC::TEventID vToMte2 = GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_MTE2);
        AscendC::TEventID mte3ToV = GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE3_V);
        uint32_t tiles = length / tileLength;
        for (uint32_t i = 0; i < tiles; i++) {
            if (i > 0 && mode != NO_V_TO_MTE2_BEFORE_RELOAD) {
                AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(vToMte2);
            }
            AscendC::DataCopy(xLocal, xGm[i * tileLength], tileLength); // <- no_v_to_mte2_before_reload
            if (mode == QUEUE_SYNC_HELPER) {
                AscendC::TQueSync<PIPE_MTE2, PIPE_V> sync;
                sync.SetFlag(mte2ToV);
                sync.WaitFlag(mte2ToV);
            } else if (mode == EVENT_ID_PER_TILE) {
                AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(i); // <- event_id_per_tile
                AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(i);
            } else if (mode != NO_MTE2_TO_V) {
                if (mode != WAIT_WITHOUT_SET) AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(mte2ToV);
                AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(mte2ToV); // <- wait_without_set
            }
            if (i > 0) AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(mte3ToV);
            AscendC::Add(yLocal, xLocal, xLocal, tileLength); // <- no_mte2_to_v
            if (i + 1 < tiles && mode != NO_V_TO_MTE2_BEFORE_RELOAD) {
                AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(vToMte2);
            }
            if (mode != NO_V_TO_MTE3) {
                AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(vToMte3);
                AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(vToMte3);
            }
            AscendC::DataCopy(yGm[i * tileLength], yLocal, tileLength); // <- no_v_to_mte3
            if (i + 1 < tiles) AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(mte3ToV);
        }
        if (mode == SET_NEVER_WAITED) {
            AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(vToMte3); // <- set_never_waited
        }
        if (mode == SCALAR_READ_WITHOUT_V_TO_S) {
            float last = yLocal.GetValue(0); // <- scalar_read_without_v_to_s
            checksumGm.SetValue(0, last);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xBuf, yBuf;
    AscendC::GlobalTensor<float> xGm, yGm, checksumGm;
    uint32_t length;
    uint32_t tileLength;
    uint32_t mode;
};

extern "C" __global__ __aicore__ void manual_sync(GM_ADDR x, GM_ADDR y, GM_ADDR checksum, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelManualSync op;
    op.Init(x, y, checksum, tilingData);
    op.Process();
}
