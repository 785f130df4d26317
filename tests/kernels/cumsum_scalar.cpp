/*
 * cumsum_scalar: y[r, :] = cumsum(x[r, :]) computed on the scalar unit with
 * LocalTensor::GetValue/SetValue over TBuf memory, with the pipe events a
 * scalar loop needs: MTE2_S after the load, S_MTE3 before the store, S_MTE2
 * before the next row's load overwrites the input buffer, MTE3_S before the next
 * row overwrites the output buffer. float or int32.
 */
#include "kernel_operator.h"

struct TilingData {
    uint32_t rows;
    uint32_t cols;
    uint32_t colsAligned; // cols rounded up to 8
    uint32_t formerNum;
    uint32_t formerRows;
    uint32_t tailRows;
    uint32_t dtypeKey; // 0 float, 1 int32
};

template <typename T>
class KernelCumsumScalar {
public:
    __aicore__ inline KernelCumsumScalar() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TilingData &tiling)
    {
        uint32_t blockIdx = AscendC::GetBlockIdx();
        uint32_t rowStart;
        if (blockIdx < tiling.formerNum) {
            coreRows = tiling.formerRows;
            rowStart = blockIdx * tiling.formerRows;
        } else {
            coreRows = tiling.tailRows;
            rowStart = tiling.formerNum * tiling.formerRows + (blockIdx - tiling.formerNum) * tiling.tailRows;
        }
        cols = tiling.cols;
        if (coreRows == 0) {
            return;
        }
        xGm.SetGlobalBuffer((__gm__ T *)x + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        yGm.SetGlobalBuffer((__gm__ T *)y + (uint64_t)rowStart * cols, (uint64_t)coreRows * cols);
        pipe.InitBuffer(xBuf, tiling.colsAligned * sizeof(T));
        pipe.InitBuffer(yBuf, tiling.colsAligned * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        if (coreRows == 0) {
            return;
        }
        AscendC::LocalTensor<T> xLocal = xBuf.Get<T>();
        AscendC::LocalTensor<T> yLocal = yBuf.Get<T>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        for (uint32_t r = 0; r < coreRows; r++) {
            AscendC::DataCopyPad(xLocal, xGm[(uint64_t)r * cols], copyParams, padParams);
            AscendC::TEventID loaded = GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE2_S);
            AscendC::SetFlag<AscendC::HardEvent::MTE2_S>(loaded);
            AscendC::WaitFlag<AscendC::HardEvent::MTE2_S>(loaded);

            T acc = 0;
            for (uint32_t i = 0; i < cols; i++) {
                acc = acc + xLocal.GetValue(i);
                yLocal.SetValue(i, acc);
            }

            AscendC::TEventID written = GetTPipePtr()->FetchEventID(AscendC::HardEvent::S_MTE3);
            AscendC::SetFlag<AscendC::HardEvent::S_MTE3>(written);
            AscendC::WaitFlag<AscendC::HardEvent::S_MTE3>(written);
            AscendC::TEventID consumed = GetTPipePtr()->FetchEventID(AscendC::HardEvent::S_MTE2);
            AscendC::SetFlag<AscendC::HardEvent::S_MTE2>(consumed);
            AscendC::WaitFlag<AscendC::HardEvent::S_MTE2>(consumed);
            AscendC::DataCopyPad(yGm[(uint64_t)r * cols], yLocal, copyParams);
            AscendC::TEventID stored = GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE3_S);
            AscendC::SetFlag<AscendC::HardEvent::MTE3_S>(stored);
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_S>(stored);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xBuf, yBuf;
    AscendC::GlobalTensor<T> xGm, yGm;
    uint32_t coreRows = 0;
    uint32_t cols = 0;
};

extern "C" __global__ __aicore__ void cumsum_scalar(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtypeKey == 0) {
        KernelCumsumScalar<float> op;
        op.Init(x, y, t);
        op.Process();
    } else {
        KernelCumsumScalar<int32_t> op;
        op.Init(x, y, t);
        op.Process();
    }
}
