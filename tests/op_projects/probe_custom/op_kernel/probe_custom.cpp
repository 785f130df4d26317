#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void probe_custom(GM_ADDR x, GM_ADDR bias, GM_ADDR scale, GM_ADDR y,
                                                   GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    GET_TILING_DATA_WITH_STRUCT(ProbeTilingData, sameData, tiling);
    GET_TILING_DATA_MEMBER(ProbeTilingData, length, lengthMember, tiling);
    if (sameData.mode != tilingData.mode || lengthMember != tilingData.length) {
        return;  // y keeps its poison: the test sees the tiling read three ways disagree
    }
    GlobalTensor<DTYPE_X> xGm, biasGm, stageGm;
    GlobalTensor<DTYPE_Y> yGm;
    uint32_t length = tilingData.length;
    xGm.SetGlobalBuffer((__gm__ DTYPE_X *)x, length);
    yGm.SetGlobalBuffer((__gm__ DTYPE_Y *)y, length);
    stageGm.SetGlobalBuffer((__gm__ DTYPE_X *)GetUserWorkspace(workspace), length);
    if (tilingData.hasBias) {
        biasGm.SetGlobalBuffer((__gm__ DTYPE_BIAS *)bias, length);
    }
    uint32_t reads = tilingData.mode == 7 ? length + 8 : length;
    for (uint32_t i = 0; i < reads; i++) {
        stageGm.SetValue(i, xGm.GetValue(i));
    }
    for (uint32_t i = 0; i < length; i++) {
        DTYPE_X value = stageGm.GetValue(i);
        if (tilingData.hasBias) {
            value = value + biasGm.GetValue(i);
        }
        if (tilingData.hasScale) {
            value = value * tilingData.scaleValue;
        }
        yGm.SetValue(i, value);
    }
}
