// Host tiling helpers of the sort, TopK and high-level reduction APIs (GetSortTmpSize.md,
// GetConcatTmpSize.md, TopK-Tiling.md, GetReduce{Sum,Max,Min,Mean,Prod,All,Any}MaxMinTmpSize.md,
// GetSumMaxMinTmpSize.md, GetMeanMaxMinTmpSize.md, GetMeanTmpBufferFactorSize.md,
// GetReduceXorSumMaxMinTmpSize.md): names and parameters as the pages give them.
//
// The pages give no formulas, and the simulator's kernel side does not check these temporary
// buffers' sizes (sim/sort.h, sim/topk.h, sim/reduce_pattern.h), so the numbers here are our own:
// room for one copy of the data the API works on, rounded up to 32 bytes (max = min). TopKTilingFunc
// fills the documented TopkTiling fields it can name and returns true; the kernel side never reads
// them. Platform, shape and data-type parameters are templates, so any PlatformAscendC, ge::Shape
// (GetDimNum/GetDim) or std::vector<int64_t> and ge::DataType stand-in fits.
#pragma once
#include <cstdint>
#include <vector>

#include "../../sim/topk_tiling.h"

namespace AscendC {

enum class ReducePattern : uint32_t {
    AR = 0,
    RA = 1,
    R,
    ARA,
    ARAR,
    ARARA,
    ARARAR,
    ARARARA,
    ARARARAR,
    ARARARARA,
    RAR,
    RARA,
    RARAR,
    RARARA,
    RARARAR,
    RARARARA,
};

namespace sort_reduce_host {

inline uint32_t round32(uint64_t bytes) { return static_cast<uint32_t>((bytes + 31) / 32 * 32); }

template <typename Shape>
auto elements_of(const Shape& shape) -> decltype(shape.GetDimNum(), uint64_t()) {
    uint64_t n = 1;
    for (size_t i = 0; i < static_cast<size_t>(shape.GetDimNum()); ++i) n *= static_cast<uint64_t>(shape.GetDim(i));
    return n;
}

inline uint64_t elements_of(const std::vector<int64_t>& shape) {
    uint64_t n = 1;
    for (int64_t d : shape) n *= static_cast<uint64_t>(d);
    return n;
}

// ge::DataType values the reductions take: DT_FLOAT (0), DT_FLOAT16 (1), DT_UINT8 (4) (ge's numbering).
template <typename DataType>
uint32_t type_size(DataType type) {
    switch (static_cast<int>(type)) {
        case 1: return 2;
        case 4: return 1;
        default: return 4;
    }
}

template <typename Shape>
void one_copy(const Shape& srcShape, uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue) {
    maxValue = minValue = round32(elements_of(srcShape) * typeSize);
}

}  // namespace sort_reduce_host

template <typename Platform>
uint32_t GetSortTmpSize(const Platform&, const uint32_t elemCount, const uint32_t dataTypeSize) {
    (void)dataTypeSize;
    return sort_reduce_host::round32(uint64_t(elemCount) * 8);  // one sorted copy: 8 bytes per element
}

template <typename Platform>
uint32_t GetConcatTmpSize(const Platform&, const uint32_t elemCount, const uint32_t dataTypeSize) {
    return sort_reduce_host::round32(uint64_t(elemCount) * dataTypeSize);
}

template <typename Platform>
bool GetTopKMaxMinTmpSize(const Platform&, const int32_t inner, const int32_t outter, const bool isReuseSource,
                          const bool isInitIndex, enum TopKMode mode, const bool isLargest,
                          const uint32_t dataTypeSize, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource, (void)isInitIndex, (void)mode, (void)isLargest, (void)dataTypeSize;
    if (inner <= 0 || outter <= 0) return false;
    maxValue = minValue = sort_reduce_host::round32(uint64_t(inner) * outter * 8 * 2);  // sorted rows, twice
    return true;
}

template <typename Platform>
bool TopKTilingFunc(const Platform&, const int32_t inner, const int32_t outter, const int32_t k,
                    const uint32_t dataTypeSize, const bool isInitIndex, enum TopKMode mode, const bool isLargest,
                    TopkTiling& topKTiling) {
    (void)isInitIndex, (void)isLargest;
    if (inner <= 0 || outter <= 0 || k <= 0 || k > inner || dataTypeSize == 0) return false;
    topKTiling = TopkTiling{};
    topKTiling.allDataSize = inner * outter;
    topKTiling.innerDataSize = inner;
    topKTiling.sortRepeat = static_cast<uint32_t>(inner / 32);
    topKTiling.kAlignFourBytes = (k + 7) / 8 * 8;
    topKTiling.kAlignTwoBytes = (k + 15) / 16 * 16;
    topKTiling.tmpLocalSize = static_cast<int32_t>(sort_reduce_host::round32(uint64_t(inner) * outter * 16));
    (void)mode;
    return true;
}

#define ASCENDC_SIM_REDUCE_TMP_SIZE(NAME)                                                                            \
    template <typename Shape, typename DataType>                                                                    \
    void NAME(const Shape& srcShape, const DataType dataType, ReducePattern pattern, bool isSrcInnerPad,            \
              bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {                                         \
        (void)pattern, (void)isSrcInnerPad, (void)isReuseSource;                                                    \
        sort_reduce_host::one_copy(srcShape, sort_reduce_host::type_size(dataType), maxValue, minValue);            \
    }

ASCENDC_SIM_REDUCE_TMP_SIZE(GetReduceSumMaxMinTmpSize)
ASCENDC_SIM_REDUCE_TMP_SIZE(GetReduceMaxMaxMinTmpSize)
ASCENDC_SIM_REDUCE_TMP_SIZE(GetReduceMinMaxMinTmpSize)
ASCENDC_SIM_REDUCE_TMP_SIZE(GetReduceMeanMaxMinTmpSize)
ASCENDC_SIM_REDUCE_TMP_SIZE(GetReduceProdMaxMinTmpSize)
ASCENDC_SIM_REDUCE_TMP_SIZE(GetReduceAllMaxMinTmpSize)
ASCENDC_SIM_REDUCE_TMP_SIZE(GetReduceAnyMaxMinTmpSize)
#undef ASCENDC_SIM_REDUCE_TMP_SIZE

inline void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t typeSize, const bool isReuseSource, uint32_t& maxSize,
                                uint32_t& minSize) {
    (void)isReuseSource;
    maxSize = minSize = sort_reduce_host::round32(uint64_t(n) * typeSize);
}

inline void GetMeanMaxMinTmpSize(const uint32_t n, const uint32_t srcTypeSize, const uint32_t accTypeSize,
                                 const bool isReuseSource, uint32_t& maxSize, uint32_t& minSize) {
    (void)isReuseSource;
    maxSize = minSize = sort_reduce_host::round32(uint64_t(n) * (accTypeSize > srcTypeSize ? accTypeSize : srcTypeSize));
}

inline void GetMeanTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuffer) {
    (void)typeSize;
    maxLiveNodeCount = 1;  // one copy of the row
    extraBuffer = 0;
}

template <typename Shape>
void GetReduceXorSumMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                  uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    sort_reduce_host::one_copy(srcShape, typeSize, maxValue, minValue);
}

}  // namespace AscendC
