// class: correct
// task: total_sum
// path: model
// expect: accepted
//
// A correct kernel: x.sum() over several blocks. Block 0 zeroes the output, SyncAll() waits for
// every block, then each block adds its partial sum into the output with SetAtomicAdd. Tiles of
// 1024 with DataCopyPad for the odd tail.
#include "kernel_operator.h"

using namespace AscendC;

struct TilingData {
    uint32_t total;     // elements of x
    uint32_t perBlock;  // elements per block (a multiple of 8), the last block takes the rest
};

constexpr uint32_t TILE = 1024;

class SumKernel {
public:
    __aicore__ inline void Init(GM_ADDR in0, GM_ADDR out0, const TilingData& t)
    {
        uint32_t start = t.perBlock * static_cast<uint32_t>(GetBlockIdx());
        length_ = start >= t.total ? 0 : (t.total - start < t.perBlock ? t.total - start : t.perBlock);
        gmX_.SetGlobalBuffer((__gm__ float*)in0 + start, length_);
        gmOut_.SetGlobalBuffer((__gm__ float*)out0, 1);
        pipe_.InitBuffer(qX_, 2, TILE * sizeof(float));
        pipe_.InitBuffer(qAcc_, 1, 8 * sizeof(float));
        pipe_.InitBuffer(work_, TILE * sizeof(float));
        pipe_.InitBuffer(tileSum_, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> acc = qAcc_.AllocTensor<float>();
        LocalTensor<float> tileSum = tileSum_.Get<float>();
        LocalTensor<float> work = work_.Get<float>();
        Duplicate(acc, 0.0f, 8);
        Duplicate(tileSum, 0.0f, 8);
        PipeBarrier<PIPE_V>();
        for (uint32_t done = 0; done < length_; done += TILE) {
            uint32_t count = length_ - done < TILE ? length_ - done : TILE;
            LocalTensor<float> x = qX_.AllocTensor<float>();
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
            DataCopyPad(x, gmX_[done], params, pad);
            qX_.EnQue(x);
            x = qX_.DeQue<float>();
            ReduceSum(tileSum, x, work, static_cast<int32_t>(count));
            PipeBarrier<PIPE_V>();
            Add(acc, acc, tileSum, 1);
            PipeBarrier<PIPE_V>();
            qX_.FreeTensor(x);
        }
        qAcc_.EnQue<float>(acc);
        acc = qAcc_.DeQue<float>();
        DataCopyExtParams one{1, sizeof(float), 0, 0, 0};
        if (GetBlockIdx() == 0) {
            LocalTensor<float> zero = tileSum_.Get<float>();
            Duplicate(zero, 0.0f, 8);
            PipeBarrier<PIPE_ALL>();
            DataCopyPad(gmOut_, zero, one);
        }
        SyncAll();
        SetAtomicAdd<float>();
        DataCopyPad(gmOut_, acc, one);
        SetAtomicNone();
        qAcc_.FreeTensor(acc);
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, 2> qX_;
    TQue<QuePosition::VECOUT, 1> qAcc_;
    TBuf<QuePosition::VECCALC> work_, tileSum_;
    GlobalTensor<float> gmX_, gmOut_;
    uint32_t length_ = 0;
};

extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    uint64_t total = 1;
    for (int32_t d = 0; d < ranks[0]; ++d) total *= static_cast<uint64_t>(dims[d]);  // the input's dims come first
    if (total == 0 || total > 0xFFFFFFFFull) return 0;
    uint64_t blocks = (total + 2047) / 2048;
    if (blocks > coreNum) blocks = coreNum;
    uint64_t perBlock = ((total + blocks - 1) / blocks + 7) / 8 * 8;
    tiling->total = static_cast<uint32_t>(total);
    tiling->perBlock = static_cast<uint32_t>(perBlock);
    *workspaceBytes = 0;
    return static_cast<uint32_t>((total + perBlock - 1) / perBlock);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR in0, GM_ADDR out0, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    SumKernel op;
    op.Init(in0, out0, t);
    op.Process();
}
