// One 16 x 32 x 16 half matmul (C = A x B, float out) on TBufs with explicit flags; `mode` breaks one rule:
// 1 L0A operand off its 512-byte boundary, 2 a half CO1 (no such Mmad), 3 Mmad's k past what L0A holds,
// 4 no MTE1 -> M flag before Mmad, 5 no M -> FIX flag before Fixpipe, 6 F322F16 into a float tensor,
// 7 ifTranspose on a B1 -> A1 load; and the initial C: 8 a float bias row through C1 -> C2 (C = A x B + bias),
// 9 a second Mmad that accumulates (cmatrixInitVal false: C = 2 A x B), 10 a half bias widened to float in C2;
// 11 no M -> FIX flag but unitFlag 3 on Mmad and Fixpipe (the hardware's own hand-over); 12 A's second K block
// (L0A) and B (L1) filled by InitConstValue with 1 and 2 instead of loaded: C = A[:, :16] x B[:16] + 1 * 2 * 16;
// 13 the Fixpipe run twice under SetAtomicAdd<float>: C = 2 A x B.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void cube_rules(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, uint32_t mode)
{
    constexpr uint32_t M = 16, K = 32, N = 16;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm, biasGm;
    GlobalTensor<half> biasHalfGm;
    biasGm.SetGlobalBuffer((__gm__ float*)bias);
    biasHalfGm.SetGlobalBuffer((__gm__ half*)bias);
    aGm.SetGlobalBuffer((__gm__ half*)a);
    bGm.SetGlobalBuffer((__gm__ half*)b);
    cGm.SetGlobalBuffer((__gm__ float*)c);
    TPipe pipe;
    TBuf<TPosition::A1> a1Buf;
    TBuf<TPosition::B1> b1Buf;
    TBuf<TPosition::A2> a2Buf;
    TBuf<TPosition::B2> b2Buf;
    TBuf<TPosition::CO1> c1Buf;
    TBuf<TPosition::C1> biasL1Buf;
    TBuf<TPosition::C2> biasBtBuf;
    pipe.InitBuffer(a1Buf, M * K * sizeof(half));
    pipe.InitBuffer(b1Buf, K * N * sizeof(half));
    pipe.InitBuffer(a2Buf, 2 * M * K * sizeof(half));
    pipe.InitBuffer(b2Buf, K * N * sizeof(half));
    pipe.InitBuffer(c1Buf, M * N * sizeof(float));
    pipe.InitBuffer(biasL1Buf, N * sizeof(float));
    pipe.InitBuffer(biasBtBuf, 2 * N * sizeof(float));  // a half bias moves in 64-byte units: 32 of them
    LocalTensor<half> a1 = a1Buf.Get<half>(), b1 = b1Buf.Get<half>(), b2 = b2Buf.Get<half>();
    LocalTensor<half> a2 = a2Buf.Get<half>(M * K);
    LocalTensor<float> c1 = c1Buf.Get<float>();

    DataCopy(a1, aGm, Nd2NzParams(1, M, K, 0, K, M, 1, 0));
    DataCopy(b1, bGm, Nd2NzParams(1, K, N, 0, N, K, 1, 0));
    LocalTensor<float> biasL1 = biasL1Buf.Get<float>(), biasBt = biasBtBuf.Get<float>();
    if (mode == 8) DataCopy(biasL1, biasGm, N);
    if (mode == 10) DataCopy(biasL1.ReinterpretCast<half>(), biasHalfGm, 2 * N);
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    if (mode == 8) DataCopy(biasBt, biasL1, DataCopyParams(1, N * sizeof(float) / 64, 0, 0));
    if (mode == 10)
        DataCopy(biasBt, biasL1.ReinterpretCast<half>(), DataCopyParams(1, 2 * N * sizeof(half) / 64, 0, 0));
    LoadData(mode == 1 ? a2Buf.Get<half>()[8] : a2, a1, LoadData2DParams(0, M * K / 256, 1, 0, 0, false, 0));
    LoadData(mode == 7 ? a1 : b2, b1, LoadData2DParams(0, K / 16, 1, 0, 0, true, 0));
    if (mode == 12) {
        InitConstValue(a2[256], InitConstValueParams<half>(1, 1, 0, half(1)));  // fractal (0, 1): A[:, 16:32] = 1
        InitConstValue(b2[256], InitConstValueParams<half>(1, 1, 0, half(2)));  // fractal (1, 0): B[16:32, :] = 2
    }
    if (mode != 4) {
        SetFlag<HardEvent::MTE1_M>(0);
        WaitFlag<HardEvent::MTE1_M>(0);
    }
    if (mode == 2) {
        LocalTensor<half> c1Half = c1Buf.Get<half>();
        Mmad(c1Half, a2, b2, MmadParams(M, N, K));
    }
    if (mode == 8 || mode == 10) {
        Mmad(c1, a2, b2, biasBt, MmadParams(M, N, K));
    } else {
        Mmad(c1, a2, b2, MmadParams(M, N, mode == 3 ? 2 * K : K, mode == 11 ? 3 : 0, false, true));
    }
    if (mode == 9) Mmad(c1, a2, b2, MmadParams(M, N, K, 0, false, false));
    if (mode != 5 && mode != 11) {
        SetFlag<HardEvent::M_FIX>(0);
        WaitFlag<HardEvent::M_FIX>(0);
    }
    FixpipeParamsV220 fix;
    fix.nSize = N; fix.mSize = M; fix.srcStride = M; fix.dstStride = N;
    if (mode == 6) fix.quantPre = QuantMode_t::F322F16;
    if (mode == 11) fix.unitFlag = 3;
    if (mode == 13) SetAtomicAdd<float>();
    Fixpipe(cGm, c1, fix);
    if (mode == 13) {
        Fixpipe(cGm, c1, fix);
        SetAtomicNone();
    }
}
