/*
 * accumulate_blocks: out[0:64] = sum over blocks b of x[b*64 : (b+1)*64]. Block 0 zeroes out, all
 * blocks meet at SyncAll, then every block adds its slice into the same 64 floats of out with
 * SetAtomicAdd<float>() — the same GM bytes from every core, which is correct only with atomics.
 *
 * TilingData.mode 0 is correct; ATOMIC_FORGOTTEN writes the slices with a plain DataCopy;
 * FIRST_BY_SETVALUE also stores each block's first element to out[block] with a scalar SetValue,
 * which dirties the same 64-byte cache line from every core.
 */
#include "kernel_operator.h"

constexpr uint32_t SLICE = 64;

enum Mode : uint32_t {
    OK = 0,
    ATOMIC_FORGOTTEN = 1,
    FIRST_BY_SETVALUE = 2,
};

struct TilingData {
    uint32_t mode;
};

class KernelAccumulate {
public:
    __aicore__ inline KernelAccumulate() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR out, const TilingData &tiling)
    {
        mode = tiling.mode;
        xGm.SetGlobalBuffer((__gm__ float *)x + AscendC::GetBlockIdx() * SLICE, SLICE);
        outGm.SetGlobalBuffer((__gm__ float *)out, SLICE);
        pipe.InitBuffer(inQueue, 1, SLICE * sizeof(float));
        pipe.InitBuffer(outQueue, 1, SLICE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        if (AscendC::GetBlockIdx() == 0) {
            AscendC::LocalTensor<float> zeros = outQueue.AllocTensor<float>();
            AscendC::Duplicate(zeros, 0.0f, SLICE);
            outQueue.EnQue(zeros);
            zeros = outQueue.DeQue<float>();
            AscendC::DataCopy(outGm, zeros, SLICE);
            outQueue.FreeTensor(zeros);
        }
        AscendC::SyncAll();
        AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm, SLICE);
        inQueue.EnQue(xLocal);
        xLocal = inQueue.DeQue<float>();
        if (mode == FIRST_BY_SETVALUE) {
            outGm.SetValue(AscendC::GetBlockIdx(), xLocal.GetValue(0)); // <- first_by_setvalue
        }
        AscendC::LocalTensor<float> partial = outQueue.AllocTensor<float>();
        AscendC::Adds(partial, xLocal, 0.0f, SLICE);
        outQueue.EnQue(partial);
        inQueue.FreeTensor(xLocal);
        partial = outQueue.DeQue<float>();
        if (mode != ATOMIC_FORGOTTEN) AscendC::SetAtomicAdd<float>();
        AscendC::DataCopy(outGm, partial, SLICE); // <- atomic_forgotten
        AscendC::SetAtomicNone();
        outQueue.FreeTensor(partial);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<float> xGm, outGm;
    uint32_t mode;
};

extern "C" __global__ __aicore__ void accumulate_blocks(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAccumulate op;
    op.Init(x, out, tilingData);
    op.Process();
}
