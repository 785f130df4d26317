/*
 * embedding_gather: out[i, :] = table[idx[i], :] for a [vocab, dim] float table and
 * int32 indices (torch.nn.functional.embedding). Each index is read on the scalar
 * unit from GM (GlobalTensor::GetValue); the row is moved GM -> UB -> GM with
 * DataCopyPad at that dynamic offset, through a double-buffered
 * TQueBind<VECIN, VECOUT> (the copy-through queue, TQueBind简介.md).
 * Index rows are split between cores.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t count; // number of indices
    uint32_t dim;
    uint32_t formerNum;
    uint32_t formerCount;
    uint32_t tailCount;
};

class KernelEmbeddingGather {
public:
    __aicore__ inline KernelEmbeddingGather() {}
    __aicore__ inline void Init(GM_ADDR table, GM_ADDR idx, GM_ADDR out, const TilingData &tiling)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint32_t first;
        if (blockIdx < tiling.formerNum) {
            coreCount = tiling.formerCount;
            first = blockIdx * tiling.formerCount;
        } else {
            coreCount = tiling.tailCount;
            first = tiling.formerNum * tiling.formerCount + (blockIdx - tiling.formerNum) * tiling.tailCount;
        }
        dim = tiling.dim;
        if (coreCount == 0) {
            return;
        }
        tableGm.SetGlobalBuffer((__gm__ float *)table);
        idxGm.SetGlobalBuffer((__gm__ int32_t *)idx + first, coreCount);
        outGm.SetGlobalBuffer((__gm__ float *)out + (uint64_t)first * dim, (uint64_t)coreCount * dim);
        pipe.InitBuffer(rowQueue, 2, (dim * sizeof(float) + 31) / 32 * 32);
    }
    __aicore__ inline void Process()
    {
        AscendC::DataCopyExtParams rowParams{1, static_cast<uint32_t>(dim * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        for (uint32_t i = 0; i < coreCount; i++) {
            int32_t row = idxGm.GetValue(i);
            AscendC::LocalTensor<float> rowLocal = rowQueue.AllocTensor<float>();
            AscendC::DataCopyPad(rowLocal, tableGm[(uint64_t)row * dim], rowParams, padParams);
            rowQueue.EnQue(rowLocal);
            rowLocal = rowQueue.DeQue<float>();
            AscendC::DataCopyPad(outGm[(uint64_t)i * dim], rowLocal, rowParams);
            rowQueue.FreeTensor(rowLocal);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQueBind<AscendC::TPosition::VECIN, AscendC::TPosition::VECOUT, 2> rowQueue;
    AscendC::GlobalTensor<float> tableGm, outGm;
    AscendC::GlobalTensor<int32_t> idxGm;
    uint32_t coreCount = 0;
    uint32_t dim = 0;
};

extern "C" __global__ __aicore__ void embedding_gather(GM_ADDR table, GM_ADDR idx, GM_ADDR out, GM_ADDR workspace,
                                                        GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelEmbeddingGather op;
    op.Init(table, idx, out, t);
    op.Process();
}
