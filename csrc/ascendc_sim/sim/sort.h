// Sorting on Atlas A2/A3: Sort32, MrgSort (MrgSort4Info form and the elementCountList form),
// GetMrgSortResult, Sort<T, isFullSort>, Concat, Extract, GetSortLen, GetSortOffset. The Region
// Proposal instructions of 310P (MrgSort4, RpSort16, ProposalConcat/Extract) are in proposal.h.
//
// Semantics, from the asc-devkit v8.5.0 pages Sort32.md, MrgSort.md, MrgSort-37.md, Sort.md,
// Concat.md, Extract.md, GetSortLen.md, GetSortOffset.md, GetMrgSortResult.md:
// - A sorted element ("排布方式一", the layout of Atlas A2/A3) takes 8 bytes: the score in the low
//   bytes (4 for float, 2 for half, then 2 reserved bytes) and the uint32 index in the high 4 bytes.
//   The reserved bytes of half results are not defined, so they are poisoned (0xFF).
// - Descending by score; equal scores keep their input order (score[j] before score[i] for j < i),
//   and across MrgSort queues the lower queue wins a tie. NaN sorts as the largest score (an
//   assumption: the pages do not say; it is where torch.sort(descending=True) puts it).
// - Sort32 and Sort without isFullSort sort each 32 elements; repeats do not mix.
// - Concat on Atlas A2/A3 prepares nothing: Sort takes the scores as they are (its concat is the
//   score tensor of shape [n]); MrgSort-37.md's example passes an unallocated concat LocalTensor,
//   so Concat hands src back as concat.
// - Extract splits 32 sorted elements per repeat into values and uint32 indexes.
// - GetSortLen / GetSortOffset: the pages say bytes, but their one use (MrgSort-37.md) indexes a
//   LocalTensor<T> with the result, which is only right in elements of T: n * 8 / sizeof(T).
// - Temporary buffers (Sort's tmp, Concat's tmp): GetSortTmpSize / GetConcatTmpSize give no
//   formula, so only their start is checked; Sort with isFullSort leaves its tmp poisoned.
// 310P (dav-m200) sorts Region Proposals ("排布方式二") with the instructions of proposal.h; the
// high-level Sort/Concat/Extract/MrgSort of that layout are not simulated there (unsupported_api).
#pragma once
#include <algorithm>
#include <cstring>
#include <vector>

#include "vector_ops.h"

namespace AscendC {

template <typename T>
struct MrgSortSrcList {
    MrgSortSrcList() {}
    MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In, const LocalTensor<T>& src3In,
                   const LocalTensor<T>& src4In)
        : src1(src1In[0]), src2(src2In[0]), src3(src3In[0]), src4(src4In[0]) {}
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};

struct MrgSort4Info {
    MrgSort4Info() {}
    MrgSort4Info(const uint16_t elementLengthsIn[4], const bool ifExhaustedSuspensionIn, const uint16_t validBitIn,
                 const uint16_t repeatTimesIn)
        : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes(repeatTimesIn) {
        for (int i = 0; i < 4; ++i) elementLengths[i] = elementLengthsIn[i];
    }
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint16_t repeatTimes = 1;
};

namespace sort_detail {

using ascendc_sim::Diag;
using ascendc_sim::DType;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using ascendc_sim::fail;

constexpr uint32_t kTypes = ascendc_sim::dtype_bit(DType::F16) | ascendc_sim::dtype_bit(DType::F32);
constexpr uint32_t kElemBytes = 8;     // one (score, index) element
constexpr uint32_t kSortGroup = 32;    // elements one Sort32 repeat sorts
constexpr uint32_t kMaxQueueLen = 4095;

template <typename T>
struct Scored {
    T score;
    uint32_t index;
};

// The (score, index) layout is Atlas A2/A3's; on 310P these APIs use Region Proposals, which the
// simulator implements only as the basic instructions (proposal.h).
inline void require_a2(const char* api, Loc loc) {
    const auto& soc = ascendc_sim::core(loc).soc();
    if (soc.arch == 1)
        fail(Diag::UnsupportedApi, loc,
             "%s in the (score, index) layout is Atlas A2/A3's (asc-devkit %s.md); on %s it works on Region "
             "Proposals, which the simulator supports only through the basic instructions: ProposalConcat the "
             "scores (and other fields) into proposals, RpSort16, MrgSort4, then ProposalExtract.",
             api, api, soc.name);
}

inline void check_repeat_range(int32_t repeat, int32_t low, const char* api, Loc loc) {
    if (repeat < low || repeat > 255)
        fail(Diag::RepeatOverflow, loc, "%s: repeatTime is %d but must be in [%d, 255]. Split the work into calls of at "
             "most 255 repeats.", api, repeat, low);
}

template <typename T>
inline bool sorts_before(T a, T b) {
    float x = float(a), y = float(b);
    if (y != y) return false;
    if (x != x) return true;
    return x > y;
}

template <typename T>
inline Scored<T> load(const T* base, uint64_t k) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(base) + k * kElemBytes;
    Scored<T> e;
    std::memcpy(&e.score, p, sizeof(T));
    std::memcpy(&e.index, p + 4, sizeof(uint32_t));
    return e;
}

template <typename T>
inline void store(T* base, uint64_t k, const Scored<T>& e) {
    uint8_t* p = reinterpret_cast<uint8_t*>(base) + k * kElemBytes;
    std::memcpy(p, &e.score, sizeof(T));
    if (sizeof(T) == 2) std::memset(p + 2, 0xFF, 2);  // reserved: undefined
    std::memcpy(p + 4, &e.index, sizeof(uint32_t));
}

template <typename T>
void stable_desc(std::vector<Scored<T>>& v, size_t begin, size_t end) {
    std::stable_sort(v.begin() + begin, v.begin() + end,
                     [](const Scored<T>& a, const Scored<T>& b) { return sorts_before(a.score, b.score); });
}

// Sort32 / Sort: scores and indexes in, sorted groups of `group` elements (0: all) out.
template <typename T>
void sort_scores(const char* api, OpId op, const LocalTensor<T>& dst, const LocalTensor<T>& scores,
                 const LocalTensor<uint32_t>& index, int32_t repeat, bool full, uint64_t repeats_charged, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, api, loc);
    require_a2(api, loc);
    check_repeat_range(repeat, 0, api, loc);
    if (repeat == 0) return;
    uint64_t n = uint64_t(repeat) * kSortGroup;
    ascendc_sim::check_operand(scores, n, api, full ? "concat (scores)" : "src0 (scores)", loc);
    ascendc_sim::check_operand(index, n, api, full ? "index" : "src1 (indexes)", loc);
    ascendc_sim::check_operand(dst, n * kElemBytes / sizeof(T), api, "dst", loc);
    std::vector<Scored<T>> v(n);
    for (uint64_t i = 0; i < n; ++i) v[i] = {scores.GetPhyAddrPtr()[i], index.GetPhyAddrPtr()[i]};
    if (full) {
        stable_desc(v, 0, n);
    } else {
        for (uint64_t g = 0; g < n; g += kSortGroup) stable_desc(v, g, g + kSortGroup);
    }
    for (uint64_t i = 0; i < n; ++i) store(dst.GetPhyAddrPtr(), i, v[i]);
    ascendc_sim::count_vector(c, op, repeats_charged, {scores.timing(), index.timing()}, dst.timing());
}

// ---- MrgSort ---------------------------------------------------------------------------------------

struct MergeResult {
    const ascendc_sim::CoreState* core = nullptr;
    uint64_t launch = 0;
    uint16_t taken[4] = {0, 0, 0, 0};
};

// What the last exhausted-suspension MrgSort of this core took from each queue (GetMrgSortResult).
inline MergeResult& last_merge() {
    static thread_local MergeResult result;
    return result;
}

inline int queue_count(uint16_t valid_bit, const char* api, Loc loc) {
    switch (valid_bit) {
        case 0b11: return 2;
        case 0b111: return 3;
        case 0b1111: return 4;
    }
    fail(Diag::BadArgument, loc,
         "%s: validBit is %u; it must be 0b11 (3: two queues), 0b111 (7: three) or 0b1111 (15: four).", api,
         unsigned(valid_bit));
}

template <typename T>
struct MergeCall {
    const LocalTensor<T>* queues[4];
    const uint16_t* lengths;
    uint16_t valid_bit;
    int32_t repeat;
    bool suspend;
};

template <typename T>
void check_queue(const LocalTensor<T>& q, int i, uint16_t len, const char* api, Loc loc, uint32_t elem_bytes = kElemBytes,
                 uint32_t align = kElemBytes) {
    char role[32];
    std::snprintf(role, sizeof role, "src%d (queue %d)", i + 1, i + 1);
    if (len > kMaxQueueLen)
        fail(Diag::BadArgument, loc, "%s: the length of queue %d is %u; a queue holds at most 4095 elements.", api,
             i + 1, unsigned(len));
    if (q.GetPhyAddrPtr() == nullptr)
        fail(Diag::BadArgument, loc,
             "%s: %s is an empty LocalTensor but validBit makes it a valid queue. Pass the sorted queue, or lower "
             "validBit.",
             api, role);
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    uint64_t offset = ascendc_sim::ub_offset(c, q.GetPhyAddrPtr());
    if (offset % align != 0)
        fail(Diag::UbMisaligned, loc, "%s: %s starts at UB byte offset %llu; a queue must start %u-byte aligned.", api,
             role, (unsigned long long)offset, align);
    if (uint64_t(len) * elem_bytes > uint64_t(q.GetSize()) * sizeof(T))
        fail(Diag::LocalOverrun, loc,
             "%s: %s holds %u elements (%u bytes) but its LocalTensor has only %llu bytes.", api, role, unsigned(len),
             unsigned(len) * elem_bytes, (unsigned long long)(uint64_t(q.GetSize()) * sizeof(T)));
}

// repeatTimes > 1 is only defined for four contiguous queues of one length without suspension.
template <typename T>
void check_merge_repeat(const MergeCall<T>& m, int queues, const char* api, Loc loc, uint32_t elem_bytes = kElemBytes) {
    check_repeat_range(m.repeat, 1, api, loc);
    if (m.repeat == 1) return;
    bool same = queues == 4 && m.lengths[1] == m.lengths[0] && m.lengths[2] == m.lengths[0] &&
                m.lengths[3] == m.lengths[0];
    bool contiguous = true;
    for (int i = 1; i < 4 && same; ++i)
        contiguous &= reinterpret_cast<const uint8_t*>(m.queues[i]->GetPhyAddrPtr()) ==
                      reinterpret_cast<const uint8_t*>(m.queues[0]->GetPhyAddrPtr()) +
                          uint64_t(i) * m.lengths[0] * elem_bytes;
    if (!same || !contiguous || m.suspend)
        fail(Diag::BadArgument, loc,
             "%s: repeatTimes is %d, but repeats are only defined when all four queues are valid (validBit 15), "
             "have one length, lie one after another in UB and ifExhaustedSuspension is false (%s). Merge with "
             "repeatTimes 1, or lay the queues out that way.",
             api, m.repeat,
             !same ? "the queue lengths or validBit differ" : !contiguous ? "the queues are not contiguous"
                                                                         : "suspension is on");
}

template <typename T>
void merge(const char* api, const LocalTensor<T>& dst, const MergeCall<T>& m, uint32_t* sorted_num, Loc loc) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, kTypes, kTypes, api, loc);
    require_a2(api, loc);
    int queues = queue_count(m.valid_bit, api, loc);
    uint64_t total = 0;
    for (int i = 0; i < queues; ++i) {
        check_queue(*m.queues[i], i, m.lengths[i], api, loc);
        total += m.lengths[i];
    }
    check_merge_repeat(m, queues, api, loc);
    uint64_t per_repeat = total;
    ascendc_sim::check_operand(dst, per_repeat * m.repeat * kElemBytes / sizeof(T), api, "dst", loc);
    std::vector<Scored<T>> out;
    uint16_t taken[4] = {0, 0, 0, 0};
    for (int32_t r = 0; r < m.repeat; ++r) {
        std::vector<std::vector<Scored<T>>> q(queues);
        for (int i = 0; i < queues; ++i) {
            const T* base = m.queues[i]->GetPhyAddrPtr() + uint64_t(r) * per_repeat * kElemBytes / sizeof(T);
            for (uint16_t k = 0; k < m.lengths[i]; ++k) q[i].push_back(load(base, k));
        }
        size_t pos[4] = {0, 0, 0, 0};
        while (true) {
            int best = -1;
            for (int i = 0; i < queues; ++i)
                if (pos[i] < q[i].size() && (best < 0 || sorts_before(q[i][pos[i]].score, q[best][pos[best]].score)))
                    best = i;
            if (best < 0) break;
            out.push_back(q[best][pos[best]++]);
            if (m.suspend && pos[best] == q[best].size()) break;
        }
        for (int i = 0; i < queues; ++i) taken[i] = static_cast<uint16_t>(pos[i]);
    }
    for (size_t k = 0; k < out.size(); ++k) store(dst.GetPhyAddrPtr(), k, out[k]);
    if (m.suspend) {
        MergeResult& res = last_merge();
        res.core = &c;
        res.launch = c.launch->serial;
        for (int i = 0; i < 4; ++i) {
            res.taken[i] = taken[i];
            if (sorted_num != nullptr) sorted_num[i] = taken[i];
        }
    }
    ascendc_sim::BufferTiming* s[4] = {nullptr, nullptr, nullptr, nullptr};
    for (int i = 0; i < queues; ++i) s[i] = m.queues[i]->timing();
    uint64_t repeats = std::max<uint64_t>(1, (out.size() * kElemBytes + ascendc_sim::kRepeatBytes - 1) /
                                                 ascendc_sim::kRepeatBytes);
    ascendc_sim::count_vector(c, OpId::MrgSort, repeats, {s[0], s[1], s[2], s[3]}, dst.timing());
}

}  // namespace sort_detail

// ---- public API ------------------------------------------------------------------------------------

template <typename T>
inline uint32_t GetSortLen(const uint32_t elemCount) {
    return elemCount * sort_detail::kElemBytes / sizeof(T);
}

template <typename T>
inline uint32_t GetSortOffset(const uint32_t elemOffset) {
    return elemOffset * sort_detail::kElemBytes / sizeof(T);
}

template <typename T>
void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
            const int32_t repeatTime, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sort_detail::sort_scores("Sort32", ascendc_sim::OpId::Sort32, dst, src0, src1, repeatTime, false,
                             uint64_t(std::max(repeatTime, 0)), loc);
}

template <typename T, bool isFullSort>
void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat, const LocalTensor<uint32_t>& index, LocalTensor<T>& tmp,
          const int32_t repeatTime, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::check_operand(tmp, 0, "Sort", "tmp", loc);
    // Charged as Sort32 over every group, then log4(groups) rounds of 4-way merging over all elements.
    uint64_t groups = uint64_t(std::max(repeatTime, 0)), repeats = groups;
    for (uint64_t q = groups; isFullSort && q > 1; q = (q + 3) / 4) repeats += groups;
    uint64_t n = groups * sort_detail::kSortGroup;
    uint64_t scratch = std::min<uint64_t>(uint64_t(tmp.GetSize()) * sizeof(T), n * sort_detail::kElemBytes);
    if (isFullSort && n > 0) {
        auto hits = [&](const void* p, uint64_t bytes) {
            auto a = reinterpret_cast<uintptr_t>(tmp.GetPhyAddrPtr()), b = reinterpret_cast<uintptr_t>(p);
            return a < b + bytes && b < a + scratch;
        };
        if (hits(dst.GetPhyAddrPtr(), n * sort_detail::kElemBytes) || hits(concat.GetPhyAddrPtr(), n * sizeof(T)) ||
            hits(index.GetPhyAddrPtr(), n * sizeof(uint32_t)))
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Sort: tmp overlaps dst, concat or index; a full sort merges through tmp, so it needs "
                              "its own buffer.");
    }
    sort_detail::sort_scores("Sort", ascendc_sim::OpId::Sort, dst, concat, index, repeatTime, isFullSort, repeats, loc);
    if (isFullSort && n > 0) std::memset(tmp.GetPhyAddrPtr(), 0xFF, scratch);  // merge scratch: undefined afterwards
}

template <typename T>
void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src, const LocalTensor<T>& tmp, const int32_t repeatTime,
            ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    (void)tmp;
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sort_detail::kTypes, sort_detail::kTypes, "Concat", loc);
    sort_detail::require_a2("Concat", loc);
    sort_detail::check_repeat_range(repeatTime, 0, "Concat", loc);
    ascendc_sim::check_operand(src, uint64_t(repeatTime) * 16, "Concat", "src", loc);
    concat = src;
}

template <typename T>
void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex, const LocalTensor<T>& sorted,
             const int32_t repeatTime, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const char* api = "Extract";
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sort_detail::kTypes, sort_detail::kTypes, api, loc);
    sort_detail::require_a2(api, loc);
    sort_detail::check_repeat_range(repeatTime, 0, api, loc);
    if (repeatTime == 0) return;
    uint64_t n = uint64_t(repeatTime) * sort_detail::kSortGroup;
    ascendc_sim::check_operand(sorted, n * sort_detail::kElemBytes / sizeof(T), api, "sorted", loc);
    ascendc_sim::check_operand(dstValue, n, api, "dstValue", loc);
    ascendc_sim::check_operand(dstIndex, n, api, "dstIndex", loc);
    std::vector<sort_detail::Scored<T>> v(n);
    for (uint64_t i = 0; i < n; ++i) v[i] = sort_detail::load(sorted.GetPhyAddrPtr(), i);
    for (uint64_t i = 0; i < n; ++i) {
        dstValue.GetPhyAddrPtr()[i] = v[i].score;
        dstIndex.GetPhyAddrPtr()[i] = v[i].index;
    }
    ascendc_sim::count_vector(c, ascendc_sim::OpId::Extract, 2 * uint64_t(repeatTime), {sorted.timing()},
                              dstValue.timing());
    // dstIndex is written by the same instruction: its data is ready when dstValue's is.
    ascendc_sim::note_write(c, dstIndex.timing(), ascendc_sim::kPipeV);
    if (dstIndex.timing() != nullptr && dstValue.timing() != nullptr)
        dstIndex.timing()->write_end = std::max(dstIndex.timing()->write_end, dstValue.timing()->write_end);
}

template <typename T>
void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sort_detail::MergeCall<T> m{{&src.src1, &src.src2, &src.src3, &src.src4}, params.elementLengths, params.validBit,
                                int32_t(params.repeatTimes), params.ifExhaustedSuspension};
    sort_detail::merge("MrgSort", dst, m, nullptr, loc);
}

template <typename T, bool isExhaustedSuspension = false>
void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList, const uint16_t elementCountList[4],
             uint32_t sortedNum[4], uint16_t validBit, const int32_t repeatTime,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sort_detail::MergeCall<T> m{{&sortList.src1, &sortList.src2, &sortList.src3, &sortList.src4}, elementCountList,
                                validBit, repeatTime, isExhaustedSuspension};
    sort_detail::merge("MrgSort", dst, m, sortedNum, loc);
}

// After MrgSort (A2/A3) or MrgSort4 (310P) with ifExhaustedSuspension.
inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                             uint16_t& mrgSortList4, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    const sort_detail::MergeResult& r = sort_detail::last_merge();
    if (r.core != &c || r.launch != c.launch->serial)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "GetMrgSortResult: no MrgSort / MrgSort4 with ifExhaustedSuspension = true ran on this core before, so "
                          "the counts are undefined. Call MrgSort with ifExhaustedSuspension (isExhaustedSuspension) "
                          "true first.");
    mrgSortList1 = r.taken[0];
    mrgSortList2 = r.taken[1];
    mrgSortList3 = r.taken[2];
    mrgSortList4 = r.taken[3];
}

}  // namespace AscendC
