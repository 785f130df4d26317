// High-level reductions: ReduceSum/Max/Min/Mean/Prod/All/Any<T, Pattern::Reduce::AR|RA,
// isReuseSource> over a 2-D srcShape, Sum / Mean over the last axis (SumParams, MeanParams), and
// ReduceXorSum.
//
// Semantics, from the asc-devkit v8.5.0 pages ReduceSum-34.md, ReduceMax-35.md, ReduceMin-36.md,
// ReduceMean.md, ReduceProd.md, ReduceAll.md, ReduceAny.md, Sum.md, Mean.md:
// - Atlas A2/A3 only: the CANN pages mark the 310P AI Core unsupported (unsupported_api there).
// - AR reduces each row (srcShape[0] results), RA each column (srcShape[1] results). Only 2-D
//   shapes and srcInnerPad = true are supported: every row of src starts 32-byte aligned, i.e. rows
//   are RoundUp(srcShape[1], 32 bytes) elements apart (the inner axis is stored padded).
// - ReduceAll / ReduceAny are a logical and / or of 0/1 inputs (the pages allow only 0 and 1).
// - ReduceMean is the sum divided by the reduced length. Max/Min: a NaN wins (as torch.amax).
// - Sums: a row (AR, Sum, Mean) adds like ReduceSum's count form (an adjacent-pair tree per
//   256-byte repeat, then the repeat results in order; Sum.md and Mean.md name that tree); a column
//   (RA) adds the rows in order, as repeated vector Adds would. The pattern pages leave the order
//   open and say overflow is not handled.
// - src and dst must not overlap, nor sharedTmpBuffer either of them (bad_argument).
// - isReuseSource = true lets the API overwrite src: the simulator poisons src (0xFF bytes) after
//   the call, so a kernel that reads it again sees garbage, as it may on the NPU.
// - Sum / Mean: inner * sizeof(T) a multiple of 32 bytes, 1 <= n <= inner; dst must hold outter
//   results rounded up to 32 bytes, and the padding past outter is left undefined (poisoned).
//   Mean<half, float> sums and divides in float and rounds once.
// - ReduceXorSum (ReduceXorSum.md, int16_t): the sum of src0[i] ^ src1[i] over calCount, a final
//   result outside int16 clamped to -32768 / 32767 (summed exactly before the clamp: the page
//   names only the final result); dst's padding up to 32 bytes is undefined (poisoned).
// - The temporary space: GetReduceXxxMaxMinTmpSize / GetSumMaxMinTmpSize / GetMeanMaxMinTmpSize give
//   no formula, so only the buffer's start is checked; without it the framework's share is assumed.
// Cost: Composite, booked as the repeats over src plus the repeats over dst.
#pragma once
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "reduce.h"

namespace AscendC {

namespace Pattern {
namespace Reduce {
struct AR {};
struct RA {};
}  // namespace Reduce
}  // namespace Pattern

struct SumParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};

struct MeanParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};

namespace preduce_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using ascendc_sim::dtype_bit;
using ascendc_sim::fail;

enum class Kind { Sum, Max, Min, Mean, Prod, All, Any };

struct KindInfo {
    const char* name;
    OpId op;
    uint32_t types;
};

constexpr uint32_t kF32 = dtype_bit(DType::F32);
constexpr uint32_t kF16F32 = dtype_bit(DType::F16) | kF32;
constexpr uint32_t kU8F32 = dtype_bit(DType::U8) | kF32;

inline KindInfo info(Kind k) {
    switch (k) {
        case Kind::Sum: return {"ReduceSum", OpId::PatternReduceSum, kF32};
        case Kind::Max: return {"ReduceMax", OpId::PatternReduceMax, kF16F32};
        case Kind::Min: return {"ReduceMin", OpId::PatternReduceMin, kF16F32};
        case Kind::Mean: return {"ReduceMean", OpId::PatternReduceMean, kF32};
        case Kind::Prod: return {"ReduceProd", OpId::PatternReduceProd, kF32};
        case Kind::All: return {"ReduceAll", OpId::PatternReduceAll, kU8F32};
        case Kind::Any: return {"ReduceAny", OpId::PatternReduceAny, kU8F32};
    }
    return {"Reduce", OpId::PatternReduceSum, 0};
}

inline bool overlaps(const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes) {
    auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
    return x < y + b_bytes && y < x + a_bytes;
}

inline uint64_t round_up(uint64_t a, uint64_t b) { return (a + b - 1) / b * b; }

// The operand rules every high-level reduction shares: no src/dst overlap, tmp apart from both.
template <typename T>
void check_layout(const char* api, const LocalTensor<T>& dst, uint64_t dst_elems, const LocalTensor<T>& src,
                  uint64_t src_elems, const LocalTensor<uint8_t>* tmp, Loc loc) {
    ascendc_sim::check_operand(src, src_elems, api, "srcTensor", loc);
    ascendc_sim::check_operand(dst, dst_elems, api, "dstTensor", loc);
    uint64_t sb = src_elems * sizeof(T), db = dst_elems * sizeof(T);
    if (overlaps(dst.GetPhyAddrPtr(), db, src.GetPhyAddrPtr(), sb))
        fail(Diag::BadArgument, loc,
             "%s: dstTensor and srcTensor overlap in UB; the %s page does not support it. Write the result to a "
             "separate buffer.",
             api, api);
    if (tmp == nullptr) return;
    ascendc_sim::check_operand(*tmp, 0, api, "sharedTmpBuffer", loc);
    if (overlaps(tmp->GetPhyAddrPtr(), tmp->GetSize(), src.GetPhyAddrPtr(), sb) ||
        overlaps(tmp->GetPhyAddrPtr(), tmp->GetSize(), dst.GetPhyAddrPtr(), db))
        fail(Diag::BadArgument, loc,
             "%s: sharedTmpBuffer overlaps srcTensor or dstTensor in UB; the %s page does not allow it. Give the "
             "temporary space its own buffer.",
             api, api);
}

// A row of n values summed as ReduceSum's count form does (reduce.h).
template <typename T>
T row_sum(const T* row, uint32_t n) {
    constexpr uint32_t lanes = reduce_detail::Geometry<T>::lanes;
    T v[lanes];
    T acc = T(0);
    for (uint32_t start = 0; start < n; start += lanes) {
        uint32_t k = std::min(lanes, n - start);
        for (uint32_t l = 0; l < lanes; ++l) v[l] = l < k ? row[start + l] : T(0);
        T partial = reduce_detail::tree_sum(v, lanes);
        acc = start == 0 ? partial : reduce_detail::add(acc, partial);
    }
    return acc;
}

template <Kind K, typename T>
T combine(T acc, T v) {
    if constexpr (K == Kind::Sum || K == Kind::Mean) return reduce_detail::add(acc, v);
    else if constexpr (K == Kind::Prod) return T(acc * v);
    else if constexpr (K == Kind::Max || K == Kind::Any) return reduce_detail::beats<true>(v, acc) ? v : acc;
    else return reduce_detail::beats<false>(v, acc) ? v : acc;
}

template <Kind K, typename T>
T finish(T acc, uint32_t count) {
    if constexpr (K == Kind::Mean) return T(float(acc) / float(count));
    else return acc;
}

template <Kind K, typename T>
T reduce_line(const T* first, uint32_t count, uint64_t step) {
    if constexpr (K == Kind::Sum || K == Kind::Mean) {
        if (step == 1) return finish<K>(row_sum(first, count), count);
    }
    T acc = first[0];
    for (uint32_t i = 1; i < count; ++i) acc = combine<K>(acc, first[i * step]);
    return finish<K>(acc, count);
}

template <typename T>
void check_boolean(const char* api, const T* src, uint32_t rows, uint32_t cols, uint64_t stride, Loc loc) {
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t j = 0; j < cols; ++j) {
            T v = src[r * stride + j];
            if (!(v == T(0) || v == T(1)))
                fail(Diag::BadArgument, loc,
                     "%s: srcTensor[%u][%u] is %g, but the %s page allows only 0 and 1 as input. Compare and Select "
                     "the data into 0/1 first.",
                     api, r, j, double(v), api);
        }
}

template <Kind K, typename T, typename pattern, bool isReuseSource>
void run(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp, const uint32_t srcShape[],
         bool srcInnerPad, Loc loc) {
    static_assert(std::is_same_v<pattern, Pattern::Reduce::AR> || std::is_same_v<pattern, Pattern::Reduce::RA>,
                  "the pattern reductions support Pattern::Reduce::AR and Pattern::Reduce::RA only");
    constexpr bool ar = std::is_same_v<pattern, Pattern::Reduce::AR>;
    const KindInfo ki = info(K);
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (c.soc().arch == 1)
        fail(Diag::UnsupportedApi, loc,
             "%s with a Pattern::Reduce pattern is not available on %s (the page marks the 310P AI Core "
             "unsupported). Reduce with the basic APIs instead: WholeReduce%s / BlockReduce%s per repeat, or the "
             "count form of ReduceSum/ReduceMax/ReduceMin, and Add/Max/Min across rows.",
             ki.name, c.soc().name, K == Kind::Min ? "Min" : K == Kind::Max ? "Max" : "Sum",
             K == Kind::Min ? "Min" : K == Kind::Max ? "Max" : "Sum");
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, ki.types, ki.types, ki.name, loc);
    if (!srcInnerPad)
        fail(Diag::UnsupportedApi, loc,
             "%s: srcInnerPad = false is not supported (the %s page supports only true on Atlas A2/A3). Store each "
             "row of src padded to 32 bytes and pass true.",
             ki.name, ki.name);
    uint32_t rows = srcShape[0], cols = srcShape[1];
    if (rows == 0 || cols == 0)
        fail(Diag::BadArgument, loc, "%s: srcShape is (%u, %u); both dimensions must be at least 1.", ki.name, rows,
             cols);
    uint64_t stride = round_up(cols, ascendc_sim::kBlockBytes / sizeof(T));
    uint64_t results = ar ? rows : cols;
    uint64_t src_elems = uint64_t(rows - 1) * stride + cols;
    check_layout(ki.name, dst, results, src, src_elems, tmp, loc);
    const T* s = src.GetPhyAddrPtr();
    if constexpr (K == Kind::All || K == Kind::Any) check_boolean(ki.name, s, rows, cols, stride, loc);
    std::vector<T> out(results);
    for (uint64_t i = 0; i < results; ++i)
        out[i] = ar ? reduce_line<K>(s + i * stride, cols, 1) : reduce_line<K>(s + i, rows, stride);
    std::memcpy(dst.GetPhyAddrPtr(), out.data(), results * sizeof(T));
    if (isReuseSource) std::memset(src.GetPhyAddrPtr(), 0xFF, src_elems * sizeof(T));
    uint64_t repeats = ascendc_sim::repeats_for<T>(uint64_t(rows) * stride) + ascendc_sim::repeats_for<T>(results);
    ascendc_sim::count_vector(c, ki.op, repeats, {src.timing(), tmp ? tmp->timing() : nullptr}, dst.timing());
}

// ---- Sum / Mean -----------------------------------------------------------------------------------

template <typename T, typename Params>
void check_last_axis(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const LocalTensor<uint8_t>* tmp, const Params& p, bool basic_block, int reduce_dim, Loc loc) {
    if (reduce_dim != -1)
        fail(Diag::UnsupportedApi, loc,
             "%s: reduceDim is %d; the %s page reduces the last axis only and takes the default -1.", api, reduce_dim,
             api);
    if (basic_block)
        fail(Diag::UnsupportedApi, loc, "%s: isBasicBlock = true is a reserved parameter the %s page does not support "
             "yet; pass false.", api, api);
    if ((uint64_t(p.inner) * sizeof(T)) % ascendc_sim::kBlockBytes != 0 || p.inner == 0)
        fail(Diag::BadArgument, loc,
             "%s: inner is %u, but inner * sizeof(%s) must be a non-zero multiple of 32 bytes: inner = (n * sizeof(T) "
             "+ 31) / 32 * 32 / sizeof(T) = %llu for n = %u.",
             api, p.inner, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>), p.inner,
             (unsigned long long)round_up(uint64_t(p.n) * sizeof(T), 32) / sizeof(T), p.n);
    if (p.n < 1 || p.n > p.inner)
        fail(Diag::BadArgument, loc, "%s: n is %u but must be in [1, inner = %u].", api, p.n, p.inner);
    uint64_t dst_need = round_up(p.outter, ascendc_sim::kBlockBytes / sizeof(T));
    check_layout(api, dst, dst_need, src, uint64_t(p.outter) * p.inner, tmp, loc);
}

template <typename T, typename Acc, typename Params>
void last_axis(const char* api, OpId op, bool mean, const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<uint8_t>* tmp, const Params& p, bool basic_block, int reduce_dim, bool reuse,
               Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kF16F32, kF16F32, api, loc);
    if (sizeof(Acc) < sizeof(T))
        fail(Diag::BadArgument, loc, "%s: accType is narrower than T; the %s page does not support lowering the "
             "precision. Use accType = T, or float for half.", api, api);
    if (p.outter == 0) return;
    check_last_axis(api, dst, src, tmp, p, basic_block, reduce_dim, loc);
    const T* s = src.GetPhyAddrPtr();
    T* d = dst.GetPhyAddrPtr();
    std::vector<Acc> row(p.n);
    for (uint32_t r = 0; r < p.outter; ++r) {
        for (uint32_t j = 0; j < p.n; ++j) row[j] = Acc(s[uint64_t(r) * p.inner + j]);
        Acc sum = row_sum(row.data(), p.n);
        d[r] = mean ? T(Acc(float(sum) / float(p.n))) : T(sum);
    }
    uint64_t padded = round_up(p.outter, ascendc_sim::kBlockBytes / sizeof(T));
    std::memset(d + p.outter, 0xFF, (padded - p.outter) * sizeof(T));  // "not filled, random values"
    if (reuse) std::memset(src.GetPhyAddrPtr(), 0xFF, uint64_t(p.outter) * p.inner * sizeof(T));
    uint64_t repeats = ascendc_sim::repeats_for<Acc>(uint64_t(p.outter) * p.inner) * (sizeof(Acc) > sizeof(T) ? 2 : 1) +
                       ascendc_sim::repeats_for<T>(padded);
    ascendc_sim::count_vector(c, op, repeats, {src.timing(), tmp ? tmp->timing() : nullptr}, dst.timing());
}

template <bool isReuseSource>
void xor_sum(const LocalTensor<int16_t>& dst, const LocalTensor<int16_t>& src0, const LocalTensor<int16_t>& src1,
             const LocalTensor<uint8_t>* tmp, uint32_t count, Loc loc) {
    const char* api = "ReduceXorSum";
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (count == 0) return;
    check_layout(api, dst, ascendc_sim::kBlockBytes / sizeof(int16_t), src0, count, tmp, loc);
    check_layout(api, dst, ascendc_sim::kBlockBytes / sizeof(int16_t), src1, count, tmp, loc);
    const int16_t* a = src0.GetPhyAddrPtr();
    const int16_t* b = src1.GetPhyAddrPtr();
    int64_t sum = 0;
    for (uint32_t i = 0; i < count; ++i) sum += int16_t(a[i] ^ b[i]);
    int16_t* d = dst.GetPhyAddrPtr();
    std::memset(d, 0xFF, ascendc_sim::kBlockBytes);
    d[0] = int16_t(std::min<int64_t>(32767, std::max<int64_t>(-32768, sum)));
    if (isReuseSource) {
        std::memset(src0.GetPhyAddrPtr(), 0xFF, uint64_t(count) * sizeof(int16_t));
        std::memset(src1.GetPhyAddrPtr(), 0xFF, uint64_t(count) * sizeof(int16_t));
    }
    // Xor as (a | b) & ~(a & b): four passes, then a ReduceSum.
    uint64_t repeats = 5 * ascendc_sim::repeats_for<int16_t>(count);
    ascendc_sim::count_vector(c, OpId::ReduceXorSum, repeats, {src0.timing(), src1.timing()}, dst.timing());
}

}  // namespace preduce_detail

// ---- public API --------------------------------------------------------------------------------------

#define ASCENDC_SIM_PATTERN_REDUCE(NAME, KIND)                                                                        \
    template <class T, class pattern, bool isReuseSource = false>                                                    \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                      \
              const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[], bool srcInnerPad,              \
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                                     \
        preduce_detail::run<preduce_detail::Kind::KIND, T, pattern, isReuseSource>(dstTensor, srcTensor,             \
                                                                                    &sharedTmpBuffer, srcShape,      \
                                                                                    srcInnerPad, loc);               \
    }                                                                                                                \
    template <class T, class pattern, bool isReuseSource = false>                                                    \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t srcShape[],           \
              bool srcInnerPad, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {                                   \
        preduce_detail::run<preduce_detail::Kind::KIND, T, pattern, isReuseSource>(dstTensor, srcTensor, nullptr,    \
                                                                                    srcShape, srcInnerPad, loc);     \
    }

ASCENDC_SIM_PATTERN_REDUCE(ReduceSum, Sum)
ASCENDC_SIM_PATTERN_REDUCE(ReduceMax, Max)
ASCENDC_SIM_PATTERN_REDUCE(ReduceMin, Min)
ASCENDC_SIM_PATTERN_REDUCE(ReduceMean, Mean)
ASCENDC_SIM_PATTERN_REDUCE(ReduceProd, Prod)
ASCENDC_SIM_PATTERN_REDUCE(ReduceAll, All)
ASCENDC_SIM_PATTERN_REDUCE(ReduceAny, Any)
#undef ASCENDC_SIM_PATTERN_REDUCE

template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
         const SumParams& sumParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    preduce_detail::last_axis<T, T>("Sum", ascendc_sim::OpId::Sum, false, dstTensor, srcTensor, &sharedTmpBuffer,
                                    sumParams, isBasicBlock, reduceDim, isReuseSource, loc);
}

template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SumParams& sumParams,
         ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    preduce_detail::last_axis<T, T>("Sum", ascendc_sim::OpId::Sum, false, dstTensor, srcTensor, nullptr, sumParams,
                                    isBasicBlock, reduceDim, isReuseSource, loc);
}

template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
          int32_t reduceDim = -1>
void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
          const MeanParams& meanParams, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    preduce_detail::last_axis<T, accType>("Mean", ascendc_sim::OpId::Mean, true, dstTensor, srcTensor,
                                          &sharedTmpBuffer, meanParams, isBasicBlock, reduceDim, isReuseSource, loc);
}

template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
          int32_t reduceDim = -1>
void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const MeanParams& meanParams,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    preduce_detail::last_axis<T, accType>("Mean", ascendc_sim::OpId::Mean, true, dstTensor, srcTensor, nullptr,
                                          meanParams, isBasicBlock, reduceDim, isReuseSource, loc);
}

template <typename T, bool isReuseSource = false>
void ReduceXorSum(LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                  LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
                  ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, ascendc_sim::dtype_bit(ascendc_sim::DType::I16),
                             ascendc_sim::dtype_bit(ascendc_sim::DType::I16), "ReduceXorSum", loc);
    if constexpr (std::is_same_v<T, int16_t>)
        preduce_detail::xor_sum<isReuseSource>(dstTensor, src0Tensor, src1Tensor, &sharedTmpBuffer, calCount, loc);
}

template <typename T, bool isReuseSource = false>
void ReduceXorSum(LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                  const uint32_t calCount, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, ascendc_sim::dtype_bit(ascendc_sim::DType::I16),
                             ascendc_sim::dtype_bit(ascendc_sim::DType::I16), "ReduceXorSum", loc);
    if constexpr (std::is_same_v<T, int16_t>)
        preduce_detail::xor_sum<isReuseSource>(dstTensor, src0Tensor, src1Tensor, nullptr, calCount, loc);
}

}  // namespace AscendC
