#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;

__aicore__ inline int32_t CeilDiv(int32_t a, int32_t b) { return (a + b - 1) / b; }

extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR workspace,
                                                    GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tilingData.cubeTilingData);
    const TCubeTiling &t = tilingData.cubeTilingData;
    int32_t idx = GetBlockIdx();
    if (idx >= t.usedCoreNum) {
        return;
    }
    int32_t mBlocks = CeilDiv(t.M, t.singleCoreM);
    int32_t m0 = idx % mBlocks * t.singleCoreM, n0 = idx / mBlocks * t.singleCoreN;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half *)a + m0 * t.Ka);
    bGm.SetGlobalBuffer((__gm__ half *)b + n0);
    biasGm.SetGlobalBuffer((__gm__ float *)bias + n0);
    cGm.SetGlobalBuffer((__gm__ float *)c + m0 * t.N + n0);
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    if (tilingData.hasBias) {
        mm.SetBias(biasGm);
    }
    int32_t tailM = t.M - m0 < t.singleCoreM ? t.M - m0 : t.singleCoreM;
    int32_t tailN = t.N - n0 < t.singleCoreN ? t.N - n0 : t.singleCoreN;
    mm.SetTail(tailM, tailN);
    mm.IterateAll(cGm);
    mm.End();
}
