// Mmad (Mmad.md): C (CO1, L0C) = A (A2, L0A) x B (B2, L0B) [+ C or bias], on the cube's M pipe.
//
// Layouts (Mmad.md "ZZ, ZN, NZ"; cube_copy.h): A's 16 x k0 fractals in row-major order, each row-major; B's
// k0 x 16 fractals in row-major order, each column-major; C's 16 x 16 fractals in column-major order (the columns of
// ceil(m / 16) fractals one after another), each row-major. m, n, k need not be multiples of the fractal: the
// fractals are whole in memory and what lies past m, n or k is ignored (Mmad.md's M=30, K=70, N=40 example).
// m = 1 reads A as one ND row (GEMV, Mmad.md constraints; MmadParams::disableGemv is Ascend 950's, ignored here).
// The initial C: 0 (cmatrixInitVal, the default); C itself (isBias, deprecated, or cmatrixInitVal = false with
// cmatrixSource = false); with the bias overload, a bias row in C2 (the bias table: bias[j] added to every row; in L1
// too, as the pages' examples pass it) or a whole matrix in CO1 laid out as C (Mmad.md: "会根据bias输入的位置来判断").
// dtypes (Mmad.md tables 4 and 5, Atlas A2/A3): int8 x int8 -> int32, half x half -> float, float x float -> float,
// bfloat16 x bfloat16 -> float; bias int32 for int8, float otherwise. int4b_t is not simulated. 310P: half and int8
// (assumption: the Mmad page lists no 310P table).
// Arithmetic: products of half or bfloat16 are exact in float; sums are float, in k order (assumption: the cube's
// adder tree order is not public); int8 sums are exact int32.
#pragma once
#include <vector>

#include "cube_operand.h"
#include "pipe.h"

namespace AscendC {

// Mmad.md table 3. Constructors as kernels call them: (m, n, k), (m, n, k, unitFlag, cmatrixSource, cmatrixInitVal)
// as in public cube kernels (`MmadParams(M, M, M, 0, false, true)`), and the 随路量化激活搬运.md example's
// `{m, n, k, isBias, fmOffset, enSsparse, enWinogradA, enWinogradB}`.
struct MmadParams {
    uint16_t m = 0;
    uint16_t n = 0;
    uint16_t k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;
    bool cmatrixInitVal = true;
    bool disableGemv = false;
    MmadParams() = default;
    MmadParams(uint16_t m_, uint16_t n_, uint16_t k_) : m(m_), n(n_), k(k_) {}
    MmadParams(uint16_t m_, uint16_t n_, uint16_t k_, uint8_t unit_flag, bool cmatrix_source, bool cmatrix_init_val)
        : m(m_), n(n_), k(k_), unitFlag(unit_flag), cmatrixSource(cmatrix_source), cmatrixInitVal(cmatrix_init_val) {}
    MmadParams(uint16_t m_, uint16_t n_, uint16_t k_, bool is_bias, int32_t fm_offset, bool en_ssparse,
               bool en_winograd_a, bool en_winograd_b)
        : m(m_), n(n_), k(k_), isBias(is_bias), fmOffset(fm_offset), enSsparse(en_ssparse),
          enWinogradA(en_winograd_a), enWinogradB(en_winograd_b) {}
};

namespace sim_detail {

using ascendc_sim::cube::kL0cFractal;

template <typename In>
using MmadAcc = std::conditional_t<std::is_same_v<In, int8_t>, int32_t, float>;

template <typename In, typename Out>
constexpr bool mmad_pair() {
    return (std::is_same_v<In, int8_t> && std::is_same_v<Out, int32_t>) ||
           (std::is_same_v<In, half> && std::is_same_v<Out, float>) ||
           (std::is_same_v<In, float> && std::is_same_v<Out, float>) ||
           (std::is_same_v<In, bfloat16_t> && std::is_same_v<Out, float>);
}

template <typename Dst, typename Fm, typename Filter>
void check_mmad_dtypes(const char* api, Loc loc) {
    using ascendc_sim::dtype_name;
    using ascendc_sim::dtype_of;
    bool on_310p = ascendc_sim::core(loc).soc().arch == 1;
    bool ok = std::is_same_v<Fm, Filter> && mmad_pair<Fm, Dst>();
    if (on_310p) ok = ok && (std::is_same_v<Fm, half> || std::is_same_v<Fm, int8_t>);
    if (!ok)
        fail(Diag::CubeDtype, loc,
             "%s: dst %s, fm %s, filter %s is not a combination the cube computes. Atlas A2/A3 (Mmad.md table 4): "
             "int8_t x int8_t -> int32_t, half x half -> float, float x float -> float, bfloat16_t x bfloat16_t -> "
             "float%s. Give CO1 the accumulation type (float, or int32_t for int8_t) and convert on the way out with "
             "Fixpipe's quantPre.",
             api, dtype_name(dtype_of<Dst>), dtype_name(dtype_of<Fm>), dtype_name(dtype_of<Filter>),
             on_310p ? " (on 310P only half and int8_t)" : "");
}

struct MmadShape {
    uint32_t m, n, k;
    uint32_t m_blocks, n_blocks, k_blocks;
    bool gemv;
};

// Where C starts from.
enum class MmadInit { Zero, Self, BiasRow, BiasMatrix };

// Scratch of the running thread: A as m x k and B as k x n row-major, C as m x n, in the accumulation type.
template <typename Acc>
struct MmadScratch {
    std::vector<Acc> a, b, c;
    static MmadScratch& get() {
        static thread_local MmadScratch scratch;
        return scratch;
    }
};

template <typename In, typename Acc>
void unpack_a(Acc* a, const In* l0a, const MmadShape& s) {
    constexpr uint32_t k0 = ascendc_sim::cube::k0<In>();
    if (s.gemv) {
        for (uint32_t kk = 0; kk < s.k; ++kk) a[kk] = static_cast<Acc>(l0a[kk]);
        return;
    }
    for (uint32_t i = 0; i < s.m; ++i) {
        const In* fractal_row = l0a + uint64_t(i / 16) * s.k_blocks * 16 * k0 + (i % 16) * k0;
        Acc* a_row = a + uint64_t(i) * s.k;
        for (uint32_t kk = 0; kk < s.k; ++kk) a_row[kk] = static_cast<Acc>(fractal_row[(kk / k0) * 16 * k0 + kk % k0]);
    }
}

template <typename In, typename Acc>
void unpack_b(Acc* b, const In* l0b, const MmadShape& s) {
    constexpr uint32_t k0 = ascendc_sim::cube::k0<In>();
    for (uint32_t kk = 0; kk < s.k; ++kk) {
        const In* fractals = l0b + uint64_t(kk / k0) * s.n_blocks * 16 * k0 + kk % k0;
        Acc* b_row = b + uint64_t(kk) * s.n;
        for (uint32_t j = 0; j < s.n; ++j) b_row[j] = static_cast<Acc>(fractals[(j / 16) * 16 * k0 + (j % 16) * k0]);
    }
}

inline uint64_t l0c_index(uint32_t i, uint32_t j, uint32_t m_blocks) {
    return (uint64_t(j / 16) * m_blocks + i / 16) * kL0cFractal + (i % 16) * 16 + j % 16;
}

template <typename Acc>
void init_c(Acc* c, const Acc* l0c, const Acc* bias, MmadInit init, const MmadShape& s) {
    for (uint32_t i = 0; i < s.m; ++i)
        for (uint32_t j = 0; j < s.n; ++j) {
            Acc v = 0;
            if (init == MmadInit::Self) v = l0c[l0c_index(i, j, s.m_blocks)];
            if (init == MmadInit::BiasMatrix) v = bias[l0c_index(i, j, s.m_blocks)];
            if (init == MmadInit::BiasRow) v = bias[j];
            c[uint64_t(i) * s.n + j] = v;
        }
}

// C += A x B over the dense copies: the inner loop runs along a row of B and of C, which the compiler vectorises.
template <typename Acc>
void multiply(Acc* __restrict c, const Acc* __restrict a, const Acc* __restrict b, const MmadShape& s) {
    for (uint32_t i = 0; i < s.m; ++i) {
        Acc* __restrict c_row = c + uint64_t(i) * s.n;
        for (uint32_t kk = 0; kk < s.k; ++kk) {
            Acc a_ik = a[uint64_t(i) * s.k + kk];
            const Acc* __restrict b_row = b + uint64_t(kk) * s.n;
            for (uint32_t j = 0; j < s.n; ++j) c_row[j] += a_ik * b_row[j];
        }
    }
}

// Writes C into L0C; starting afresh, the padding of the fractals becomes 0 (assumption: the hardware computes it
// from whatever pads A and B).
template <typename Acc>
void store_c(Acc* l0c, const Acc* c, bool fresh, const MmadShape& s) {
    if (fresh) std::fill(l0c, l0c + uint64_t(s.m_blocks) * s.n_blocks * kL0cFractal, Acc(0));
    for (uint32_t i = 0; i < s.m; ++i)
        for (uint32_t j = 0; j < s.n; ++j) l0c[l0c_index(i, j, s.m_blocks)] = c[uint64_t(i) * s.n + j];
}

template <typename Dst, typename Fm, typename Filter>
MmadShape check_mmad(const LocalTensor<Dst>& dst, const LocalTensor<Fm>& fm, const LocalTensor<Filter>& filter,
                     const MmadParams& p, const char* api, Loc loc) {
    check_mmad_dtypes<Dst, Fm, Filter>(api, loc);
    using ascendc_sim::cube::check_range;
    check_range(api, "m", p.m, 0, 4095, loc);
    check_range(api, "n", p.n, 0, 4095, loc);
    check_range(api, "k", p.k, 0, 4095, loc);
    constexpr uint32_t k0 = ascendc_sim::cube::k0<Fm>();
    // disableGemv turns GEMV off on Ascend 950 only (Mmad.md of CANN 9.0); Atlas A2/A3 always read m = 1 as ND.
    MmadShape s{p.m, p.n, p.k, (p.m + 15u) / 16u, (p.n + 15u) / 16u, (p.k + k0 - 1) / k0, p.m == 1};
    if (p.m == 0 || p.n == 0 || p.k == 0) return s;
    uint64_t a_bytes = s.gemv ? uint64_t(s.k) * sizeof(Fm) : uint64_t(s.m_blocks) * s.k_blocks * 512;
    ascendc_sim::cube::operand(fm, {TPosition::A2}, a_bytes, 512, api, "fm (A)", loc);
    ascendc_sim::cube::operand(filter, {TPosition::B2}, uint64_t(s.k_blocks) * s.n_blocks * 512, 512, api,
                               "filter (B)", loc);
    ascendc_sim::cube::operand(dst, {TPosition::CO1}, uint64_t(s.m_blocks) * s.n_blocks * kL0cFractal * sizeof(Dst),
                               kL0cFractal * sizeof(Dst), api, "dst (C)", loc);
    if (p.enSsparse || p.enWinogradA || p.enWinogradB)
        fail(Diag::UnsupportedApi, loc,
             "%s: enSsparse/enWinogradA/enWinogradB are reserved parameters (Mmad.md); leave them false.", api);
    return s;
}

template <typename Dst, typename Fm>
void run_mmad(const LocalTensor<Dst>& dst, const LocalTensor<Fm>& fm, const LocalTensor<Fm>& filter, const Dst* bias,
              MmadInit init, ascendc_sim::BufferTiming* bias_timing, const MmadShape& s, Loc loc) {
    using Acc = MmadAcc<Fm>;
    static_assert(std::is_same_v<Acc, Dst>, "Mmad accumulates in the dst type");
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    MmadScratch<Acc>& scratch = MmadScratch<Acc>::get();
    scratch.a.resize(uint64_t(s.m) * s.k);
    scratch.b.resize(uint64_t(s.k) * s.n);
    scratch.c.resize(uint64_t(s.m) * s.n);
    unpack_a(scratch.a.data(), fm.GetPhyAddrPtr(), s);
    unpack_b(scratch.b.data(), filter.GetPhyAddrPtr(), s);
    init_c(scratch.c.data(), dst.GetPhyAddrPtr(), bias, init, s);
    multiply(scratch.c.data(), scratch.a.data(), scratch.b.data(), s);
    store_c(dst.GetPhyAddrPtr(), scratch.c.data(), init != MmadInit::Self, s);
    ascendc_sim::BufferTiming* self = init == MmadInit::Self ? dst.timing() : nullptr;
    double cost = ascendc_sim::CostModel::mmad_ns(s.m_blocks, s.n_blocks, s.k_blocks, c.soc());
    ascendc_sim::schedule(c, ascendc_sim::kPipeM, cost, {fm.timing(), filter.timing(), bias_timing, self}, dst.timing());
}

}  // namespace sim_detail

template <typename T, typename U, typename S>
void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter, const MmadParams& params,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const char* api = "Mmad";
    ASCENDC_SIM_CUBE_API();
    sim_detail::MmadShape s = sim_detail::check_mmad(dst, fm, filter, params, api, loc);
    if (s.m == 0 || s.n == 0 || s.k == 0) return;  // Mmad.md: any of M, K, N 0: the instruction does not run
    if constexpr (sim_detail::mmad_pair<U, T>() && std::is_same_v<U, S>) {
        bool keep = params.isBias || !params.cmatrixInitVal;
        if (keep && params.cmatrixSource)
            ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                              "Mmad: cmatrixSource = true takes the initial C from the bias table, whose address only "
                              "the bias overload gives: call Mmad(dst, fm, filter, bias, params) with bias at C2.");
        sim_detail::MmadInit init = keep ? sim_detail::MmadInit::Self : sim_detail::MmadInit::Zero;
        sim_detail::run_mmad<T, U>(dst, fm, filter, nullptr, init, nullptr, s, loc);
    }
}

// The bias overload: the initial C is the bias row in C2 or the matrix in CO1 (its position decides).
template <typename T, typename U, typename S, typename V>
void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter, const LocalTensor<V>& bias,
          const MmadParams& params, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const char* api = "Mmad(bias)";
    ASCENDC_SIM_CUBE_API();
    sim_detail::MmadShape s = sim_detail::check_mmad(dst, fm, filter, params, api, loc);
    if (s.m == 0 || s.n == 0 || s.k == 0) return;
    if constexpr (!std::is_same_v<V, T>) {
        ascendc_sim::fail(ascendc_sim::Diag::CubeDtype, loc,
                          "Mmad(bias): the bias is %s but must be %s, the type of dst (Mmad.md table 5: int32_t for "
                          "int8_t inputs, float otherwise). Move a half bias into C2 with DataCopy, which converts it "
                          "to float.",
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<V>),
                          ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
    } else if constexpr (sim_detail::mmad_pair<U, T>() && std::is_same_v<U, S>) {
        // A bias in L1 (A1/B1/C1) is a row too: the 随路量化激活搬运.md and InitConstValue.md examples pass one.
        bool row = bias.GetPosition() != TPosition::CO1;
        uint64_t bytes = row ? uint64_t(s.n) * sizeof(V) : uint64_t(s.m_blocks) * s.n_blocks * 256 * sizeof(V);
        const V* data = ascendc_sim::cube::operand(
            bias, {TPosition::C2, TPosition::CO1, TPosition::A1, TPosition::B1, TPosition::C1}, bytes,
            bias.GetPosition() == TPosition::C2 ? 128 : bias.GetPosition() == TPosition::CO1 ? 1024 : 32, api, "bias",
            loc);
        sim_detail::MmadInit init = row ? sim_detail::MmadInit::BiasRow : sim_detail::MmadInit::BiasMatrix;
        sim_detail::run_mmad<T, U>(dst, fm, filter, data, init, bias.timing(), s, loc);
    }
}

}  // namespace AscendC
