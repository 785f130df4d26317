/*
 * unpaired_flag (negative test): SetFlag<HardEvent::MTE2_V> is set twice on the same
 * event id and waited once (SetFlag/WaitFlag must come in pairs).
 */
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void unpaired_flag(GM_ADDR x, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xBuf;
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, 64);
    zGm.SetGlobalBuffer((__gm__ float *)z, 64);
    pipe.InitBuffer(xBuf, 64 * sizeof(float));
    AscendC::LocalTensor<float> xLocal = xBuf.Get<float>();
    AscendC::TEventID id = GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE2_V);
    AscendC::DataCopy(xLocal, xGm, 64);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(id);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(id);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(id);
    AscendC::Muls(xLocal, xLocal, 2.0f, 64);
    AscendC::TEventID out = GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_MTE3);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(out);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(out);
    AscendC::DataCopy(zGm, xLocal, 64);
}
