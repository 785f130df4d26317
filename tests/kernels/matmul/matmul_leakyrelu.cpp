// Matmul + LeakyRelu in one mixed kernel (the documented fused pattern): each vector core of a KERNEL_TYPE_MIX_AIC_1_2
// launch takes its part of C block by block with Iterate + GetTensorC into a VECIN queue tensor, applies LeakyRelu on
// the vector unit and copies the block to GM.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "host/tiling/tiling_api.h"
using namespace AscendC;

struct TilingData {
    float alpha;
    int32_t status;
    TCubeTiling cube;
};

// Shapes: [M, N, K], [vector cores, alpha * 1000].
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    (void)coreNum, (void)tensorCount, (void)ranks;
    namespace mt = matmul_tiling;
    int32_t m = int32_t(dims[0]), n = int32_t(dims[1]), k = int32_t(dims[2]);
    mt::MultiCoreMatmulTiling tiling;
    tiling.SetDim(int32_t(dims[3]));
    tiling.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
    tiling.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
    tiling.SetCType(mt::TPosition::VECIN, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
    tiling.SetBiasType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
    tiling.SetShape(m, n, k);
    tiling.SetOrgShape(m, n, k);
    tiling.EnableBias(true);
    tiling.SetFixSplit(32, 64, -1);
    t->alpha = float(dims[4]) / 1000.0f;
    t->status = int32_t(tiling.GetTiling(t->cube));
    *workspaceBytes = 0;
    return t->status == 0 ? uint32_t(t->cube.usedCoreNum + 1) / 2 : 1;  // two vector cores per block
}

__aicore__ inline int32_t CeilDiv(int32_t a, int32_t b) { return (a + b - 1) / b; }
__aicore__ inline int32_t Min(int32_t a, int32_t b) { return a < b ? a : b; }

extern "C" __global__ __aicore__ void matmul_leakyrelu(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                       GM_ADDR workspace, GM_ADDR tilingGm)
{
    GET_TILING_DATA(td, tilingGm);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::VECIN, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &td.cube);
    const TCubeTiling& t = td.cube;
    int32_t idx = GetBlockIdx();
    if (idx >= t.usedCoreNum) return;
    int32_t mBlocks = CeilDiv(t.M, t.singleCoreM);
    int32_t m0 = idx % mBlocks * t.singleCoreM, n0 = idx / mBlocks * t.singleCoreN;
    int32_t tailM = Min(t.M - m0, t.singleCoreM), tailN = Min(t.N - n0, t.singleCoreN);
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a + m0 * t.Ka);
    bGm.SetGlobalBuffer((__gm__ half*)b + n0);
    biasGm.SetGlobalBuffer((__gm__ float*)bias + n0);
    cGm.SetGlobalBuffer((__gm__ float*)c + m0 * t.N + n0);
    TQue<TPosition::VECIN, 1> reluQueue;
    pipe.InitBuffer(reluQueue, 1, t.baseM * t.baseN * sizeof(float));
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    mm.SetBias(biasGm);
    mm.SetTail(tailM, tailN);
    int32_t mIter = CeilDiv(tailM, t.baseM), count = 0;
    while (mm.template Iterate<true>()) {
        int32_t bm = count % mIter, bn = count / mIter;
        int32_t rows = Min(tailM - bm * t.baseM, t.baseM), cols = Min(tailN - bn * t.baseN, t.baseN);
        LocalTensor<float> block = reluQueue.AllocTensor<float>();
        mm.GetTensorC(block, false, true);
        LeakyRelu(block, block, td.alpha, t.baseM * t.baseN);
        reluQueue.EnQue(block);
        block = reluQueue.DeQue<float>();
        DataCopyExtParams params{uint16_t(rows), uint32_t(cols * sizeof(float)), 0,
                                 uint32_t((t.N - cols) * sizeof(float)), 0};
        DataCopyPad(cGm[bm * t.baseM * t.N + bn * t.baseN], block, params);
        reluQueue.FreeTensor(block);
        ++count;
    }
    mm.End();
}
