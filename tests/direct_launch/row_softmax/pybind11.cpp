// Softmax over the rows of a [rows, cols] float32 tensor: one row at a time in UB, rows spread over the cores.
#include <torch/extension.h>

#include "aclrtlaunch_row_softmax.h"
#include "softmax_tiling.h"
#include "torch_npu/csrc/core/npu/NPUStream.h"

namespace {
constexpr uint32_t CORE_NUM = 8;
constexpr uint32_t MAX_COLS = 4096;  // three row buffers and a work buffer of cols floats fit in UB

torch::Tensor row_softmax_forward(const torch::Tensor &x)
{
    TORCH_CHECK(x.dim() == 2, "row_softmax takes a 2-D tensor, got ", x.dim(), " dimensions");
    TORCH_CHECK(x.dtype() == torch::kFloat32, "row_softmax takes float32, got ", x.dtype());
    uint32_t rows = static_cast<uint32_t>(x.size(0));
    uint32_t cols = static_cast<uint32_t>(x.size(1));
    TORCH_CHECK(cols % 8 == 0 && cols <= MAX_COLS, "cols must be a multiple of 8 (32 bytes) and at most ", MAX_COLS);
    torch::Tensor y = torch::empty({x.size(0), x.size(1)}, x.options());
    RowSoftmaxTiling tiling = ComputeRowSoftmaxTiling(rows, cols, CORE_NUM);
    uint32_t blockDim = (rows + tiling.rowsPerCore - 1) / tiling.rowsPerCore;
    ACLRT_LAUNCH_KERNEL(row_softmax)(blockDim, c10_npu::getCurrentNPUStream().stream(), x.data_ptr(), y.data_ptr(),
                                     tiling.rows, tiling.cols, tiling.rowsPerCore);
    return y;
}
}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("forward", &row_softmax_forward, "softmax over the last dimension");
}
