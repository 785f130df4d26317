/*
 * cube_fractal: C = A x B for one 16 x 32 x 16 half product on the cube, the way hand-written cube kernels do it:
 * Nd2Nz copies into L1, LoadData into L0A/L0B, Mmad into L0C, Fixpipe out to GM, with SetFlag/WaitFlag between the
 * pipes (MTE2 -> MTE1 -> M -> FIX).
 *
 * TilingData.mode 0 is the correct kernel; each other mode breaks one cube rule on the line marked "// <- <case>".
 */
#include "kernel_operator.h"
using namespace AscendC;

enum Mode : uint32_t {
    OK = 0,
    L0A_OFF_FRACTAL = 1,  // A loaded 8 halves into L0A: not on a 512-byte fractal boundary
    HALF_CO1 = 2,         // L0C declared half: the cube accumulates half products in float
};

struct TilingData {
    uint32_t mode;
};

extern "C" __global__ __aicore__ void cube_fractal(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    constexpr uint32_t M = 16, K = 32, N = 16;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a);
    bGm.SetGlobalBuffer((__gm__ half*)b);
    cGm.SetGlobalBuffer((__gm__ float*)c);
    TPipe pipe;
    TBuf<TPosition::A1> a1Buf;
    TBuf<TPosition::B1> b1Buf;
    TBuf<TPosition::A2> a2Buf;
    TBuf<TPosition::B2> b2Buf;
    TBuf<TPosition::CO1> c1Buf;
    pipe.InitBuffer(a1Buf, M * K * sizeof(half));
    pipe.InitBuffer(b1Buf, K * N * sizeof(half));
    pipe.InitBuffer(a2Buf, 2 * M * K * sizeof(half));
    pipe.InitBuffer(b2Buf, K * N * sizeof(half));
    pipe.InitBuffer(c1Buf, M * N * sizeof(float));
    LocalTensor<half> a1 = a1Buf.Get<half>(), b1 = b1Buf.Get<half>(), a2 = a2Buf.Get<half>(), b2 = b2Buf.Get<half>();

    DataCopy(a1, aGm, Nd2NzParams(1, M, K, 0, K, M, 1, 0));
    DataCopy(b1, bGm, Nd2NzParams(1, K, N, 0, N, K, 1, 0));
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    LocalTensor<half> a2Dst = tilingData.mode == L0A_OFF_FRACTAL ? a2[8] : a2;
    LoadData(a2Dst, a1, LoadData2DParams(0, M * K / 256, 1, 0, 0, false, 0));  // <- l0a_off_fractal
    LoadData(b2, b1, LoadData2DParams(0, K / 16, 1, 0, 0, true, 0));
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    if (tilingData.mode == HALF_CO1) {
        LocalTensor<half> c1Half = c1Buf.Get<half>();
        Mmad(c1Half, a2, b2, MmadParams(M, N, K));  // <- half_co1
    }
    LocalTensor<float> c1 = c1Buf.Get<float>();
    Mmad(c1, a2, b2, MmadParams(M, N, K));
    SetFlag<HardEvent::M_FIX>(0);
    WaitFlag<HardEvent::M_FIX>(0);
    Fixpipe(cGm, c1, FixpipeParamsV220(N, M, M, N, false));
}
