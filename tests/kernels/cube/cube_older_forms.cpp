// The older spellings public cube kernels use: Load3Dv2 (1 x W feature maps) loading an NZ matrix of L1 into L0A
// and into L0B, the 8-argument MmadParams with isBias (the second Mmad adds to L0C), and the v200
// Fixpipe(GM, CO1, FixpipeParams<float>) both with NZ2ND (half rows) and without (NZ columns 2 blocks apart).
// Y = A x B + A x E, A: M x K, B and E: K x N, all half.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t M = 32, K = 32, N = 48;
constexpr uint32_t NZ_GAP = 2;  // 32-byte blocks between the NZ columns in GM

__aicore__ inline void LoadNzByLoad3d(const LocalTensor<half>& dst, const LocalTensor<half>& src, uint16_t rows,
                                      uint16_t cols)
{
    LoadData3DParamsV2<half> params;
    params.l1H = 1;
    params.l1W = rows;
    params.channelSize = cols;
    params.kExtension = cols;
    params.mExtension = rows;
    LoadData(dst, src, params);
}

extern "C" __global__ __aicore__ void cube_older_forms(GM_ADDR a, GM_ADDR b, GM_ADDR e, GM_ADDR yHalf, GM_ADDR yNz)
{
    GlobalTensor<half> aGm, bGm, eGm, yHalfGm;
    GlobalTensor<float> yNzGm;
    aGm.SetGlobalBuffer((__gm__ half*)a);
    bGm.SetGlobalBuffer((__gm__ half*)b);
    eGm.SetGlobalBuffer((__gm__ half*)e);
    yHalfGm.SetGlobalBuffer((__gm__ half*)yHalf);
    yNzGm.SetGlobalBuffer((__gm__ float*)yNz);
    TPipe pipe;
    TBuf<TPosition::A1> aL1Buf;
    TBuf<TPosition::B1> bL1Buf, eL1Buf;
    TBuf<TPosition::A2> a2Buf;
    TBuf<TPosition::B2> b2Buf;
    TBuf<TPosition::CO1> c1Buf;
    pipe.InitBuffer(aL1Buf, M * K * sizeof(half));
    pipe.InitBuffer(bL1Buf, K * N * sizeof(half));
    pipe.InitBuffer(eL1Buf, K * N * sizeof(half));
    pipe.InitBuffer(a2Buf, M * K * sizeof(half));
    pipe.InitBuffer(b2Buf, K * N * sizeof(half));
    pipe.InitBuffer(c1Buf, M * N * sizeof(float));
    LocalTensor<half> aL1 = aL1Buf.Get<half>(), bL1 = bL1Buf.Get<half>(), eL1 = eL1Buf.Get<half>();
    LocalTensor<half> a2 = a2Buf.Get<half>(), b2 = b2Buf.Get<half>();
    LocalTensor<float> c1 = c1Buf.Get<float>();

    DataCopy(aL1, aGm, Nd2NzParams(1, M, K, 0, K, M, 1, 0));
    DataCopy(bL1, bGm, Nd2NzParams(1, K, N, 0, N, K, 1, 0));
    DataCopy(eL1, eGm, Nd2NzParams(1, K, N, 0, N, K, 1, 0));
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    LoadNzByLoad3d(a2, aL1, M, K);
    LoadNzByLoad3d(b2, bL1, K, N);
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    Mmad(c1, a2, b2, {M, N, K, false, 0, false, false, false});
    SetFlag<HardEvent::M_MTE1>(0);
    WaitFlag<HardEvent::M_MTE1>(0);
    LoadNzByLoad3d(b2, eL1, K, N);
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    Mmad(c1, a2, b2, {M, N, K, true, 0, false, false, false});
    SetFlag<HardEvent::M_FIX>(0);
    WaitFlag<HardEvent::M_FIX>(0);

    FixpipeParams<float> toNd;
    toNd.cburstNum = N / 16;
    toNd.burstLen = M * 16 * sizeof(float) / 32;
    toNd.dstStride = N;
    toNd.quantParams = {QuantMode_t::F322F16};
    toNd.nz2ndParams.nz2ndEn = true;
    toNd.nz2ndParams.originalNSize = N;
    Fixpipe(yHalfGm, c1, toNd);
    FixpipeParams<float> toNz;
    toNz.cburstNum = N / 16;
    toNz.burstLen = M * 16 * sizeof(float) / 32;
    toNz.dstStride = NZ_GAP;
    Fixpipe(yNzGm, c1, toNz);
}
