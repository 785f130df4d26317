// The tiling of row_softmax, shared by the host (pybind11.cpp) and the kernel (softmax_kernel.cpp).
#pragma once
#include <cstdint>

struct RowSoftmaxTiling {
    uint32_t rows;
    uint32_t cols;
    uint32_t rowsPerCore;
};

inline RowSoftmaxTiling ComputeRowSoftmaxTiling(uint32_t rows, uint32_t cols, uint32_t coreNum)
{
    uint32_t used = rows < coreNum ? rows : coreNum;
    return RowSoftmaxTiling{rows, cols, (rows + used - 1) / used};
}
