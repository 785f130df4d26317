// Exports a contract kernel's host tiling function (see torch_ascendgen/generate.py) through the
// launch ABI. Appended after the kernel source by the build when the kernel follows the contract.
#pragma once
#include <cstdint>

extern "C" __attribute__((visibility("default"))) uint32_t ascendc_sim_tiling_size() { return sizeof(TilingData); }

extern "C" __attribute__((visibility("default"))) uint32_t ascendc_sim_tiling(uint32_t core_num, int32_t tensor_count,
                                                                             const int32_t* ranks, const int64_t* dims,
                                                                             void* tiling, uint64_t* workspace_bytes) {
    return ascendgen_tiling(core_num, tensor_count, ranks, dims, static_cast<TilingData*>(tiling), workspace_bytes);
}
