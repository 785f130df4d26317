// DataCacheCleanAndInvalid (DataCacheCleanAndInvalid.md) and the intrinsic `dcci(addr, mode)` kernels call for it.
// On the NPU the scalar unit reads GM through a data cache, so a scalar write another core (or a later DMA) must
// see is flushed with these. The simulator has no data cache: every scalar GM access is coherent, so they order
// nothing and cost nothing here. What they are given is still checked: the tensor must hold an address.
#pragma once
#include "diagnostics.h"
#include "tensor.h"

namespace AscendC {

enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE = 1 };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB = 1, CACHELINE_OUT = 2, CACHELINE_ATOMIC = 3 };

template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    if (dst.GetPhyAddr() == nullptr)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "DataCacheCleanAndInvalid on a GlobalTensor with no buffer. Call SetGlobalBuffer first.");
}

template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const LocalTensor<T>&, ascendc_sim::Loc = ascendc_sim::Loc::here()) {}

template <typename T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    DataCacheCleanAndInvalid<T, entireType, DcciDst::CACHELINE_OUT>(dst, loc);
}

}  // namespace AscendC

template <typename T, typename... Mode>
inline void dcci(T*, Mode...) {}
