#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

// z = x + alpha * y (torch.add(x, y, alpha=alpha)), over a flat range of elements per core
template <typename T>
class KernelAddCustom {
public:
    __aicore__ inline KernelAddCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t coreLength,
                                uint32_t tileLength, float alpha)
    {
        uint32_t start = coreLength * GetBlockIdx();
        this->length = start >= totalLength ? 0 : (totalLength - start < coreLength ? totalLength - start : coreLength);
        this->tileLength = tileLength;
        this->alpha = static_cast<T>(alpha);
        xGm.SetGlobalBuffer((__gm__ T *)x + start, this->length);
        yGm.SetGlobalBuffer((__gm__ T *)y + start, this->length);
        zGm.SetGlobalBuffer((__gm__ T *)z + start, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t offset = 0; offset < this->length; offset += this->tileLength) {
            // the last tile may be shorter and need not be a multiple of 32 bytes
            uint32_t count = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
            CopyIn(offset, count);
            Compute(count);
            CopyOut(offset, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        DataCopyPad(yLocal, yGm[offset], copyParams, padParams);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        Muls(yLocal, yLocal, this->alpha, count);
        Add(zLocal, xLocal, yLocal, count);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPad(zGm[offset], zLocal, copyParams);
        outQueueZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    GlobalTensor<T> zGm;
    uint32_t length;
    uint32_t tileLength;
    T alpha;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAddCustom<DTYPE_X> op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.coreLength, tilingData.tileLength, tilingData.alpha);
    op.Process();
}
