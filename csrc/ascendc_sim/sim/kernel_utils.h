// Small constants and integer helpers kernels reach through `using namespace AscendC`: DEFAULT_C0_SIZE, AlignUp.
//
// - DEFAULT_C0_SIZE: 32, the bytes of one DataBlock (C0 of the fractal formats in bytes), as GetDataBlockSizeInBytes.md
//   gives the block size; kernels divide byte counts by it to get DataCopyParams.blockLen. assumption: the name is
//   CANN's public constant (kernel_utils_constants of asc-devkit lists it as 32); no API page documents it.
// - AlignUp(value, alignment): value rounded up to a multiple of alignment, in value's type. assumption: no API page
//   documents it; kernels (DrivingSDK sparse_matmul, pytorch-tcuscan) call it unqualified on unsigned counts. An
//   alignment of 0 returns value unchanged rather than dividing by zero.
// DivCeil/CeilDiv/CeilAlign are not provided: the documented CeilDivision (CeilDivision.md) is for Atlas 350 only, and
// public kernels define their own CeilDiv, which an AscendC template of the same name would make ambiguous.
#pragma once
#include <cstdint>
#include <type_traits>

namespace AscendC {

const int32_t DEFAULT_C0_SIZE = 32;

template <typename T, typename U>
constexpr T AlignUp(T value, U alignment) {
    static_assert(std::is_integral_v<T> && std::is_integral_v<U>, "AlignUp aligns integer counts");
    return alignment == 0 ? value : static_cast<T>((value + alignment - 1) / alignment * alignment);
}

}  // namespace AscendC
