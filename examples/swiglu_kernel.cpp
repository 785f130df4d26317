// out = silu(gate) * up, elementwise over float32, in the kernel contract's form:
// a POD TilingData filled on the host, one entry that starts with GET_TILING_DATA, any length
// (tails not a multiple of 32 bytes go through DataCopyPad), work split over the blocks.
#include "kernel_operator.h"

using namespace AscendC;

struct TilingData {
    uint32_t totalLength;  // elements
    uint32_t tileLength;   // elements per tile, a multiple of 8 (32 bytes of float)
};

constexpr int32_t BUFFER_NUM = 2;

class KernelSwiGlu {
public:
    __aicore__ inline void Init(GM_ADDR gate, GM_ADDR up, GM_ADDR out, const TilingData& tiling)
    {
        uint32_t blocks = GetBlockNum();
        uint32_t perBlock = (tiling.totalLength + blocks - 1) / blocks;
        perBlock = (perBlock + 7) / 8 * 8;  // blocks start on 32-byte boundaries
        uint32_t start = perBlock * GetBlockIdx();
        length_ = start >= tiling.totalLength ? 0 : (tiling.totalLength - start < perBlock ? tiling.totalLength - start : perBlock);
        tileLength_ = tiling.tileLength;
        gateGm_.SetGlobalBuffer((__gm__ float*)gate + start, length_);
        upGm_.SetGlobalBuffer((__gm__ float*)up + start, length_);
        outGm_.SetGlobalBuffer((__gm__ float*)out + start, length_);
        pipe_.InitBuffer(inGate_, BUFFER_NUM, tileLength_ * sizeof(float));
        pipe_.InitBuffer(inUp_, BUFFER_NUM, tileLength_ * sizeof(float));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, tileLength_ * sizeof(float));
        pipe_.InitBuffer(tmp_, tileLength_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t offset = 0; offset < length_; offset += tileLength_) {
            uint32_t count = length_ - offset < tileLength_ ? length_ - offset : tileLength_;
            CopyIn(offset, count);
            Compute(count);
            CopyOut(offset, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        LocalTensor<float> gate = inGate_.AllocTensor<float>();
        LocalTensor<float> up = inUp_.AllocTensor<float>();
        if (count % 8 == 0) {
            DataCopy(gate, gateGm_[offset], count);
            DataCopy(up, upGm_[offset], count);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> pad{true, 0, 0, 0.0f};
            DataCopyPad(gate, gateGm_[offset], params, pad);
            DataCopyPad(up, upGm_[offset], params, pad);
        }
        inGate_.EnQue(gate);
        inUp_.EnQue(up);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> gate = inGate_.DeQue<float>();
        LocalTensor<float> up = inUp_.DeQue<float>();
        LocalTensor<float> out = outQueue_.AllocTensor<float>();
        LocalTensor<float> denominator = tmp_.Get<float>();
        Muls(denominator, gate, -1.0f, count);          // -x
        Exp(denominator, denominator, count);           // exp(-x)
        Adds(denominator, denominator, 1.0f, count);    // 1 + exp(-x)
        Div(out, gate, denominator, count);             // silu(x) = x / (1 + exp(-x))
        Mul(out, out, up, count);
        outQueue_.EnQue(out);
        inGate_.FreeTensor(gate);
        inUp_.FreeTensor(up);
    }

    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        LocalTensor<float> out = outQueue_.DeQue<float>();
        if (count % 8 == 0) {
            DataCopy(outGm_[offset], out, count);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPad(outGm_[offset], out, params);
        }
        outQueue_.FreeTensor(out);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, 1> inGate_, inUp_;
    TQue<QuePosition::VECOUT, 1> outQueue_;
    TBuf<QuePosition::VECCALC> tmp_;
    GlobalTensor<float> gateGm_, upGm_, outGm_;
    uint32_t length_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void swiglu(GM_ADDR gate, GM_ADDR up, GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelSwiGlu op;
    op.Init(gate, up, out, t);
    op.Process();
}
