// GET_TILING_DATA: the kernel's tiling struct, copied from the GM bytes the host filled. The copy is a plain (non-const)
// local: public kernels pass `&tiling_data` to functions taking a non-const pointer (DrivingSDK's sparse_matmul).
#pragma once
#include "core.h"

namespace ascendc_sim {

template <typename Tiling>
Tiling load_tiling(const uint8_t* gm, Loc loc) {
    static_assert(std::is_trivially_copyable_v<Tiling>, "the tiling struct must be a POD struct");
    if (gm == nullptr)
        fail(Diag::TilingSize, loc, "GET_TILING_DATA: the tiling argument is a null pointer; pass the tiling bytes");
    const CoreState& c = core(loc);
    const SimRegion* region = find_region(*c.launch, reinterpret_cast<uint64_t>(gm));
    uint64_t available = region ? region->base + region->bytes - reinterpret_cast<uint64_t>(gm) : 0;
    if (available < sizeof(Tiling))
        fail(Diag::TilingSize, loc,
             "GET_TILING_DATA reads a %zu-byte TilingData but the tiling argument holds %llu bytes; the host must "
             "pass the whole struct (same field order and types as the kernel's TilingData)",
             sizeof(Tiling), (unsigned long long)available);
    Tiling tiling;
    std::memcpy(&tiling, gm_data(region->base, region->alias, reinterpret_cast<uint64_t>(gm)), sizeof(Tiling));
    return tiling;
}

}  // namespace ascendc_sim

#define GET_TILING_DATA(name, tiling_gm) \
    TilingData name = ::ascendc_sim::load_tiling<TilingData>(reinterpret_cast<const uint8_t*>(tiling_gm), ::ascendc_sim::Loc::here())
#define GET_TILING_DATA_WITH_STRUCT(type, name, tiling_gm) \
    type name = ::ascendc_sim::load_tiling<type>(reinterpret_cast<const uint8_t*>(tiling_gm), ::ascendc_sim::Loc::here())
