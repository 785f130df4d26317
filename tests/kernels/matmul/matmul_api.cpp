// The high-level Matmul API on the simulator (sim/matmul.h), with its host tiling (host/tiling/matmul_tiling.h)
// computed in the contract's tiling function. One entry for every case: `dtype` picks the A/B -> C types, `mode` how
// the result is taken, `breakage` a misuse the diagnostics tests ask for.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "host/tiling/tiling_api.h"
using namespace AscendC;

// dtype: 0 half -> float, 1 half -> half, 2 bfloat16 -> float, 3 int8 -> int32, 4 float -> float, 5 bfloat16 ->
// bfloat16. mode: 0 IterateAll to GM, 1 Iterate + GetTensorC to GM, 2 Iterate + GetTensorC into a VECIN tensor
// (sequential) then DataCopyPad to GM, 3 Iterate + GetTensorC(gm, 0, true): block i at i * baseM * baseN (one core).
struct TilingData {
    int32_t dtype;
    int32_t mode;
    int32_t transA;
    int32_t transB;
    int32_t status;  // GetTiling's result
    int32_t pad;
    TCubeTiling cube;
};

// Shapes: [M, N, K], [dtype, mode, transA, transB, bias, cores, baseM, baseN, baseK, l0cBytes].
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    (void)coreNum, (void)tensorCount, (void)ranks;
    namespace mt = matmul_tiling;
    int32_t m = int32_t(dims[0]), n = int32_t(dims[1]), k = int32_t(dims[2]);
    const int64_t* o = dims + 3;
    t->dtype = int32_t(o[0]), t->mode = int32_t(o[1]), t->transA = int32_t(o[2]), t->transB = int32_t(o[3]);
    using DT = mt::DataType;
    static const DT in[] = {DT::DT_FLOAT16, DT::DT_FLOAT16, DT::DT_BF16, DT::DT_INT8, DT::DT_FLOAT, DT::DT_BF16};
    static const DT out[] = {DT::DT_FLOAT, DT::DT_FLOAT16, DT::DT_FLOAT, DT::DT_INT32, DT::DT_FLOAT, DT::DT_BF16};
    mt::PlatformInfo platform;
    platform.l0CSize = uint64_t(o[9]);  // 0: the default (Atlas A2)
    mt::MultiCoreMatmulTiling tiling(platform);
    tiling.SetDim(int32_t(o[5]));
    tiling.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, in[t->dtype], o[2] != 0);
    tiling.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, in[t->dtype], o[3] != 0);
    tiling.SetCType(t->mode == 2 ? mt::TPosition::VECIN : mt::TPosition::GM, mt::CubeFormat::ND, out[t->dtype]);
    tiling.SetBiasType(mt::TPosition::GM, mt::CubeFormat::ND, t->dtype == 3 ? DT::DT_INT32 : DT::DT_FLOAT);
    tiling.SetShape(m, n, k);
    tiling.SetOrgShape(m, n, k);
    tiling.EnableBias(o[4] != 0);
    tiling.SetFixSplit(int32_t(o[6]), int32_t(o[7]), int32_t(o[8]));
    tiling.SetBufferSpace(-1, -1, -1);
    t->status = int32_t(tiling.GetTiling(t->cube));
    *workspaceBytes = 0;
    return t->status == 0 ? uint32_t(t->cube.usedCoreNum) : 1;
}

__aicore__ inline int32_t CeilDiv(int32_t a, int32_t b) { return (a + b - 1) / b; }

template <typename A, typename C, typename Bias, TPosition CPos>
__aicore__ inline void Run(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, const TilingData& td, uint32_t breakage)
{
    using AType = MatmulType<TPosition::GM, CubeFormat::ND, A, true>;
    using CType = MatmulType<CPos, CubeFormat::ND, C>;
    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, Bias>;
    TCubeTiling tiling = td.cube;
    TPipe pipe;
    Matmul<AType, AType, CType, BiasType> mm;
    if (breakage == 1) mm.SetTensorA(GlobalTensor<A>{});  // @before_init
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);  // @regist

    int32_t mBlocks = CeilDiv(tiling.M, tiling.singleCoreM);
    int32_t mi = int32_t(GetBlockIdx()) % mBlocks, ni = int32_t(GetBlockIdx()) / mBlocks;
    int32_t m0 = mi * tiling.singleCoreM, n0 = ni * tiling.singleCoreN;
    int32_t tailM = tiling.M - m0 < tiling.singleCoreM ? tiling.M - m0 : tiling.singleCoreM;
    int32_t tailN = tiling.N - n0 < tiling.singleCoreN ? tiling.N - n0 : tiling.singleCoreN;
    GlobalTensor<A> ag, bg;
    GlobalTensor<C> cg;
    GlobalTensor<Bias> biasg;
    ag.SetGlobalBuffer(reinterpret_cast<__gm__ A*>(a) + (td.transA ? m0 : m0 * tiling.Ka));
    bg.SetGlobalBuffer(reinterpret_cast<__gm__ A*>(b) + (td.transB ? n0 * tiling.Kb : n0));
    cg.SetGlobalBuffer(reinterpret_cast<__gm__ C*>(c) + m0 * tiling.N + n0);
    biasg.SetGlobalBuffer(reinterpret_cast<__gm__ Bias*>(bias) + n0);

    if (breakage != 2) mm.SetTensorA(ag, td.transA != 0);
    mm.SetTensorB(bg, td.transB != 0);
    if (tiling.isBias) mm.SetBias(biasg);
    if (tailM < tiling.singleCoreM || tailN < tiling.singleCoreN) mm.SetTail(tailM, tailN);
    if (breakage == 3) mm.End();
    if (td.mode == 0) {
        mm.IterateAll(cg);  // @iterate_all
    } else if (td.mode == 1) {
        while (mm.Iterate()) {  // @iterate
            mm.GetTensorC(cg);
        }
    } else {
        constexpr int32_t align = 32 / sizeof(C);
        TQue<TPosition::VECIN, 1> cq;
        pipe.InitBuffer(cq, 1, tiling.baseM * CeilDiv(tiling.baseN, align) * align * sizeof(C));
        int32_t mIter = CeilDiv(tailM, tiling.baseM), count = 0;
        while (mm.Iterate()) {
            int32_t bm = count % mIter, bn = count / mIter;
            int32_t rows = tailM - bm * tiling.baseM < tiling.baseM ? tailM - bm * tiling.baseM : tiling.baseM;
            int32_t cols = tailN - bn * tiling.baseN < tiling.baseN ? tailN - bn * tiling.baseN : tiling.baseN;
            int32_t at = bm * tiling.baseM * tiling.N + bn * tiling.baseN;
            if (td.mode == 3) {  // block after block, baseM * baseN apart (the test puts them in place)
                GlobalTensor<C> block;
                block.SetGlobalBuffer(reinterpret_cast<__gm__ C*>(c) + count * tiling.baseM * tiling.baseN);
                mm.GetTensorC(block, 0, true);
            } else {
                LocalTensor<C> ct = cq.AllocTensor<C>();
                mm.GetTensorC(ct, 0, true);
                cq.EnQue(ct);
                ct = cq.DeQue<C>();
                DataCopyExtParams params{uint16_t(rows), uint32_t(cols * sizeof(C)), 0,
                                         uint32_t((tiling.N - cols) * sizeof(C)), 0};
                DataCopyPad(cg[at], ct, params);
                cq.FreeTensor(ct);
            }
            ++count;
        }
    }
    mm.End();
}

extern "C" __global__ __aicore__ void matmul_api(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR workspace,
                                                 GM_ADDR tilingGm, uint32_t breakage)
{
    GET_TILING_DATA(td, tilingGm);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);  // one AIV per block calls the API; its AIC serves it
    bool ub = td.mode == 2;
    switch (td.dtype) {
        case 0: ub ? Run<half, float, float, TPosition::VECIN>(a, b, bias, c, td, breakage)
                   : Run<half, float, float, TPosition::GM>(a, b, bias, c, td, breakage); break;
        case 1: ub ? Run<half, half, float, TPosition::VECIN>(a, b, bias, c, td, breakage)
                   : Run<half, half, float, TPosition::GM>(a, b, bias, c, td, breakage); break;
        case 2: Run<bfloat16_t, float, float, TPosition::GM>(a, b, bias, c, td, breakage); break;
        case 3: Run<int8_t, int32_t, int32_t, TPosition::GM>(a, b, bias, c, td, breakage); break;
        case 4: Run<float, float, float, TPosition::GM>(a, b, bias, c, td, breakage); break;
        default: Run<bfloat16_t, bfloat16_t, float, TPosition::GM>(a, b, bias, c, td, breakage); break;
    }
}
