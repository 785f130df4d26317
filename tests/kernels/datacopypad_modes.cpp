/*
 * datacopypad_modes: the DataCopyPad parameter semantics, dumped whole to GM.
 * GM -> UB (DataCopyExtParams{blockCount, blockLen bytes, srcStride GM bytes,
 * dstStride UB 32-byte blocks, rsv}, DataCopyPadExtParams<float>{isPad,
 * leftPadding, rightPadding, padValue}):
 *   a: 5 floats from x[3], leftPadding 2, rightPadding 1, pad -7     -> 8 floats
 *   b: 5 floats from x[0], rightPadding 1, pad -7 (24 bytes; the rest of the
 *      32-byte block is padding too)                                  -> 8 floats
 *   c: 3 floats from x[10], no padding: the rest of the block is the "dummy"
 *      filled with the first element of the block (DataCopyPad(ISASI).md)
 *   d: 3 blocks of 3 floats from x[20], GM gap 16 bytes, rightPadding 5 (pad 0.5),
 *      UB gap 1 block, over a buffer pre-filled with 9                -> 48 floats
 * UB -> GM (srcStride UB blocks, dstStride GM bytes):
 *   e: the 3 blocks of d, UB gap 1 block, GM gap 8 bytes, to e[1]; e starts zeroed.
 */
#include "kernel_operator.h"

class KernelDataCopyPadModes {
public:
    __aicore__ inline KernelDataCopyPadModes() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR d, GM_ADDR e)
    {
        xGm.SetGlobalBuffer((__gm__ float *)x, 64);
        aGm.SetGlobalBuffer((__gm__ float *)a, 8);
        bGm.SetGlobalBuffer((__gm__ float *)b, 8);
        cGm.SetGlobalBuffer((__gm__ float *)c, 8);
        dGm.SetGlobalBuffer((__gm__ float *)d, 48);
        eGm.SetGlobalBuffer((__gm__ float *)e, 16);
        pipe.InitBuffer(buf, 96 * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<float> all = buf.Get<float>();
        AscendC::LocalTensor<float> aLocal = all;
        AscendC::LocalTensor<float> bLocal = all[8];
        AscendC::LocalTensor<float> cLocal = all[16];
        AscendC::LocalTensor<float> dLocal = all[32];

        AscendC::Duplicate(dLocal, 9.0f, 48);
        AscendC::TEventID vToMte2 = GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_MTE2);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(vToMte2);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(vToMte2);

        AscendC::DataCopyExtParams aParams{1, 5 * sizeof(float), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> aPad{true, 2, 1, -7.0f};
        AscendC::DataCopyPad(aLocal, xGm[3], aParams, aPad);

        AscendC::DataCopyExtParams bParams{1, 5 * sizeof(float), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> bPad{true, 0, 1, -7.0f};
        AscendC::DataCopyPad(bLocal, xGm, bParams, bPad);

        AscendC::DataCopyExtParams cParams{1, 3 * sizeof(float), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> cPad{false, 0, 0, 0.0f};
        AscendC::DataCopyPad(cLocal, xGm[10], cParams, cPad);

        AscendC::DataCopyExtParams dParams{3, 3 * sizeof(float), 4 * sizeof(float), 1, 0};
        AscendC::DataCopyPadExtParams<float> dPad{true, 0, 5, 0.5f};
        AscendC::DataCopyPad(dLocal, xGm[20], dParams, dPad);

        AscendC::TEventID mte2ToMte3 = GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE2_MTE3);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(mte2ToMte3);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(mte2ToMte3);

        AscendC::DataCopy(aGm, aLocal, 8);
        AscendC::DataCopy(bGm, bLocal, 8);
        AscendC::DataCopy(cGm, cLocal, 8);
        AscendC::DataCopy(dGm, dLocal, 48);
        AscendC::DataCopyExtParams eParams{3, 3 * sizeof(float), 1, 2 * sizeof(float), 0};
        AscendC::DataCopyPad(eGm[1], dLocal, eParams);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    AscendC::GlobalTensor<float> xGm, aGm, bGm, cGm, dGm, eGm;
};

extern "C" __global__ __aicore__ void datacopypad_modes(GM_ADDR x, GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR d,
                                                         GM_ADDR e)
{
    KernelDataCopyPadModes op;
    op.Init(x, a, b, c, d, e);
    op.Process();
}
