#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t blockLength, uint32_t lastBlockLength,
                                uint32_t tileLength)
    {
        uint32_t blockIdx = GetBlockIdx();
        this->length = (blockIdx == GetBlockNum() - 1) ? lastBlockLength : blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ T *)x + blockLength * blockIdx, this->length);
        yGm.SetGlobalBuffer((__gm__ T *)y + blockLength * blockIdx, this->length);
        zGm.SetGlobalBuffer((__gm__ T *)z + blockLength * blockIdx, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(T));
    }
    template <bool PAD>
    __aicore__ inline void Process()
    {
        for (uint32_t offset = 0; offset < this->length; offset += this->tileLength) {
            uint32_t count = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
            CopyIn<PAD>(offset, count);
            Compute(count);
            CopyOut<PAD>(offset, count);
        }
    }

private:
    template <bool PAD>
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        if constexpr (PAD) {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
            DataCopyPad(yLocal, yGm[offset], copyParams, padParams);
        } else {
            DataCopy(xLocal, xGm[offset], count);
            DataCopy(yLocal, yGm[offset], count);
        }
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        Add(zLocal, xLocal, yLocal, count);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    template <bool PAD>
    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        if constexpr (PAD) {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPad(zGm[offset], zLocal, copyParams);
        } else {
            DataCopy(zGm[offset], zLocal, count);
        }
        outQueueZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    GlobalTensor<T> zGm;
    uint32_t length;
    uint32_t tileLength;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KernelAdd<DTYPE_X> op;
    op.Init(x, y, z, tiling_data.blockLength, tiling_data.lastBlockLength, tiling_data.tileLength);
    if (TILING_KEY_IS(1)) {
        op.Process<false>();
    } else if (TILING_KEY_IS(2)) {
        op.Process<true>();
    }
}
