// Region Proposal instructions of 310P (Atlas 推理系列产品 AI Core): ProposalConcat, ProposalExtract,
// RpSort16 and MrgSort4. The pages (asc-devkit v8.5.0 ProposalConcat.md, ProposalExtract.md,
// RpSort16.md, MrgSort4.md; CANN 8.x/9.x online pages for the product table) mark them unsupported
// on Atlas A2/A3, where they are refused with unsupported_api.
//
// - A Region Proposal is 8 consecutive elements [x1, y1, x2, y2, score, label, reserved_0,
//   reserved_1] of half or float; the last two are invalid data. Sorting moves whole proposals and
//   leaves the two reserved elements of each output undefined (poisoned, 0xFF).
// - ProposalConcat writes 16 consecutive src elements per repeat into element modeNumber (0 x1,
//   1 y1, 2 x2, 3 y2, 4 score, 5 label) of 16 proposals, leaving their other elements alone;
//   ProposalExtract reads them back out. repeatTime in [0, 255], modeNumber in [0, 5].
// - RpSort16 sorts each 16 proposals by score, descending, equal scores in input order (NaN first,
//   assumed as in sort.h); src and dst may be one buffer (the page's example sorts in place).
// - MrgSort4 merges up to 4 score-sorted queues (MrgSort4Info as in sort.h, lengths in proposals);
//   queues and dst start 16-byte (half) / 32-byte (float) aligned; no overlap between the queues
//   and dst (bad_argument); ifExhaustedSuspension as MrgSort, with GetMrgSortResult.
#pragma once
#include <array>
#include <cstring>
#include <vector>

#include "sort.h"

namespace AscendC {
namespace proposal_detail {

using ascendc_sim::Diag;
using ascendc_sim::Loc;
using ascendc_sim::OpId;
using ascendc_sim::fail;

constexpr uint32_t kFields = 8;
constexpr uint32_t kScore = 4;
constexpr uint32_t kGroup = 16;

template <typename T>
using Proposal = std::array<T, kFields>;

inline void require_310p(const char* api, Loc loc) {
    const auto& soc = ascendc_sim::core(loc).soc();
    if (soc.arch != 1)
        fail(Diag::UnsupportedApi, loc,
             "%s works on Region Proposals, which the %s page marks as not supported on Atlas A2/A3 (%s). On Atlas "
             "A2/A3 sort (score, index) pairs with Sort32 / Sort and MrgSort, and read them with Extract.",
             api, api, soc.name);
}

template <typename T>
void start(const char* api, int32_t repeat, Loc loc) {
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sort_detail::kTypes, sort_detail::kTypes, api, loc);
    require_310p(api, loc);
    sort_detail::check_repeat_range(repeat, 0, api, loc);
}

inline void check_mode(int32_t mode, const char* api, Loc loc) {
    if (mode < 0 || mode > 5)
        fail(Diag::BadArgument, loc,
             "%s: modeNumber is %d; it must be 0 (x1), 1 (y1), 2 (x2), 3 (y2), 4 (score) or 5 (label).", api, mode);
}

template <typename T>
void store(T* base, uint64_t k, const Proposal<T>& p) {
    std::memcpy(base + k * kFields, p.data(), 6 * sizeof(T));
    std::memset(base + k * kFields + 6, 0xFF, 2 * sizeof(T));  // reserved_0/1: invalid data
}

template <typename T>
void concat_or_extract(bool concat, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat, int32_t mode,
                       Loc loc) {
    const char* api = concat ? "ProposalConcat" : "ProposalExtract";
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    start<T>(api, repeat, loc);
    check_mode(mode, api, loc);
    if (repeat == 0) return;
    uint64_t n = uint64_t(repeat) * kGroup;
    const LocalTensor<T>& proposals = concat ? dst : src;
    const LocalTensor<T>& flat = concat ? src : dst;
    ascendc_sim::check_operand(proposals, n * kFields, api, concat ? "dst (proposals)" : "src (proposals)", loc);
    ascendc_sim::check_operand(flat, n, api, concat ? "src" : "dst", loc);
    T* d = dst.GetPhyAddrPtr();
    const T* s = src.GetPhyAddrPtr();
    for (uint64_t i = 0; i < n; ++i) {
        if (concat) d[i * kFields + mode] = s[i];
        else d[i] = s[i * kFields + mode];
    }
    ascendc_sim::count_vector(c, concat ? OpId::ProposalConcat : OpId::ProposalExtract, repeat, {src.timing()},
                              dst.timing());
}

template <typename T>
Proposal<T> load(const T* base, uint64_t k) {
    Proposal<T> p;
    std::memcpy(p.data(), base + k * kFields, sizeof p);
    return p;
}

template <typename T>
void rp_sort16(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat, Loc loc) {
    const char* api = "RpSort16";
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    start<T>(api, repeat, loc);
    if (repeat == 0) return;
    uint64_t n = uint64_t(repeat) * kGroup;
    ascendc_sim::check_operand(src, n * kFields, api, "src", loc);
    ascendc_sim::check_operand(dst, n * kFields, api, "dst", loc);
    std::vector<Proposal<T>> v(n);
    for (uint64_t i = 0; i < n; ++i) v[i] = load(src.GetPhyAddrPtr(), i);
    for (uint64_t g = 0; g < n; g += kGroup)
        std::stable_sort(v.begin() + g, v.begin() + g + kGroup, [](const Proposal<T>& a, const Proposal<T>& b) {
            return sort_detail::sorts_before(a[kScore], b[kScore]);
        });
    for (uint64_t i = 0; i < n; ++i) store(dst.GetPhyAddrPtr(), i, v[i]);
    ascendc_sim::count_vector(c, OpId::RpSort16, repeat, {src.timing()}, dst.timing());
}

inline bool overlaps(const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes) {
    auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
    return x < y + b_bytes && y < x + a_bytes;
}

template <typename T>
void mrg_sort4(const LocalTensor<T>& dst, const MrgSortSrcList<T>& list, const MrgSort4Info& p, Loc loc) {
    const char* api = "MrgSort4";
    constexpr uint32_t bytes = kFields * sizeof(T), align = sizeof(T) == 2 ? 16 : 32;
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sort_detail::kTypes, sort_detail::kTypes, api, loc);
    require_310p(api, loc);
    sort_detail::MergeCall<T> m{{&list.src1, &list.src2, &list.src3, &list.src4}, p.elementLengths, p.validBit,
                                int32_t(p.repeatTimes), p.ifExhaustedSuspension};
    int queues = sort_detail::queue_count(m.valid_bit, api, loc);
    uint64_t per_repeat = 0;
    for (int i = 0; i < queues; ++i) {
        sort_detail::check_queue(*m.queues[i], i, m.lengths[i], api, loc, bytes, align);
        per_repeat += m.lengths[i];
    }
    sort_detail::check_merge_repeat(m, queues, api, loc, bytes);
    ascendc_sim::check_operand(dst, 0, api, "dst", loc);
    if (per_repeat * m.repeat * kFields > dst.GetSize())
        fail(Diag::LocalOverrun, loc, "%s: dst needs %llu proposals but holds %u.", api,
             (unsigned long long)(per_repeat * m.repeat), unsigned(dst.GetSize() / kFields));
    uint64_t span = uint64_t(m.repeat - 1) * per_repeat * bytes;
    for (int i = 0; i < queues; ++i)
        if (overlaps(m.queues[i]->GetPhyAddrPtr(), span + uint64_t(m.lengths[i]) * bytes, dst.GetPhyAddrPtr(),
                     per_repeat * m.repeat * bytes))
            fail(Diag::BadArgument, loc,
                 "%s: queue %d overlaps dst; the page does not allow source and destination to overlap. Merge into a "
                 "separate buffer.",
                 api, i + 1);
    std::vector<Proposal<T>> out;
    uint16_t taken[4] = {0, 0, 0, 0};
    for (int32_t r = 0; r < m.repeat; ++r) {
        size_t pos[4] = {0, 0, 0, 0};
        auto head = [&](int i) { return load(m.queues[i]->GetPhyAddrPtr() + uint64_t(r) * per_repeat * kFields, pos[i]); };
        while (true) {
            int best = -1;
            for (int i = 0; i < queues; ++i)
                if (pos[i] < m.lengths[i] && (best < 0 || sort_detail::sorts_before(head(i)[kScore], head(best)[kScore])))
                    best = i;
            if (best < 0) break;
            out.push_back(head(best));
            ++pos[best];
            if (m.suspend && pos[best] == m.lengths[best]) break;
        }
        for (int i = 0; i < queues; ++i) taken[i] = static_cast<uint16_t>(pos[i]);
    }
    for (size_t k = 0; k < out.size(); ++k) store(dst.GetPhyAddrPtr(), k, out[k]);
    if (m.suspend) {
        sort_detail::MergeResult& res = sort_detail::last_merge();
        res.core = &c;
        res.launch = c.launch->serial;
        for (int i = 0; i < 4; ++i) res.taken[i] = taken[i];
    }
    ascendc_sim::BufferTiming* s[4] = {nullptr, nullptr, nullptr, nullptr};
    for (int i = 0; i < queues; ++i) s[i] = m.queues[i]->timing();
    uint64_t repeats = std::max<uint64_t>(1, (out.size() * bytes + ascendc_sim::kRepeatBytes - 1) /
                                                 ascendc_sim::kRepeatBytes);
    ascendc_sim::count_vector(c, OpId::MrgSort4, repeats, {s[0], s[1], s[2], s[3]}, dst.timing());
}

}  // namespace proposal_detail

template <typename T>
void ProposalConcat(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                    const int32_t modeNumber, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    proposal_detail::concat_or_extract(true, dst, src, repeatTime, modeNumber, loc);
}

template <typename T>
void ProposalExtract(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                     const int32_t modeNumber, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    proposal_detail::concat_or_extract(false, dst, src, repeatTime, modeNumber, loc);
}

template <typename T>
void RpSort16(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    proposal_detail::rp_sort16(dst, src, repeatTime, loc);
}

template <typename T>
void MrgSort4(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    proposal_detail::mrg_sort4(dst, src, params, loc);
}

}  // namespace AscendC
