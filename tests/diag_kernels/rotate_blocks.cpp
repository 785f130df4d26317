/*
 * rotate_blocks: y = roll(x, blockLength) computed through a GM workspace. Each block copies its
 * slice of x into the workspace, all blocks meet at SyncAll, then each block copies the slice of
 * the block before it from the workspace into y. Every block must reach SyncAll: a block with
 * no elements still has to call it.
 *
 * TilingData.mode 0 is correct; EMPTY_BLOCK_RETURNS_EARLY returns before SyncAll when a block has
 * nothing to copy. Launched with more blocks than the SoC has cores, mode 0 deadlocks too.
 * blockLength is a multiple of 8.
 */
#include "kernel_operator.h"

enum Mode : uint32_t {
    OK = 0,
    EMPTY_BLOCK_RETURNS_EARLY = 1,
};

struct TilingData {
    uint32_t length;
    uint32_t blockLength;
    uint32_t mode;
};

class KernelRotate {
public:
    __aicore__ inline KernelRotate() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, const TilingData &tiling)
    {
        length = tiling.length;
        blockLength = tiling.blockLength;
        mode = tiling.mode;
        blockIdx = AscendC::GetBlockIdx();
        blockNum = AscendC::GetBlockNum();
        xGm.SetGlobalBuffer((__gm__ float *)x, length);
        yGm.SetGlobalBuffer((__gm__ float *)y, length);
        workGm.SetGlobalBuffer((__gm__ float *)workspace, length);
        pipe.InitBuffer(queue, 1, blockLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        uint32_t mine = Count(blockIdx);
        if (mode == EMPTY_BLOCK_RETURNS_EARLY && mine == 0) return;
        if (mine > 0) Move(workGm[blockIdx * blockLength], xGm[blockIdx * blockLength], mine);
        AscendC::SyncAll(); // <- sync_all
        uint32_t from = (blockIdx + blockNum - 1) % blockNum;
        uint32_t theirs = Count(from) < mine ? Count(from) : mine;
        if (theirs > 0) Move(yGm[blockIdx * blockLength], workGm[from * blockLength], theirs);
    }

private:
    __aicore__ inline uint32_t Count(uint32_t block)
    {
        uint32_t start = block * blockLength;
        if (start >= length) return 0;
        return length - start < blockLength ? length - start : blockLength;
    }
    __aicore__ inline void Move(const AscendC::GlobalTensor<float> &dst, const AscendC::GlobalTensor<float> &src, uint32_t count)
    {
        AscendC::LocalTensor<float> t = queue.AllocTensor<float>();
        AscendC::DataCopy(t, src, count);
        queue.EnQue(t);
        t = queue.DeQue<float>();
        AscendC::DataCopy(dst, t, count);
        queue.FreeTensor(t);
    }

    AscendC::TPipe pipe;
    AscendC::TQueBind<AscendC::QuePosition::VECIN, AscendC::QuePosition::VECOUT, 1> queue;
    AscendC::GlobalTensor<float> xGm, yGm, workGm;
    uint32_t length;
    uint32_t blockLength;
    uint32_t blockIdx;
    uint32_t blockNum;
    uint32_t mode;
};

extern "C" __global__ __aicore__ void rotate_blocks(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRotate op;
    op.Init(x, y, workspace, tilingData);
    op.Process();
}
