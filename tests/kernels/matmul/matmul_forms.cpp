// The forms public kernels write the Matmul API in (matmul:: names, MatmulConfig templates, several objects in one
// REGIST_MATMUL_OBJ, Init with a pipe) and the less common calls: atomic IterateAll, the asynchronous Iterate with a
// workspace, a scalar A, SetOrgShape with C wider than B, C in NZ. One core; `mode` picks the case.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "lib/matrix/matmul/tiling.h"
#include "host/tiling/tiling_api.h"

struct TilingData {
    int32_t mode;
    int32_t status;
    TCubeTiling cube;
};

// Shapes: [M, N, K], [mode].
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* t, uint64_t* workspaceBytes)
{
    (void)coreNum, (void)tensorCount, (void)ranks;
    matmul_tiling::MatmulApiTiling tiling;
    tiling.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    tiling.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    tiling.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    tiling.SetShape(int32_t(dims[0]), int32_t(dims[1]), int32_t(dims[2]));
    tiling.SetOrgShape(int32_t(dims[0]), int32_t(dims[1]), int32_t(dims[2]));
    tiling.SetFixSplit(16, 32, -1);
    t->mode = int32_t(dims[3]);
    t->status = int32_t(tiling.GetTiling(t->cube));
    *workspaceBytes = 0;
    return 1;
}

using AType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>;
using CType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>;
constexpr AscendC::MatmulConfig kBasic = AscendC::GetBasicConfig(16, 32, 16);
constexpr AscendC::MatmulConfig kCustom{false, true, false, 16, 32, 16};

extern "C" __global__ __aicore__ void matmul_forms(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace,
                                                   GM_ADDR tilingGm)
{
    GET_TILING_DATA(td, tilingGm);
    AscendC::TPipe pipe;
    AscendC::GlobalTensor<half> ag, bg;
    AscendC::GlobalTensor<float> cg;
    ag.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a));
    bg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b));
    cg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c));
    const TCubeTiling& t = td.cube;
    if (td.mode == 4) {  // two objects registered at once, each with its tiling
        matmul::Matmul<AType, AType, CType, CType, matmul::CFG_MDL> first;
        AscendC::Matmul<AType, AType, CType, CType, kCustom> second;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), first, &t, second, &t);
        first.SetTensorA(ag);
        first.SetTensorB(bg);
        first.IterateAll(cg);
        first.End();
        second.SetTensorA(ag);
        second.SetTensorB(bg);
        second.IterateAll(cg[t.M * t.N]);
        second.End();
        return;
    }
    if (td.mode == 5) {  // C in NZ: [N / 16][M rounded up to 16][16]
        matmul::Matmul<AType, AType, matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::NZ, float>> nz;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), nz, &t);
        nz.SetTensorA(ag);
        nz.SetTensorB(bg);
        nz.IterateAll(cg);
        nz.End();
        return;
    }
    matmul::Matmul<AType, AType, CType, CType, kBasic> mm;
    mm.Init(&td.cube, &pipe);
    mm.SetTensorB(bg, td.mode == 6);  // @transpose_b
    if (td.mode == 0) {  // atomic add twice: 2 * A * B on a zeroed C
        mm.SetTensorA(ag);
        mm.IterateAll(cg, 1);
        mm.IterateAll(cg, 1);
    } else if (td.mode == 1) {  // asynchronous: the blocks come out of the workspace, baseM * baseN apart
        mm.SetTensorA(ag);
        mm.SetWorkspace(cg);
        mm.template Iterate<false>();
        int32_t blocks = (t.M + t.baseM - 1) / t.baseM * ((t.N + t.baseN - 1) / t.baseN);
        for (int32_t i = 0; i < blocks; ++i) {
            AscendC::GlobalTensor<float> block = mm.template GetTensorC<false>();
            (void)block;
        }
    } else if (td.mode == 2) {  // a scalar A: every element of A is 1, so C's rows are B's column sums
        mm.SetTensorA(half(1.0f));
        mm.IterateAll(cg);
    } else {  // C rows N + 8 apart
        mm.SetOrgShape(t.M, t.N, t.Ka, t.Kb, t.N + 8);
        mm.SetTensorA(ag);
        mm.IterateAll(cg);
    }
    mm.End();
}
