// A convolution as one Mmad over the img2col of the feature map (Load3Dv2), as the Load3D.md / SetFmatrix.md
// examples build it: x is [C1, H, W, C0] half, w is [C1, Kh, Kw, Cout, C0] half (Cout = 16), y is [Ho * Wo, Cout]
// float. Padding, stride and dilation are the kernel's arguments; `viaRegisters` sets the feature map and the pad
// value with SetFmatrix / SetLoadDataPaddingValue instead of the parameters.
#include "kernel_operator.h"
using namespace AscendC;

constexpr IsResetLoad3dConfig FROM_REGISTERS = {false, false};

extern "C" __global__ __aicore__ void conv_img2col(GM_ADDR x, GM_ADDR w, GM_ADDR y, uint32_t H, uint32_t W,
                                                   uint32_t C, uint32_t K, uint32_t stride, uint32_t dilation,
                                                   uint32_t pad, uint32_t howo, uint32_t viaRegisters)
{
    constexpr uint32_t C0 = 16, COUT = 16;
    const uint32_t kTotal = C * K * K, howoRound = (howo + 15) / 16 * 16;
    GlobalTensor<half> xGm, wGm;
    GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x);
    wGm.SetGlobalBuffer((__gm__ half*)w);
    yGm.SetGlobalBuffer((__gm__ float*)y);
    TPipe pipe;
    TBuf<TPosition::A1> xL1Buf;
    TBuf<TPosition::B1> wL1Buf;
    TBuf<TPosition::A2> a2Buf;
    TBuf<TPosition::B2> b2Buf;
    TBuf<TPosition::CO1> c1Buf;
    pipe.InitBuffer(xL1Buf, C * H * W * sizeof(half));
    pipe.InitBuffer(wL1Buf, kTotal * COUT * sizeof(half));
    pipe.InitBuffer(a2Buf, howoRound * kTotal * sizeof(half));
    pipe.InitBuffer(b2Buf, kTotal * COUT * sizeof(half));
    pipe.InitBuffer(c1Buf, howoRound * COUT * sizeof(float));
    LocalTensor<half> xL1 = xL1Buf.Get<half>(), wL1 = wL1Buf.Get<half>();
    LocalTensor<half> a2 = a2Buf.Get<half>(), b2 = b2Buf.Get<half>();
    LocalTensor<float> c1 = c1Buf.Get<float>();

    DataCopy(xL1, xGm, C * H * W);
    DataCopy(wL1, wGm, kTotal * COUT);
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    uint8_t padList[4] = {uint8_t(pad), uint8_t(pad), uint8_t(pad), uint8_t(pad)};
    uint8_t k = K, s = stride, d = dilation;
    uint16_t h = H, wd = W, c = C, kExt = kTotal, mExt = howoRound;
    if (viaRegisters) {
        SetFmatrix(h, wd, padList, FmatrixMode::FMATRIX_LEFT);
        SetLoadDataPaddingValue(half(0));
        SetLoadDataRepeat({0, 1, 0});
        uint8_t nothing[4] = {9, 9, 9, 9};  // ignored: the registers hold the feature map
        LoadData<half, FROM_REGISTERS>(a2, xL1,
                                       {nothing, 1, 1, c, kExt, mExt, 0, 0, s, s, k, k, d, d, false, false, half(5)});
    } else {
        LoadData(a2, xL1, {padList, h, wd, c, kExt, mExt, 0, 0, s, s, k, k, d, d, false, false, half(0)});
    }
    LoadData(b2, wL1, LoadData2DParams(0, kTotal / C0, 1, 0, 0, false, 0));
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    Mmad(c1, a2, b2, MmadParams(howo, COUT, kTotal));
    SetFlag<HardEvent::M_FIX>(0);
    WaitFlag<HardEvent::M_FIX>(0);
    Fixpipe(yGm, c1, FixpipeParamsV220(COUT, howo, howoRound, COUT, false));
}
