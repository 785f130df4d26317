// TopK (high-level; Normal and Small modes, TopKInfo, TopkTiling, isInitIndex, isHasfinish, isLargest).
//
// Semantics, from asc-devkit v8.5.0 TopK.md and TopK-Tiling.md:
// - Each of the outter rows holds inner elements (inner a multiple of 32; at most 4096 in Normal
//   mode, exactly 32 in Small mode), of which the first n are data. The API sorts whole rows (Sort32
//   and MrgSort over inner), so the padding takes part: the pages' Small example fills it with -inf.
//   A padded element that would land in the first k is reported (bad_argument), since it means the
//   kernel did not fill the padding with values that stay out of the result (-inf for the largest,
//   +inf for the smallest).
// - isLargest: the k largest, descending; otherwise the k smallest, ascending. Equal values keep
//   their input order; NaN comes first either way; inf is the extreme.
// - Indexes: isInitIndex = true takes srcIndexLocal, one row of inner shared by all rows (Normal) or
//   outter x inner (Small). With false the v8.5.0 page calls the output indexes unusable (older pages
//   said the API generates 0..inner-1), so they are poisoned (-1), except finished rows' n.
// - isHasfinish (Normal mode only): a row whose finishLocal value is true gets all k indexes = n.
// - Output: Normal mode rows of k_pad values (k rounded up to 32 bytes of T) and kpad_index = k
//   rounded up to 8 indexes; Small mode outter x k packed. The elements past k in a row (Normal),
//   or past outter * k up to 32 bytes (Small), are "random values": poisoned (0xFF).
// - TopkTiling only steers the NPU's internal steps; the simulator does not read it. tmpLocal must
//   be a VECCALC tensor; GetTopKMaxMinTmpSize gives no formula, so its size is not checked.
#pragma once
#include <algorithm>
#include <cstring>
#include <vector>

#include "topk_tiling.h"
#include "vector_ops.h"

namespace AscendC {

namespace topk_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::Loc;
using ascendc_sim::fail;

constexpr uint32_t kTypes = ascendc_sim::dtype_bit(DType::F16) | ascendc_sim::dtype_bit(DType::F32);

inline bool overlaps(const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes) {
    auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
    return x < y + b_bytes && y < x + a_bytes;
}

inline int64_t round_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

struct Shape {
    int64_t rows, inner, n, k;
    bool small;
    int64_t value_pitch(size_t type_size) const { return small ? k : round_up(k, 32 / int64_t(type_size)); }
    int64_t index_pitch() const { return small ? k : round_up(k, 8); }
};

inline void check_shape(const Shape& s, bool has_finish, const char* api, Loc loc) {
    if (s.rows < 1 || s.inner <= 0 || s.inner % 32 != 0)
        fail(Diag::BadArgument, loc,
             "%s: topKInfo is outter %lld, inner %lld; outter must be at least 1 and inner a positive multiple of 32 "
             "(n rounded up to 32).",
             api, (long long)s.rows, (long long)s.inner);
    if (s.small && s.inner != 32)
        fail(Diag::BadArgument, loc, "%s: Small mode (TOPK_NSMALL) needs topKInfo.inner = 32, not %lld.", api,
             (long long)s.inner);
    if (!s.small && s.inner > 4096)
        fail(Diag::BadArgument, loc, "%s: Normal mode supports inner up to 4096, not %lld. Split the row.", api,
             (long long)s.inner);
    if (s.n < 1 || s.n > s.inner)
        fail(Diag::BadArgument, loc, "%s: topKInfo.n is %lld but must be in [1, inner = %lld].", api, (long long)s.n,
             (long long)s.inner);
    if (s.k < 1 || s.k > s.n)
        fail(Diag::BadArgument, loc, "%s: k is %lld but must be in [1, n = %lld].", api, (long long)s.k,
             (long long)s.n);
    if (s.small && has_finish)
        fail(Diag::BadArgument, loc, "%s: isHasfinish must be false in Small mode (TOPK_NSMALL).", api);
}

template <typename T>
bool ranks_before(T a, T b, bool largest) {
    float x = float(a), y = float(b);
    if (y != y) return false;
    if (x != x) return true;
    return largest ? x > y : x < y;
}

template <typename T>
void check_operands(const LocalTensor<T>& dst_value, const LocalTensor<int32_t>& dst_index, const LocalTensor<T>& src,
                    const LocalTensor<int32_t>& src_index, const LocalTensor<bool>& finish,
                    const LocalTensor<uint8_t>* tmp, const Shape& s, bool init_index, bool has_finish, Loc loc) {
    const char* api = "TopK";
    uint64_t src_elems = uint64_t(s.rows) * s.inner;
    uint64_t value_elems = round_up(s.rows * s.value_pitch(sizeof(T)), 32 / int64_t(sizeof(T)));
    uint64_t index_elems = round_up(s.rows * s.index_pitch(), 8);
    ascendc_sim::check_operand(src, src_elems, api, "srcLocal", loc);
    ascendc_sim::check_operand(dst_value, value_elems, api, "dstValueLocal", loc);
    ascendc_sim::check_operand(dst_index, index_elems, api, "dstIndexLocal", loc);
    if (init_index) ascendc_sim::check_operand(src_index, s.small ? src_elems : s.inner, api, "srcIndexLocal", loc);
    if (has_finish) ascendc_sim::check_operand(finish, s.rows, api, "finishLocal", loc);
    if (overlaps(dst_value.GetPhyAddrPtr(), value_elems * sizeof(T), src.GetPhyAddrPtr(), src_elems * sizeof(T)) ||
        overlaps(dst_index.GetPhyAddrPtr(), index_elems * 4, src.GetPhyAddrPtr(), src_elems * sizeof(T)))
        fail(Diag::BadArgument, loc,
             "%s: a destination overlaps srcLocal; the page does not support it. Give the outputs their own buffers.",
             api);
    if (tmp == nullptr) return;
    ascendc_sim::check_operand(*tmp, 0, api, "tmpLocal", loc);
    if (tmp->GetPosition() != TPosition::VECCALC)
        fail(Diag::BadArgument, loc,
             "%s: tmpLocal must be a VECCALC tensor (TopK.md); take it from a TBuf<TPosition::VECCALC>.", api);
}

template <typename T>
void run(const LocalTensor<T>& dst_value, const LocalTensor<int32_t>& dst_index, const LocalTensor<T>& src,
         const LocalTensor<int32_t>& src_index, const LocalTensor<bool>& finish, const LocalTensor<uint8_t>* tmp,
         int32_t k, const TopKInfo& info, bool largest, bool init_index, bool has_finish, bool small, Loc loc) {
    const char* api = "TopK";
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, api, loc);
    Shape s{info.outter, info.inner, info.n, k, small};
    check_shape(s, has_finish, api, loc);
    check_operands(dst_value, dst_index, src, src_index, finish, tmp, s, init_index, has_finish, loc);
    const int64_t vp = s.value_pitch(sizeof(T)), ip = s.index_pitch();
    T* dv = dst_value.GetPhyAddrPtr();
    int32_t* di = dst_index.GetPhyAddrPtr();
    std::memset(dv, 0xFF, round_up(s.rows * vp, 32 / int64_t(sizeof(T))) * sizeof(T));
    std::memset(di, 0xFF, round_up(s.rows * ip, 8) * sizeof(int32_t));
    std::vector<int64_t> order(s.inner);
    for (int64_t r = 0; r < s.rows; ++r) {
        const T* row = src.GetPhyAddrPtr() + r * s.inner;
        for (int64_t j = 0; j < s.inner; ++j) order[j] = j;
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t a, int64_t b) { return ranks_before(row[a], row[b], largest); });
        for (int64_t j = 0; j < s.k; ++j)
            if (order[j] >= s.n)
                fail(Diag::BadArgument, loc,
                     "TopK: row %lld's padding element %lld (n = %lld, inner = %lld) ranks among the top %lld. The "
                     "API sorts the whole padded row: fill elements n..inner-1 with %s so that they stay out of the "
                     "result.",
                     (long long)r, (long long)order[j], (long long)s.n, (long long)s.inner, (long long)s.k,
                     largest ? "-inf" : "+inf");
        bool finished = has_finish && finish.GetPhyAddrPtr()[r];
        for (int64_t j = 0; j < s.k; ++j) {
            int64_t at = order[j];
            dv[r * vp + j] = row[at];
            // Without isInitIndex the page calls the output indexes unusable: left poisoned (-1).
            int32_t index = !init_index ? -1 : s.small ? src_index.GetPhyAddrPtr()[r * s.inner + at]
                                                       : src_index.GetPhyAddrPtr()[at];
            di[r * ip + j] = finished ? int32_t(s.n) : index;
        }
    }
    // Sort32 over every 32, log4 merge rounds, and the gathers of values and indexes.
    uint64_t groups = uint64_t(s.rows) * s.inner / 32, repeats = groups;
    for (int64_t q = s.inner / 32; !small && q > 1; q = (q + 3) / 4) repeats += groups;
    repeats += 2 * ascendc_sim::repeats_for<T>(uint64_t(s.rows) * s.inner);
    ascendc_sim::count_vector(c, ascendc_sim::OpId::TopK, repeats,
                              {src.timing(), init_index ? src_index.timing() : nullptr}, dst_value.timing());
    ascendc_sim::note_write(c, dst_index.timing(), ascendc_sim::kPipeV);
    if (dst_index.timing() != nullptr && dst_value.timing() != nullptr)
        dst_index.timing()->write_end = std::max(dst_index.timing()->write_end, dst_value.timing()->write_end);
}

}  // namespace topk_detail

template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal, const LocalTensor<T>& srcLocal,
          const LocalTensor<int32_t>& srcIndexLocal, const LocalTensor<bool>& finishLocal, const int32_t k,
          const TopkTiling& tilling, const TopKInfo& topKInfo, const bool isLargest = true,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    (void)tilling;
    topk_detail::run(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal, finishLocal, nullptr, k, topKInfo, isLargest,
                     isInitIndex, isHasfinish, topkMode == TopKMode::TOPK_NSMALL, loc);
}

template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal, const LocalTensor<T>& srcLocal,
          const LocalTensor<int32_t>& srcIndexLocal, const LocalTensor<bool>& finishLocal,
          const LocalTensor<uint8_t>& tmpLocal, const int32_t k, const TopkTiling& tilling, const TopKInfo& topKInfo,
          const bool isLargest = true, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    (void)tilling;
    topk_detail::run(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal, finishLocal, &tmpLocal, k, topKInfo,
                     isLargest, isInitIndex, isHasfinish, topkMode == TopKMode::TOPK_NSMALL, loc);
}

}  // namespace AscendC
