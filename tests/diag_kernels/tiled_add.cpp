/*
 * tiled_add: z = x + y over float tensors of any length, the way generated kernels are written:
 * each block takes blockLength elements (the last block the rest), splits them into tiles of
 * tileLength, and moves a tail that is not a multiple of 32 bytes with DataCopyPad.
 *
 * TilingData.mode 0 is the correct kernel. Every other mode is one bug a model is known to write;
 * the line that commits it is marked "// <- <case>" (tests/test_sim_diagnostics.py finds it there).
 */
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;

enum Mode : uint32_t {
    OK = 0,
    TAIL_WITH_DATACOPY = 1,  // the tail tile moved with DataCopy
    LAST_TILE_NOT_CLAMPED = 2,
    COPY_OUT_ROUNDED_UP = 3,  // each block writes its length rounded up to 32 bytes
    X_NEVER_FREED = 4,
    Y_NEVER_ENQUEUED = 5,
    FREE_TO_WRONG_QUEUE = 6,
    LAST_TILE_NOT_COPIED_OUT = 7,
    PREFETCH_INTO_DEPTH_1 = 8,
    UB_SHIFTED_BY_ONE = 9,
    COUNT_IS_BLOCK_LENGTH = 10,
    PAD_LENGTH_IN_ELEMENTS = 11,
    ONE_TILE_TOO_MANY = 12,
    GM_OFFSET_IN_BYTES = 13,  // the element offset added to the GM_ADDR byte pointer
};

struct TilingData {
    uint32_t blockLength;  // elements per block (the last block takes what is left)
    uint32_t tileLength;   // elements per tile, a multiple of 8
    uint32_t totalLength;
    uint32_t mode;
};

class KernelTiledAdd {
public:
    __aicore__ inline KernelTiledAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &tiling)
    {
        mode = tiling.mode;
        tileLength = tiling.tileLength;
        uint32_t start = tiling.blockLength * AscendC::GetBlockIdx();
        blockLength = tiling.totalLength - start < tiling.blockLength ? tiling.totalLength - start : tiling.blockLength;
        if (mode == GM_OFFSET_IN_BYTES) {
            xGm.SetGlobalBuffer((__gm__ float *)(x + start), blockLength);
        } else {
            xGm.SetGlobalBuffer((__gm__ float *)x + start, blockLength);
        }
        yGm.SetGlobalBuffer((__gm__ float *)y + start, blockLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + start, blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        uint32_t tiles = (blockLength + tileLength - 1) / tileLength;
        if (mode == PREFETCH_INTO_DEPTH_1) {
            CopyIn(0);
            for (uint32_t i = 0; i < tiles; i++) {
                if (i + 1 < tiles) CopyIn(i + 1);
                Compute(i);
                CopyOut(i);
            }
            return;
        }
        uint32_t loops = mode == ONE_TILE_TOO_MANY ? tiles + 1 : tiles;
        for (uint32_t i = 0; i < loops; i++) {
            CopyIn(i);
            Compute(i);
            if (mode == LAST_TILE_NOT_COPIED_OUT && i + 1 == loops) break;
            CopyOut(i);
        }
    }

private:
    __aicore__ inline uint32_t Count(uint32_t i)
    {
        uint32_t left = blockLength - i * tileLength;
        if (mode == LAST_TILE_NOT_CLAMPED || mode == ONE_TILE_TOO_MANY) return tileLength;
        return left < tileLength ? left : tileLength;
    }
    __aicore__ inline void Load(AscendC::LocalTensor<float> &dst, const AscendC::GlobalTensor<float> &src, uint32_t count)
    {
        if (mode == TAIL_WITH_DATACOPY || mode == LAST_TILE_NOT_CLAMPED) {
            AscendC::DataCopy(dst, src, count); // <- tail_with_datacopy, last_tile_not_clamped, adjacent_view_overrun
            return;
        }
        if (mode == UB_SHIFTED_BY_ONE) {
            AscendC::DataCopy(dst[1], src, count); // <- ub_shifted_by_one
            return;
        }
        if ((count * sizeof(float)) % 32 == 0) {
            AscendC::DataCopy(dst, src, count); // <- one_tile_too_many, gm_offset_in_bytes
            return;
        }
        uint32_t bytes = mode == PAD_LENGTH_IN_ELEMENTS ? count : count * sizeof(float);
        AscendC::DataCopyExtParams copyParams{1, bytes, 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0.0f};
        AscendC::DataCopyPad(dst, src, copyParams, padParams); // <- pad_length_in_elements
    }
    __aicore__ inline void CopyIn(uint32_t i)
    {
        uint32_t count = Count(i);
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>(); // <- x_never_freed
        AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        Load(xLocal, xGm[i * tileLength], count);
        Load(yLocal, yGm[i * tileLength], count);
        inQueueX.EnQue(xLocal); // <- prefetch_into_depth_1
        if (mode != Y_NEVER_ENQUEUED) inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t i)
    {
        uint32_t count = Count(i);
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.DeQue<float>(); // <- y_never_enqueued
        AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>(); // <- last_tile_not_copied_out
        if (mode == COUNT_IS_BLOCK_LENGTH) {
            AscendC::Add(zLocal, xLocal, yLocal, blockLength); // <- count_is_block_length
        } else {
            AscendC::Add(zLocal, xLocal, yLocal, count);
        }
        outQueueZ.EnQue<float>(zLocal);
        if (mode == FREE_TO_WRONG_QUEUE) {
            inQueueY.FreeTensor(xLocal); // <- free_to_wrong_queue
        } else if (mode != X_NEVER_FREED) {
            inQueueX.FreeTensor(xLocal);
        }
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t i)
    {
        uint32_t count = Count(i);
        AscendC::LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        if (mode == COPY_OUT_ROUNDED_UP || (count * sizeof(float)) % 32 == 0) {
            AscendC::DataCopy(zGm[i * tileLength], zLocal, (count + 7) / 8 * 8); // <- copy_out_rounded_up
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPad(zGm[i * tileLength], zLocal, copyParams);
        }
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueueZ;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    uint32_t blockLength;
    uint32_t tileLength;
    uint32_t mode;
};

extern "C" __global__ __aicore__ void tiled_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling); // <- short_tiling
    KernelTiledAdd op;
    op.Init(x, y, z, tilingData);
    op.Process();
}
