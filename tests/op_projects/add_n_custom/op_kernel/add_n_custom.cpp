#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
using namespace AscendC;

template <typename T>
class KernelAddN {
public:
    __aicore__ inline KernelAddN() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AddNTilingData &tiling)
    {
        inputs.Init(reinterpret_cast<__gm__ void *>(x));
        tensorNum = inputs.GetSize();
        start = tiling.blockLength * GetBlockIdx();
        length = GetBlockIdx() == GetBlockNum() - 1 ? tiling.lastBlockLength : tiling.blockLength;
        tileLength = tiling.tileLength;
        yGm.SetGlobalBuffer((__gm__ T *)y + start, length);
        pipe.InitBuffer(inQueue, 2, tileLength * sizeof(T));
        pipe.InitBuffer(outQueue, 1, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t offset = 0; offset < length; offset += tileLength) {
            uint32_t count = length - offset < tileLength ? length - offset : tileLength;
            LocalTensor<T> sum = outQueue.AllocTensor<T>();
            for (uint32_t i = 0; i < tensorNum; i++) {
                GlobalTensor<T> xGm;
                xGm.SetGlobalBuffer(inputs.GetDataPtr<T>(i) + start, length);
                LocalTensor<T> xLocal = inQueue.AllocTensor<T>();
                DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
                DataCopyPad(xLocal, xGm[offset], copyParams, DataCopyPadExtParams<T>{false, 0, 0, 0});
                inQueue.EnQue(xLocal);
                xLocal = inQueue.DeQue<T>();
                if (i == 0) {
                    Muls(sum, xLocal, (T)1, count);
                } else {
                    Add(sum, sum, xLocal, count);
                }
                PipeBarrier<PIPE_V>();
                inQueue.FreeTensor(xLocal);
            }
            outQueue.EnQue(sum);
            sum = outQueue.DeQue<T>();
            DataCopyPad(yGm[offset], sum, DataCopyExtParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0});
            outQueue.FreeTensor(sum);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    ListTensorDesc inputs;
    GlobalTensor<T> yGm;
    uint32_t tensorNum = 0;
    uint32_t start = 0;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void add_n_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAddN<DTYPE_X> op;
    op.Init(x, y, tilingData);
    op.Process();
}
