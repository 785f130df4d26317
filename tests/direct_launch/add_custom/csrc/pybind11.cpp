// z = x + y on float32: the tiling is computed here, the kernel launched on the current NPU stream.
#include <pybind11/pybind11.h>
#include <torch/extension.h>

#include "torch_npu/csrc/core/npu/NPUStream.h"

void add_custom_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, uint8_t *z, uint32_t blockLength,
                   uint32_t tileLength);

namespace {
constexpr uint32_t BLOCK_DIM = 8;
constexpr uint32_t TILE_LENGTH = 256;

at::Tensor add_custom(const at::Tensor &x, const at::Tensor &y)
{
    TORCH_CHECK(x.sizes() == y.sizes(), "x and y must have the same shape, got ", x.sizes(), " and ", y.sizes());
    TORCH_CHECK(x.scalar_type() == at::kFloat && y.scalar_type() == at::kFloat, "add_custom takes float32");
    at::Tensor z = at::empty_like(x);
    uint32_t totalLength = static_cast<uint32_t>(x.numel());
    TORCH_CHECK(totalLength % (BLOCK_DIM * TILE_LENGTH) == 0, "the element count must be a multiple of ",
                BLOCK_DIM * TILE_LENGTH);
    auto stream = c10_npu::getCurrentNPUStream().stream(false);
    add_custom_do(BLOCK_DIM, stream, static_cast<uint8_t *>(x.data_ptr()), static_cast<uint8_t *>(y.data_ptr()),
                  static_cast<uint8_t *>(z.data_ptr()), totalLength / BLOCK_DIM, TILE_LENGTH);
    return z;
}
}  // namespace

PYBIND11_MODULE(add_ext, m)
{
    m.doc() = "add_custom direct launch";
    m.def("add_custom", &add_custom, "z = x + y", pybind11::arg("x"), pybind11::arg("y"));
}
