// The host Matmul tiling (Matmul-Tiling类使用说明.md, Matmul-Tiling类构造函数.md, SetAType.md, SetBType.md, SetCType.md,
// SetBiasType.md, SetShape.md, SetOrgShape-31.md, SetSingleShape-30.md, SetFixSplit.md, EnableBias.md, SetBias-33.md,
// SetBufferSpace.md, SetTraverse.md, SetDim.md, GetSingleShape.md, GetCoreNum-80.md, GetBaseM/N/K.md, GetTiling.md;
// asc-devkit v8.5.0): matmul_tiling::MatmulApiTiling (one core) and MultiCoreMatmulTiling fill a TCubeTiling
// (sim/matmul_tiling_struct.h) for the kernel's Matmul; GetTiling returns -1 when no valid tiling exists.
//
// The numbers are ours (the pages document the constraints, not CANN's search), deterministic, and always valid for
// the buffers given (TCubeTiling结构体.md table 2, the checks sim/matmul.h repeats):
// - split over cores (MultiCoreMatmulTiling, SetDim(n)): singleCoreK = K; singleCoreM and singleCoreN are M and N cut
//   into mCores x nCores parts (mCores * nCores <= n) rounded up to 16, choosing the cut that uses the most cores and,
//   among those, the smallest singleCoreM + singleCoreN; usedCoreNum = ceil(M / singleCoreM) * ceil(N / singleCoreN).
//   SetSingleShape fixes them instead.
// - base block: baseM = min(singleCoreM rounded up to 16, 128), baseN = min(singleCoreN rounded up to 16, 256),
//   baseK = min(K rounded up to the K alignment, 128 bytes of the input type) (the page's recommended (128, 256, 64)
//   for half); SetFixSplit values win where given. The larger of baseM / baseN is halved (kept a multiple of 16)
//   until baseM * baseN * 4 fits L0C, baseK halved until the A and B blocks fit L0A / L0B. dbL0A / dbL0B are 2 when
//   two blocks fit, else 1; dbL0C 1.
// - L1: stepM = stepN = 1, stepKa = stepKb = as many baseK slices of K as fit, depthA1 = stepM * stepKa * 2 and
//   depthB1 = stepN * stepKb * 2 (double-buffered L1) when that fits, else without the factor 2.
// - K alignment: baseK a multiple of C0 (32 bytes of the input type) when A is not transposed and B is, else of 16;
//   baseM and baseN multiples of 16.
// - iterateOrder: 0 (M first) unless SetTraverse(MatrixTraverse::FIRSTN).
// - transLength (ours): the bytes of one [baseM, baseN] C block when C is in UB (VECIN / VECCALC / VECOUT), else 0.
// Buffer sizes: the PlatformAscendC's L1 / L0A / L0B / L0C (GetCoreMemSize) or a PlatformInfo's, limited by
// SetBufferSpace; without a platform (or one that reports none) the Atlas A2/A3 sizes of the Ascend910B2 platform
// config (targets/soc.py): L1 512 KiB, L0A / L0B 64 KiB, L0C 128 KiB, BT 1 KiB. The cube core count likewise (24).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "../../sim/matmul_tiling_struct.h"

namespace matmul_tiling {

enum class TPosition { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM, TSCM, MAX };
enum class CubeFormat { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
// ge::DataType's numbering (host/graph/types.h), so that op_host code may cast one into the other.
enum class DataType {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7,
    DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_BF16 = 27, DT_BFLOAT16 = 27,
    DT_INT4 = 29, DT_UNDEFINED = 28
};
enum class MatrixTraverse { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType { NORMAL = 0, HF32 = 1 };
enum class DequantType { SCALAR = 0, TENSOR = 1 };

// Matmul-Tiling类构造函数.md's PlatformInfo; socVersion takes any SocVersion enum (platform_ascendc's).
struct PlatformInfo {
    struct AnySocVersion {
        AnySocVersion() = default;
        template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
        AnySocVersion(E e) : value(static_cast<int32_t>(e)) {}
        int32_t value = 0;
    };
    AnySocVersion socVersion;
    uint64_t l1Size = 0;
    uint64_t l0CSize = 0;
    uint64_t ubSize = 0;
    uint64_t l0ASize = 0;
    uint64_t l0BSize = 0;
};

namespace detail {

struct Buffers {
    uint64_t l1 = 524288, l0a = 65536, l0b = 65536, l0c = 131072, ub = 196608, bt = 1024;
    uint32_t cube_cores = 24;
};

inline int32_t type_bytes(DataType t) {
    switch (t) {
        case DataType::DT_FLOAT: case DataType::DT_INT32: case DataType::DT_UINT32: return 4;
        case DataType::DT_FLOAT16: case DataType::DT_BF16: case DataType::DT_INT16: case DataType::DT_UINT16: return 2;
        case DataType::DT_INT8: case DataType::DT_UINT8: return 1;
        default: return 0;
    }
}

inline int32_t round_up(int32_t v, int32_t unit) { return unit <= 0 ? v : (v + unit - 1) / unit * unit; }
inline int32_t ceil_div(int32_t v, int32_t unit) { return unit <= 0 ? 0 : (v + unit - 1) / unit; }

// CoreMemType's first parameter type of a platform's GetCoreMemSize (platform_ascendc::CoreMemType), found from
// the member's signature so that this header needs no platform header; its values L0_A 0, L0_B 1, L0_C 2, L1 3, UB 5.
template <typename P, typename E>
E mem_type_of(void (P::*)(E, uint64_t&) const);

template <typename Platform>
uint64_t platform_mem(const Platform& p, int kind, uint64_t fallback) {
    using MemType = decltype(mem_type_of(&Platform::GetCoreMemSize));
    uint64_t size = 0;
    try {
        p.GetCoreMemSize(static_cast<MemType>(kind), size);
    } catch (...) {
        return fallback;
    }
    return size > 0 ? size : fallback;
}

}  // namespace detail

class MatmulApiTilingBase {
public:
    MatmulApiTilingBase() = default;
    template <typename Platform, typename = decltype(std::declval<const Platform&>().GetCoreNumAic())>
    explicit MatmulApiTilingBase(const Platform& ascendcPlatform) {
        buffers_.l0a = detail::platform_mem(ascendcPlatform, 0, buffers_.l0a);
        buffers_.l0b = detail::platform_mem(ascendcPlatform, 1, buffers_.l0b);
        buffers_.l0c = detail::platform_mem(ascendcPlatform, 2, buffers_.l0c);
        buffers_.l1 = detail::platform_mem(ascendcPlatform, 3, buffers_.l1);
        buffers_.ub = detail::platform_mem(ascendcPlatform, 5, buffers_.ub);
        uint32_t aic = ascendcPlatform.GetCoreNumAic();
        buffers_.cube_cores = aic > 0 ? aic : buffers_.cube_cores;
    }
    explicit MatmulApiTilingBase(const PlatformInfo& platform) {
        auto pick = [](uint64_t v, uint64_t d) { return v > 0 ? v : d; };
        buffers_.l1 = pick(platform.l1Size, buffers_.l1);
        buffers_.l0c = pick(platform.l0CSize, buffers_.l0c);
        buffers_.ub = pick(platform.ubSize, buffers_.ub);
        buffers_.l0a = pick(platform.l0ASize, buffers_.l0a);
        buffers_.l0b = pick(platform.l0BSize, buffers_.l0b);
    }
    virtual ~MatmulApiTilingBase() = default;

    int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        a_ = {pos, type, dataType, isTrans, true};
        return detail::type_bytes(dataType) > 0 ? 0 : -1;
    }
    int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        b_ = {pos, type, dataType, isTrans, true};
        return detail::type_bytes(dataType) > 0 ? 0 : -1;
    }
    int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType) {
        c_ = {pos, type, dataType, false, true};
        return detail::type_bytes(dataType) > 0 ? 0 : -1;
    }
    int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType) {
        bias_ = {pos, type, dataType, false, true};
        return detail::type_bytes(dataType) > 0 ? 0 : -1;
    }
    int32_t SetDequantType(DequantType) { return 0; }
    int32_t SetShape(int32_t m, int32_t n, int32_t k) {
        shape_ = {m, n, k};
        return 0;
    }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn) {
        return SetOrgShape(orgMIn, orgNIn, orgKIn, orgKIn);
    }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn) {
        if (orgMIn <= 0 || orgNIn <= 0 || orgKaIn <= 0 || orgKbIn <= 0) return -1;
        org_ = {orgMIn, orgNIn, orgKaIn, orgKbIn};
        return 0;
    }
    int32_t EnableBias(bool isBiasIn = false) {
        has_bias_ = isBiasIn;
        return 0;
    }
    int32_t SetBias(bool isBiasIn = false) { return EnableBias(isBiasIn); }
    int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1) {
        fixed_ = {baseMIn, baseNIn, baseKIn};
        return 0;
    }
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1) {
        limits_ = {l1Size, l0CSize, ubSize, btSize};
        return 0;
    }
    int32_t SetTraverse(MatrixTraverse traverse) {
        traverse_ = traverse;
        return 0;
    }
    int32_t SetMadType(MatrixMadType) { return 0; }
    int32_t SetSplitRange(int32_t = -1, int32_t = -1, int32_t = -1, int32_t = -1, int32_t = -1, int32_t = -1) {
        return 0;
    }
    int32_t SetDoubleBuffer(bool, bool, bool, bool, bool = true, bool = true) { return 0; }

    int32_t GetBaseM() const { return tiling_.baseM; }
    int32_t GetBaseN() const { return tiling_.baseN; }
    int32_t GetBaseK() const { return tiling_.baseK; }

    // -1 when no valid tiling exists (the reason: sim_error()), 0 when `tiling` is filled.
    int64_t GetTiling(TCubeTiling& tiling) {
        error_.clear();
        TCubeTiling t{};
        if (!plan(t)) return -1;
        tiling_ = t;
        tiling = t;
        return 0;
    }
    // Simulator only: why the last GetTiling returned -1.
    const std::string& sim_error() const { return error_; }

protected:
    struct Matrix {
        TPosition pos = TPosition::GM;
        CubeFormat format = CubeFormat::ND;
        DataType type = DataType::DT_FLOAT16;
        bool trans = false;
        bool set = false;
    };
    struct Shape3 {
        int32_t m = -1, n = -1, k = -1;
    };
    struct Org {
        int32_t m = 0, n = 0, ka = 0, kb = 0;
    };
    struct Limits {
        int32_t l1 = -1, l0c = -1, ub = -1, bt = -1;
    };

    bool refuse(const std::string& why) {
        error_ = why;
        return false;
    }

    // The single-core shape: MultiCoreMatmulTiling splits; the single-core tiling computes SetShape's.
    virtual bool single_shape(int32_t m, int32_t n, int32_t k, TCubeTiling& t) {
        t.singleCoreM = m, t.singleCoreN = n, t.singleCoreK = k;
        t.usedCoreNum = 1;
        return true;
    }

    uint64_t limit(int32_t asked, uint64_t capacity) const {
        return asked > 0 ? std::min<uint64_t>(uint64_t(asked), capacity) : capacity;
    }

    bool plan(TCubeTiling& t) {
        if (!a_.set || !b_.set || !c_.set) return refuse("SetAType, SetBType and SetCType must all be called");
        int32_t in_bytes = detail::type_bytes(a_.type);
        if (in_bytes == 0 || a_.type != b_.type) return refuse("A and B must have one supported data type");
        if (org_.m <= 0) {
            if (shape_.m <= 0 || shape_.n <= 0 || shape_.k <= 0) return refuse("SetOrgShape (or SetShape) first");
            org_ = {shape_.m, shape_.n, shape_.k, shape_.k};
        }
        int32_t m = shape_.m > 0 ? shape_.m : org_.m, n = shape_.n > 0 ? shape_.n : org_.n;
        int32_t k = shape_.k > 0 ? shape_.k : std::min(org_.ka, org_.kb);
        if (m > org_.m || n > org_.n || k > std::min(org_.ka, org_.kb))
            return refuse("SetShape's m, n, k exceed the original shape");
        t.M = org_.m, t.N = org_.n, t.Ka = org_.ka, t.Kb = org_.kb;
        if (!single_shape(m, n, k, t)) return false;
        return plan_blocks(t, in_bytes);
    }

    bool plan_blocks(TCubeTiling& t, int32_t in_bytes) {
        uint64_t l0c = limit(limits_.l0c, buffers_.l0c), l1 = limit(limits_.l1, buffers_.l1);
        int32_t k_align = (!a_.trans && b_.trans) ? 32 / in_bytes : 16;
        int32_t bm = fixed_.m > 0 ? fixed_.m : std::min(detail::round_up(t.singleCoreM, 16), 128);
        int32_t bn = fixed_.n > 0 ? fixed_.n : std::min(detail::round_up(t.singleCoreN, 16), 256);
        int32_t bk = fixed_.k > 0 ? fixed_.k : std::min(detail::round_up(t.singleCoreK, k_align), 128 / in_bytes);
        bk = std::max(detail::round_up(bk, k_align), k_align);
        while (uint64_t(bm) * bn * 4 > l0c && (bm > 16 || bn > 16) && fixed_.m <= 0 && fixed_.n <= 0) {
            if (bn >= bm) bn = std::max(16, detail::round_up(bn / 2, 16));
            else bm = std::max(16, detail::round_up(bm / 2, 16));
        }
        while ((uint64_t(bm) * bk * in_bytes > buffers_.l0a || uint64_t(bn) * bk * in_bytes > buffers_.l0b) &&
               bk > k_align && fixed_.k <= 0)
            bk = std::max(k_align, detail::round_up(bk / 2, k_align));
        if (bm % 16 != 0 || bn % 16 != 0 || bk % k_align != 0)
            return refuse("SetFixSplit: baseM and baseN must be multiples of 16 and baseK of " +
                          std::to_string(k_align));
        if (uint64_t(bm) * bn * 4 > l0c || uint64_t(bm) * bk * in_bytes > buffers_.l0a ||
            uint64_t(bn) * bk * in_bytes > buffers_.l0b)
            return refuse("the base block does not fit L0A / L0B / L0C");
        t.baseM = bm, t.baseN = bn, t.baseK = bk;
        t.dbL0A = uint64_t(bm) * bk * in_bytes * 2 <= buffers_.l0a ? 2 : 1;
        t.dbL0B = uint64_t(bn) * bk * in_bytes * 2 <= buffers_.l0b ? 2 : 1;
        t.dbL0C = 1;
        return plan_l1(t, in_bytes, l1);
    }

    bool plan_l1(TCubeTiling& t, int32_t in_bytes, uint64_t l1) {
        int32_t bias_bytes = has_bias_ ? std::max(detail::type_bytes(bias_.type), 1) : 0;
        uint64_t bias_l1 = uint64_t(t.baseN) * bias_bytes;
        uint64_t bt = limits_.bt > 0 ? uint64_t(limits_.bt) : buffers_.bt;
        if (has_bias_ && bt > 0 && bias_l1 > bt) return refuse("baseN * sizeof(bias) exceeds the bias table");
        uint64_t slice = uint64_t(t.baseM + t.baseN) * t.baseK * in_bytes;  // one baseK slice of A and of B
        int32_t k_steps = detail::ceil_div(t.singleCoreK, t.baseK);
        int32_t db = 2;
        int32_t steps = int32_t(std::min<uint64_t>(k_steps, (l1 - std::min(l1, bias_l1)) / (slice * db)));
        if (steps < 1) {
            db = 1;
            steps = int32_t(std::min<uint64_t>(k_steps, (l1 - std::min(l1, bias_l1)) / slice));
        }
        if (steps < 1) return refuse("one baseK slice of A and B does not fit L1");
        t.stepM = t.stepN = 1;
        t.stepKa = t.stepKb = steps;
        t.depthA1 = t.depthB1 = steps * db;
        t.isBias = has_bias_ ? 1 : 0;
        t.iterateOrder = traverse_ == MatrixTraverse::FIRSTN ? 1 : 0;
        bool c_in_ub = c_.pos == TPosition::VECIN || c_.pos == TPosition::VECCALC || c_.pos == TPosition::VECOUT;
        t.transLength = c_in_ub ? t.baseM * t.baseN * std::max(detail::type_bytes(c_.type), 1) : 0;
        return true;
    }

    detail::Buffers buffers_;
    Matrix a_, b_, c_, bias_;
    Shape3 shape_;
    Org org_;
    Shape3 fixed_;
    Limits limits_;
    bool has_bias_ = false;
    MatrixTraverse traverse_ = MatrixTraverse::NOSET;
    TCubeTiling tiling_{};
    std::string error_;
};

class MatmulApiTiling : public MatmulApiTilingBase {
public:
    using MatmulApiTilingBase::MatmulApiTilingBase;
};

class MultiCoreMatmulTiling : public MatmulApiTilingBase {
public:
    using MatmulApiTilingBase::MatmulApiTilingBase;

    int32_t SetDim(int32_t dim) {
        if (dim <= 0) return -1;
        dim_ = dim;
        return 0;
    }
    int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1) {
        single_ = {singleMIn, singleNIn, singleKIn};
        return 0;
    }
    int32_t SetSingleRange(int32_t = -1, int32_t = -1, int32_t = -1, int32_t = -1, int32_t = -1, int32_t = -1) {
        return 0;
    }
    int32_t SetAlignSplit(int32_t, int32_t, int32_t) { return 0; }
    int32_t GetSingleShape(int32_t& shapeM, int32_t& shapeN, int32_t& shapeK) {
        shapeM = tiling_.singleCoreM, shapeN = tiling_.singleCoreN, shapeK = tiling_.singleCoreK;
        return tiling_.singleCoreM > 0 ? 0 : -1;
    }
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim) {
        if (tiling_.singleCoreM <= 0) return -1;
        mDim = detail::ceil_div(m_total_, tiling_.singleCoreM);
        nDim = detail::ceil_div(n_total_, tiling_.singleCoreN);
        dim = mDim * nDim;
        return 0;
    }
    void EnableMultiCoreSplitK(bool flag) { split_k_ = flag; }
    void SetSplitK(bool flag) { split_k_ = flag; }

protected:
    bool single_shape(int32_t m, int32_t n, int32_t k, TCubeTiling& t) override {
        if (split_k_) return refuse("EnableMultiCoreSplitK is not simulated: K is not split over cores");
        m_total_ = m, n_total_ = n;
        int32_t dim = dim_ > 0 ? dim_ : int32_t(buffers_.cube_cores);
        int32_t sm = single_.m, sn = single_.n;
        if (sm <= 0 || sn <= 0) choose_split(m, n, dim, sm, sn);
        if (sm > m || sn > n) return refuse("SetSingleShape exceeds the shape");
        t.singleCoreM = sm, t.singleCoreN = sn;
        t.singleCoreK = single_.k > 0 ? single_.k : k;
        t.usedCoreNum = detail::ceil_div(m, sm) * detail::ceil_div(n, sn);
        if (t.usedCoreNum > dim) return refuse("SetSingleShape needs more cores than SetDim allows");
        return true;
    }

    // Most cores used, then the squarest single-core block (see the header comment).
    void choose_split(int32_t m, int32_t n, int32_t dim, int32_t& sm, int32_t& sn) const {
        int32_t best_used = 0, best_sum = 0;
        for (int32_t mc = 1; mc <= dim; ++mc) {
            int32_t nc = dim / mc;
            int32_t cm = std::min(m, detail::round_up(detail::ceil_div(m, mc), 16));
            int32_t cn = std::min(n, detail::round_up(detail::ceil_div(n, nc), 16));
            int32_t used = detail::ceil_div(m, cm) * detail::ceil_div(n, cn);
            if (used > best_used || (used == best_used && cm + cn < best_sum)) {
                best_used = used, best_sum = cm + cn;
                sm = cm, sn = cn;
            }
        }
    }

    int32_t dim_ = 0;
    Shape3 single_;
    int32_t m_total_ = 0, n_total_ = 0;
    bool split_k_ = false;
};

// Batched tiling is not simulated: the class exists so that op_host code compiles, and GetTiling refuses.
class BatchMatmulTiling : public MatmulApiTilingBase {
public:
    using MatmulApiTilingBase::MatmulApiTilingBase;
    int32_t SetBatchNum(int32_t) { return 0; }
    int32_t SetBatchInfoForNormal(int32_t, int32_t, int32_t, int32_t, int32_t) { return 0; }
    int32_t SetALayout(int32_t, int32_t, int32_t, int32_t, int32_t) { return 0; }
    int32_t SetBLayout(int32_t, int32_t, int32_t, int32_t, int32_t) { return 0; }
    int32_t SetCLayout(int32_t, int32_t, int32_t, int32_t, int32_t) { return 0; }
    int32_t GetCoreNum() const { return 1; }

protected:
    bool single_shape(int32_t, int32_t, int32_t, TCubeTiling&) override {
        return refuse("BatchMatmulTiling is not simulated");
    }
};

}  // namespace matmul_tiling
