// The high-level Matmul API (Matmul使用说明.md, Matmul模板参数.md, REGIST_MATMUL_OBJ.md, Init-29.md, SetTensorA.md,
// SetTensorB.md, SetBias.md, DisableBias.md, SetTail.md, SetOrgShape.md, SetSingleShape.md, Iterate.md, IterateAll.md,
// GetTensorC.md, SetWorkspace.md, End.md; asc-devkit v8.5.0): C = A * B + bias over the single-core shape of a
// TCubeTiling (sim/matmul_tiling_struct.h), in blocks of baseM x baseN.
//
// Where it runs: in the documented mixed model the vector core (AIV) calls the API and its cube core (AIC) does the
// work as a server. Here the calling core does the arithmetic itself, so REGIST_MATMUL_OBJ sends the AIC of a launch
// that also has vector cores (KERNEL_TYPE_MIX_AIC_1_1 / 1_2) out of the kernel; in AIC-only launches (or a
// MIX_AIC_1_0 one) the AIC computes. The cost lands on the calling core's cube pipes (MTE2, MTE1, M, FIX).
//
// Arithmetic: half / bfloat16_t / float inputs multiply in float and accumulate in float, k in order; int8_t
// accumulates in int32_t; a bias is added to the accumulator before C is rounded to its type (round to nearest
// even). Each Iterate computes one block over the whole singleCoreK.
//
// Blocks: Iterate walks the blocks of [singleCoreM, singleCoreN] (SetTail / SetSingleShape change them) M first
// for iterateOrder 0, N first for 1 (TCubeTiling结构体.md); the last block of a row or column is the tail. GetTensorC
// writes one block where it lies in C (C's row pitch: N of SetOrgShape or the tiling, orgKc when given, N rounded up
// to 32 bytes for ND_ALIGN) or, with enSequentialWrite, as a block of its own at the tensor's start. Assumption (the
// pages draw it, but do not give the pitch of a tail block): a sequential block is m rows of n elements in GM and m
// rows of n rounded up to 32 bytes in UB; in UB without enSequentialWrite C is [singleCoreM, singleCoreN] with rows
// rounded up to 32 bytes.
//
// Cost (CostModel's cube section, sim/cost_model.h): per block, MTE2 copies the A rows and B columns it needs from
// GM to L1 unless the previous block left them there (the A panel when only N moved, the B panel when only M moved;
// a matrix already in L1 (TSCM) costs nothing), MTE1 moves them to L0A/L0B baseK at a time, M runs the fractal
// multiplies, FIX writes the block out; each step waits for the one before, and the pipes overlap across blocks.
#pragma once
#include <type_traits>
#include <vector>

#include "matmul_operand.h"
#include "matmul_tiling_struct.h"
#include "pipe.h"
#include "sys_workspace.h"

namespace ascendc_sim {
namespace mm {

// ---- checks ------------------------------------------------------------------------------------------------------

template <typename T>
constexpr bool is_any_of_inputs() {
    return std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, bfloat16_t> ||
           std::is_same_v<T, int8_t>;
}

// Matmul使用说明.md table 2 (the A2/A3 rows the simulator computes; int8_t C and int8_t -> half need the
// quantization parameters, int4b_t is not simulated).
template <typename A, typename B, typename C, typename Bias>
inline void check_types(bool with_bias, Loc loc) {
    const char* a = dtype_name(dtype_of<A>);
    const char* c = dtype_name(dtype_of<C>);
    bool float_in = std::is_same_v<A, half> || std::is_same_v<A, float> || std::is_same_v<A, bfloat16_t>;
    bool ok_c = float_in ? (std::is_same_v<C, float> || (std::is_same_v<A, half> && std::is_same_v<C, half>) ||
                            (std::is_same_v<A, bfloat16_t> && std::is_same_v<C, bfloat16_t>))
                         : std::is_same_v<A, int8_t> && std::is_same_v<C, int32_t>;
    if (!std::is_same_v<A, B> || !is_any_of_inputs<A>() || !ok_c)
        fail(Diag::UnsupportedDtype, loc,
             "Matmul with A %s, B %s and C %s: the simulated combinations (Matmul使用说明.md table 2) are half, "
             "bfloat16_t or float A and B of one type giving float C (or C of the input type for half and "
             "bfloat16_t), and int8_t A and B giving int32_t C. Fix the MatmulType of C (quantized int8_t C and "
             "int8_t -> half dequantization are not simulated).",
             a, dtype_name(dtype_of<B>), c);
    bool ok_bias = float_in ? (std::is_same_v<Bias, float> || std::is_same_v<Bias, half>) : std::is_same_v<Bias, int32_t>;
    if (with_bias && !ok_bias)
        fail(Diag::UnsupportedDtype, loc,
             "Matmul with %s inputs and a %s bias: the bias is %s (Matmul使用说明.md table 2). Declare the bias "
             "MatmulType (the fourth template argument, which defaults to C's) with that type.",
             a, dtype_name(dtype_of<Bias>), float_in ? "float or half" : "int32_t");
    if (std::is_same_v<A, bfloat16_t> && core(loc).soc().arch == 1)
        fail(Diag::UnsupportedDtype, loc, "Matmul with bfloat16_t inputs on %s, which has no bfloat16_t. Use half.",
             core(loc).soc().name);
}

// baseK alignment (TCubeTiling结构体.md table 2): C0 when A is not transposed and B is, else 16. The transposes are
// set after Init (SetTensorA/B), so a B that may be transposed (its MatmulType's ISTRANS) lets baseK be a multiple of
// C0 when C0 is below 16 (float's 8).
inline void check_tiling(const TCubeTiling& t, uint32_t a_bytes, uint32_t bias_bytes, bool b_may_transpose,
                         Loc loc) {
    auto positive = [&](const char* name, int32_t v) {
        if (v <= 0)
            fail(Diag::BadArgument, loc,
                 "Matmul tiling: %s is %d; it must be greater than 0 (TCubeTiling结构体.md). Fill the TCubeTiling "
                 "with the host's MultiCoreMatmulTiling::GetTiling, or set every shape field.",
                 name, v);
    };
    positive("M", t.M), positive("N", t.N), positive("Ka", t.Ka), positive("Kb", t.Kb);
    positive("singleCoreM", t.singleCoreM), positive("singleCoreN", t.singleCoreN);
    positive("singleCoreK", t.singleCoreK), positive("baseM", t.baseM), positive("baseN", t.baseN);
    positive("baseK", t.baseK);
    auto multiple = [&](const char* name, int32_t v, uint32_t unit, const char* why) {
        if (v % int32_t(unit) != 0)
            fail(Diag::BadArgument, loc,
                 "Matmul tiling: %s is %d, not a multiple of %u (%s; TCubeTiling结构体.md table 2). Round it to a "
                 "multiple of %u, or take the tiling from the host's GetTiling.",
                 name, v, unit, why, unit);
    };
    multiple("baseM", t.baseM, 16, "a fractal is 16 rows");
    multiple("baseN", t.baseN, 16, "a fractal is 16 columns");
    uint32_t c0 = 32 / a_bytes;
    multiple("baseK", t.baseK, b_may_transpose ? std::min(c0, 16u) : 16u,
             b_may_transpose ? "16 elements, or 32 bytes of the input type with B transposed" : "16 elements");
    if (t.iterateOrder != 0 && t.iterateOrder != 1)
        fail(Diag::BadArgument, loc,
             "Matmul tiling: iterateOrder is %d; it is 0 (M first) or 1 (N first) (TCubeTiling结构体.md).",
             t.iterateOrder);
    auto fits = [&](const char* what, uint64_t bytes, uint32_t capacity, const char* fix) {
        if (bytes > capacity)
            fail(Diag::LocalMemoryOverflow, loc,
                 "Matmul tiling needs %llu bytes of %s but %s has %u (TCubeTiling结构体.md table 2). %s",
                 (unsigned long long)bytes, what, core(loc).soc().name, capacity, fix);
    };
    auto db = [](int32_t v) { return uint64_t(v > 1 ? v : 1); };
    const SimSocProfile& soc = core(loc).soc();
    fits("L0A (baseM * baseK * sizeof(A) * dbL0A)", uint64_t(t.baseM) * t.baseK * a_bytes * db(t.dbL0A),
         soc.l0a_bytes, "Make baseM or baseK smaller, or dbL0A 1.");
    fits("L0B (baseN * baseK * sizeof(B) * dbL0B)", uint64_t(t.baseN) * t.baseK * a_bytes * db(t.dbL0B),
         soc.l0b_bytes, "Make baseN or baseK smaller, or dbL0B 1.");
    fits("L0C (baseM * baseN * 4 * dbL0C)", uint64_t(t.baseM) * t.baseN * 4 * db(t.dbL0C), soc.l0c_bytes,
         "Make baseM or baseN smaller, or dbL0C 1.");
    uint64_t l1 = (uint64_t(t.baseM) * t.depthA1 + uint64_t(t.baseN) * t.depthB1) * t.baseK * a_bytes +
                  (t.isBias ? uint64_t(t.baseN) * bias_bytes : 0);
    fits("L1 ((baseM * depthA1 + baseN * depthB1) * baseK * sizeof(A) + the bias)", l1, soc.l1_bytes,
         "Make depthA1 / depthB1 (stepM, stepN, stepKa, stepKb) or the base block smaller.");
    if (t.isBias && soc.bt_bytes > 0)
        fits("BT, the bias table (baseN * sizeof(bias))", uint64_t(t.baseN) * bias_bytes, soc.bt_bytes,
             "Make baseN smaller.");
}

inline void check_single_shape(int32_t single, int32_t org, const char* name, const char* org_name, Loc loc) {
    if (single <= 0 || single > org)
        fail(Diag::BadArgument, loc,
             "Matmul: %s is %d but must be in 1..%s = %d (TCubeTiling结构体.md: singleCoreM <= M, singleCoreN <= N; "
             "singleCoreK = K). Set the tail core's shape with SetTail / SetSingleShape no larger than the matrix.",
             name, single, org_name, org);
}

// ---- cost ----------------------------------------------------------------------------------------------------------

inline double book(CoreState& c, int pipe, double cost_ns, double ready) {
    double start = std::max(c.pipe_free[pipe], ready);
    double end = start + cost_ns;
    c.pipe_free[pipe] = end;
    c.pipe_done[pipe] = std::max(c.pipe_done[pipe], end);
    c.report->pipe_busy_ns[pipe] += cost_ns;
    return end;
}

struct BlockShape {
    uint64_t m0, n0, m, n;  // offsets within the single-core matrix and extents
};

}  // namespace mm
}  // namespace ascendc_sim

namespace AscendC {

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<>, typename... MATMUL_POLICY>
class MatmulImpl {
public:
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    using Acc = std::conditional_t<std::is_same_v<SrcAT, int8_t>, int32_t, float>;

    // ---- set-up ----

    void Init(const TCubeTiling* cubeTiling, TPipe* tpipe = nullptr, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        ASCENDC_SIM_CUBE_API();
        (void)tpipe;
        ascendc_sim::core(loc);
        if (cubeTiling == nullptr)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Matmul::Init with a null TCubeTiling pointer. Pass &tilingData.cubeTilingData (the "
                              "TCubeTiling the host's GetTiling filled).");
        if constexpr (MM_CB::any)
            ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                              "Matmul with MatmulCallBackFunc copy callbacks is not simulated. Use the default "
                              "MatmulCallBackFunc<nullptr, nullptr, nullptr>.");
        if (MM_CFG.scheduleType == ScheduleType::OUTER_PRODUCT)
            ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                              "Matmul with ScheduleType::OUTER_PRODUCT (two blocks per GetTensorC) is not "
                              "simulated. Use the default INNER_PRODUCT.");
        tiling_ = *cubeTiling;
        ascendc_sim::mm::check_types<SrcAT, SrcBT, DstT, BiasT>(tiling_.isBias != 0, loc);
        ascendc_sim::mm::check_tiling(tiling_, sizeof(SrcAT), sizeof(BiasT), B_TYPE::isTrans, loc);
        org_ = {tiling_.M, tiling_.N, tiling_.Ka, tiling_.Kb, 0};
        single_ = {tiling_.singleCoreM, tiling_.singleCoreN, tiling_.singleCoreK};
        bias_on_ = tiling_.isBias != 0;
        a_ = {};
        b_ = {};
        bias_ = {};
        reset_iteration();
        initialized_ = true;
        ended_ = false;
    }

    void SetOrgShape(int orgM, int orgN, int orgK, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        SetOrgShape(orgM, orgN, orgK, orgK, 0, loc);
    }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0,
                     ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init("SetOrgShape", loc);
        if (orgM <= 0 || orgN <= 0 || orgKa <= 0 || orgKb <= 0 || orgKc < 0)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "SetOrgShape(%d, %d, %d, %d, %d): the shapes are element counts greater than 0 "
                              "(orgKc 0: C's N is B's).",
                              orgM, orgN, orgKa, orgKb, orgKc);
        org_ = {orgM, orgN, orgKa, orgKb, orgKc};
    }
    void SetSingleShape(int singleM, int singleN, int singleK, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init("SetSingleShape", loc);
        single_ = {singleM, singleN, singleK};
        reset_iteration();
    }
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init("SetTail", loc);
        single_ = {tailM > 0 ? tailM : single_.m, tailN > 0 ? tailN : single_.n, tailK > 0 ? tailK : single_.k};
        reset_iteration();
    }

    void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        set_global(a_, gm, isTransposeA, A_TYPE::isTrans, "SetTensorA", "A", loc);
    }
    void SetTensorA(const LocalTensor<SrcAT>& leftMatrix, bool isTransposeA = false,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        set_local(a_, leftMatrix, isTransposeA, A_TYPE::isTrans, "SetTensorA", "A", loc);
    }
    void SetTensorA(SrcAT aScalar, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        set_scalar(a_, aScalar, "SetTensorA", loc);
    }
    void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        set_global(b_, gm, isTransposeB, B_TYPE::isTrans, "SetTensorB", "B", loc);
    }
    void SetTensorB(const LocalTensor<SrcBT>& rightMatrix, bool isTransposeB = false,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        set_local(b_, rightMatrix, isTransposeB, B_TYPE::isTrans, "SetTensorB", "B", loc);
    }
    void SetTensorB(SrcBT bScalar, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        set_scalar(b_, bScalar, "SetTensorB", loc);
    }
    void SetBias(const GlobalTensor<BiasT>& biasGlobal, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_bias_enabled(loc);
        set_global(bias_, biasGlobal, false, false, "SetBias", "the bias", loc);
    }
    void SetBias(const LocalTensor<BiasT>& inputBias, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_bias_enabled(loc);
        set_local(bias_, inputBias, false, false, "SetBias", "the bias", loc);
    }
    void DisableBias(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init("DisableBias", loc);
        bias_on_ = false;
    }
    void ClearBias(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) { DisableBias(loc); }

    template <class T>
    void SetWorkspace(GlobalTensor<T>& addr, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init("SetWorkspace", loc);
        workspace_ = reinterpret_cast<uint8_t*>(addr.GetPhyAddr());
    }
    template <class T>
    void SetWorkspace(__gm__ const T* addr, int size, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init("SetWorkspace", loc);
        workspace_ = reinterpret_cast<uint8_t*>(const_cast<T*>(addr));
        (void)size;
    }
    // 310P's UB scratch for the API (SetLocalWorkspace.md): the simulator computes without it.
    void SetLocalWorkspace(const LocalTensor<uint8_t>&) {}
    void SetSelfDefineData(uint64_t) {}
    template <typename T>
    void SetUserDefInfo(T) {}
    void SetHF32(bool enableHF32 = false, int32_t transMode = 0, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        (void)transMode;
        if (enableHF32)
            ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                              "SetHF32(true): HF32 rounding of float inputs is not simulated. Leave it off.");
    }
    template <typename T>
    void SetQuantScalar(T, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                          "SetQuantScalar: quantized Matmul output is not simulated.");
    }
    template <typename T>
    void SetQuantVector(const GlobalTensor<T>&, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                          "SetQuantVector: quantized Matmul output is not simulated.");
    }

    // ---- computing ----

    template <bool sync = true>
    bool Iterate(bool enPartialSum = false, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        ASCENDC_SIM_CUBE_API();
        require_ready("Iterate", loc);
        if (!sync) return iterate_async(loc);
        if (next_block_ >= block_count()) {
            reset_iteration();
            return false;
        }
        if (enPartialSum && (single_.m != tiling_.baseM || single_.n != tiling_.baseN))
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Iterate(enPartialSum = true) with a single-core shape %d x %d and a base block %d x "
                              "%d: accumulating in L0C needs singleCoreM == baseM and singleCoreN == baseN "
                              "(Iterate.md).",
                              single_.m, single_.n, tiling_.baseM, tiling_.baseN);
        compute_block(next_block_++, enPartialSum && have_block_, current_, loc);
        have_block_ = true;
        fetched_ = false;
        return true;
    }
    // The user-managed CO1 form (Iterate.md, Matmul使用说明.md step 4): the block lands in the kernel's CO1 tensor in
    // L0C's layout (16 x 16 fractals, a column of them every round_up(m, 16) rows: what Fixpipe's srcStride counts),
    // written by the M pipe, so the kernel hands it to FIX through its CO1 queue.
    template <bool sync = true, typename T>
    bool Iterate(bool enPartialSum, const LocalTensor<T>& localCmatrix,
                 ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        ASCENDC_SIM_CUBE_API();
        if (C_TYPE::pos != TPosition::CO1 || C_TYPE::format != CubeFormat::NZ || !std::is_same_v<T, Acc> ||
            !std::is_same_v<DstT, Acc>)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Iterate(enPartialSum, CO1 tensor) needs C declared MatmulType<TPosition::CO1, "
                              "CubeFormat::NZ, %s> and a LocalTensor<%s> (Iterate.md).",
                              ascendc_sim::dtype_name(ascendc_sim::dtype_of<Acc>),
                              ascendc_sim::dtype_name(ascendc_sim::dtype_of<Acc>));
        require_ready("Iterate", loc);
        if (next_block_ >= block_count()) {
            reset_iteration();
            return false;
        }
        compute_block(next_block_++, false, current_, loc);
        write_l0c(current_, localCmatrix, enPartialSum, loc);
        return true;
    }

    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    bool waitIterateAll = false, bool fakeMsg = false,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        ASCENDC_SIM_CUBE_API();
        (void)waitIterateAll;
        require_ready("IterateAll", loc);
        if (fakeMsg) return;
        sync_out_ = sync;
        check_atomic(enAtomic, loc);
        Block block;
        for (uint64_t i = 0; i < block_count(); ++i) {
            compute_block(i, false, block, loc);
            write_global(block, gm, enAtomic, enSequentialWrite, "IterateAll", loc);
        }
        reset_iteration();
    }
    template <bool sync = true>
    void IterateAll(const LocalTensor<DstT>& ubCmatrix, uint8_t enAtomic = 0,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        ASCENDC_SIM_CUBE_API();
        require_ready("IterateAll", loc);
        check_atomic(enAtomic, loc);
        sync_out_ = sync;
        Block block;
        for (uint64_t i = 0; i < block_count(); ++i) {
            compute_block(i, false, block, loc);
            write_local(block, ubCmatrix, enAtomic, false, "IterateAll", loc);
        }
        reset_iteration();
    }
    void WaitIterateAll() {}

    template <bool sync = true, bool doPad = false>
    void GetTensorC(const LocalTensor<DstT>& co2Local, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    uint32_t height = 0, uint32_t width = 0, uint32_t srcGap = 0, uint32_t dstGap = 0,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        (void)height, (void)width, (void)srcGap, (void)dstGap;
        check_atomic(enAtomic, loc);
        write_local(take_block<sync>("GetTensorC", loc), co2Local, enAtomic, enSequentialWrite, "GetTensorC", loc);
    }
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        check_atomic(enAtomic, loc);
        write_global(take_block<sync>("GetTensorC", loc), gm, enAtomic, enSequentialWrite, "GetTensorC", loc);
    }
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, const LocalTensor<DstT>& co2Local, uint8_t enAtomic = 0,
                    bool enSequentialWrite = false, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        check_atomic(enAtomic, loc);
        const Block& block = take_block<sync>("GetTensorC", loc);
        write_global(block, gm, enAtomic, enSequentialWrite, "GetTensorC", loc);
        write_local(block, co2Local, enAtomic, enSequentialWrite, "GetTensorC", loc);
    }
    // The asynchronous form that hands out the block in the workspace (SetWorkspace): [baseM, baseN] blocks one after
    // another, in the order Iterate<false> computed them (assumption: the page's example reads block i at
    // i * baseM * baseN).
    template <bool sync = true>
    GlobalTensor<DstT> GetTensorC(uint8_t enAtomic = 0, bool enSequentialWrite = false,
                                  ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        (void)enSequentialWrite;
        check_atomic(enAtomic, loc);
        uint64_t index = async_taken_;
        const Block& block = take_block<sync>("GetTensorC", loc);
        GlobalTensor<DstT> out;
        out.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(workspace_) + index * block_elements(),
                            block_elements());
        write_global(block, out, enAtomic, true, "GetTensorC", loc);
        return out;
    }

    void End(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init("End", loc);
        ended_ = true;
        end_loc_ = loc;
    }

private:
    struct Shape4 {
        int32_t m, n, ka, kb, kc;
    };
    struct Shape3 {
        int32_t m, n, k;
    };
    struct Block {
        ascendc_sim::mm::BlockShape shape{};
        std::vector<Acc> values;  // m x n, row-major
        double ready = 0.0;       // when the cube has it in L0C
    };

    // ---- state checks ----

    void require_init(const char* api, ascendc_sim::Loc loc) const {
        ascendc_sim::core(loc);
        if (!initialized_)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Matmul::%s before the object was initialised. Call REGIST_MATMUL_OBJ(&pipe, "
                              "GetSysWorkSpacePtr(), mm, &tiling) (or mm.Init(&tiling)) first.",
                              api);
    }
    void require_ready(const char* api, ascendc_sim::Loc loc) {
        require_init(api, loc);
        if (ended_)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Matmul::%s after End() (line %d). End releases the object's resources; call it "
                              "after the last Iterate/IterateAll, or Init the object again.",
                              api, end_loc_.line);
        if (!a_.set() || !b_.set())
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Matmul::%s without %s. Call SetTensorA and SetTensorB (and SetBias when the tiling "
                              "has isBias) before computing.",
                              api, !a_.set() ? "SetTensorA" : "SetTensorB");
        if (bias_on_ && !bias_.set())
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Matmul::%s: the tiling has isBias = 1 but no SetBias was called. Call SetBias, or "
                              "DisableBias() to compute without one.",
                              api);
        ascendc_sim::mm::check_single_shape(single_.m, org_.m, "singleCoreM", "M", loc);
        ascendc_sim::mm::check_single_shape(single_.n, org_.n, "singleCoreN", "N", loc);
        ascendc_sim::mm::check_single_shape(single_.k, std::min(org_.ka, org_.kb), "singleCoreK", "K", loc);
    }
    void require_bias_enabled(ascendc_sim::Loc loc) {
        require_init("SetBias", loc);
        if (tiling_.isBias == 0)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "SetBias with a tiling whose isBias is 0: the bias is used only when the tiling has "
                              "isBias = 1 (SetBias.md). Call EnableBias(true) on the host tiling.");
        bias_on_ = true;
    }
    static void check_transpose(bool requested, bool allowed, const char* api, ascendc_sim::Loc loc) {
        if (requested && !allowed)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "%s(..., true) on a matrix whose MatmulType has ISTRANS = false: the page says the "
                              "result is then wrong (SetTensorA.md / SetTensorB.md). Declare the MatmulType with "
                              "its fourth argument true (and SetAType/SetBType(..., true) on the host).",
                              api);
    }
    void check_atomic(uint8_t enAtomic, ascendc_sim::Loc loc) const {
        if (enAtomic > 3)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "enAtomic is %u: 0 none, 1 add, 2 max, 3 min (GetTensorC.md).", enAtomic);
    }

    // ---- operands ----

    template <typename T>
    void set_global(ascendc_sim::mm::Operand<T>& op, const GlobalTensor<T>& gm, bool trans, bool allowed,
                    const char* api, const char* role, ascendc_sim::Loc loc) {
        require_init(api, loc);
        check_transpose(trans, allowed, api, loc);
        if (gm.GetPhyAddr() == nullptr)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "%s: %s is a GlobalTensor with no buffer. SetGlobalBuffer it first.", api, role);
        op = {};
        op.kind = ascendc_sim::mm::Operand<T>::Gm;
        op.address = gm.GetPhyAddr();
        op.home = gm.sim_home();
        op.trans = trans;
    }
    template <typename T>
    void set_local(ascendc_sim::mm::Operand<T>& op, const LocalTensor<T>& t, bool trans, bool allowed,
                   const char* api, const char* role, ascendc_sim::Loc loc) {
        require_init(api, loc);
        check_transpose(trans, allowed, api, loc);
        if (t.GetPhyAddrPtr() == nullptr)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "%s: %s is an empty LocalTensor (never allocated).", api, role);
        op = {};
        op.kind = ascendc_sim::mm::Operand<T>::Local;
        op.address = t.GetPhyAddrPtr();
        op.local_elements = t.GetSize();
        op.timing = t.timing();
        TPosition p = t.GetPosition();
        op.in_l1 = p == TPosition::TSCM || p == TPosition::A1 || p == TPosition::B1 || p == TPosition::C1;
        op.trans = trans;
    }
    template <typename T>
    void set_scalar(ascendc_sim::mm::Operand<T>& op, T value, const char* api, ascendc_sim::Loc loc) {
        require_init(api, loc);
        op = {};
        op.kind = ascendc_sim::mm::Operand<T>::Scalar;
        op.scalar = value;
    }

    // How A, B and C are stored: GM matrices with the original shape, local ones with the single-core shape
    // (assumption: the pages ask a local matrix to hold singleM * singleK elements).
    ascendc_sim::mm::Storage storage_a() const {
        bool gm = a_.kind == ascendc_sim::mm::Operand<SrcAT>::Gm;
        uint64_t m = gm ? org_.m : single_.m, k = gm ? org_.ka : single_.k;
        return storage(A_TYPE::format, a_.trans ? k : m, a_.trans ? m : k, ascendc_sim::mm::c0_of<SrcAT>());
    }
    ascendc_sim::mm::Storage storage_b() const {
        bool gm = b_.kind == ascendc_sim::mm::Operand<SrcBT>::Gm;
        uint64_t k = gm ? org_.kb : single_.k, n = gm ? org_.n : single_.n;
        return storage(B_TYPE::format, b_.trans ? n : k, b_.trans ? k : n, ascendc_sim::mm::c0_of<SrcBT>());
    }
    static ascendc_sim::mm::Storage storage(CubeFormat format, uint64_t rows, uint64_t cols, uint32_t c0) {
        return {format == CubeFormat::NZ ? CubeFormat::NZ : CubeFormat::ND, rows, cols, c0};
    }
    static constexpr uint32_t c_c0() { return sizeof(DstT) == 1 ? 32u : 16u; }
    // C in GM: [M, N] (N: orgKc when set); sequential blocks [m, n] of their own.
    ascendc_sim::mm::Storage storage_c_global(const ascendc_sim::mm::BlockShape& s, bool sequential) const {
        if (sequential) return storage(C_TYPE::format, s.m, s.n, c_c0());
        uint64_t n = org_.kc > 0 ? org_.kc : org_.n;
        if (C_TYPE::format == CubeFormat::ND_ALIGN) n = ascendc_sim::mm::round_up(n, 32 / sizeof(DstT));
        return storage(C_TYPE::format, org_.m, n, c_c0());
    }
    ascendc_sim::mm::Storage storage_c_local(const ascendc_sim::mm::BlockShape& s, bool sequential) const {
        uint64_t rows = sequential ? s.m : single_.m, cols = sequential ? s.n : single_.n;
        return storage(C_TYPE::format, rows, ascendc_sim::mm::round_up(cols, 32 / sizeof(DstT)), c_c0());
    }

    // ---- blocks ----

    uint64_t m_blocks() const { return ascendc_sim::mm::ceil_div(single_.m, tiling_.baseM); }
    uint64_t n_blocks() const { return ascendc_sim::mm::ceil_div(single_.n, tiling_.baseN); }
    uint64_t block_count() const { return m_blocks() * n_blocks(); }
    uint64_t block_elements() const { return uint64_t(tiling_.baseM) * tiling_.baseN; }

    ascendc_sim::mm::BlockShape block_shape(uint64_t index) const {
        bool m_first = tiling_.iterateOrder == 0;
        uint64_t mi = m_first ? index % m_blocks() : index / n_blocks();
        uint64_t ni = m_first ? index / m_blocks() : index % n_blocks();
        uint64_t m0 = mi * tiling_.baseM, n0 = ni * tiling_.baseN;
        return {m0, n0, std::min<uint64_t>(tiling_.baseM, single_.m - m0), std::min<uint64_t>(tiling_.baseN, single_.n - n0)};
    }

    void reset_iteration() {
        next_block_ = 0;
        have_block_ = false;
        fetched_ = true;
        async_.clear();
        async_taken_ = 0;
        loaded_a_ = loaded_b_ = UINT64_MAX;
    }

    // One block of C: the A rows and B columns over all of singleCoreK, times each other, plus the bias.
    void compute_block(uint64_t index, bool accumulate, Block& out, ascendc_sim::Loc loc) {
        using namespace ascendc_sim::mm;
        const char* api = "Matmul::Iterate";
        BlockShape s = block_shape(index);
        uint64_t k = uint64_t(single_.k);
        std::vector<Acc>& a = scratch_a_;
        std::vector<Acc>& b = scratch_b_;
        gather<Acc>(a_, storage_a(), s.m0, s.m, 0, k, a, api, "A", loc);
        gather<Acc>(b_, storage_b(), 0, k, s.n0, s.n, b, api, "B", loc);
        if (!accumulate) out.values.assign(s.m * s.n, Acc(0));
        if (bias_on_ && !accumulate) add_bias(s, out.values, api, loc);
        multiply(a.data(), b.data(), out.values.data(), s.m, s.n, k);
        out.shape = s;
        out.ready = charge_block(s, k, loc);
    }

    void add_bias(const ascendc_sim::mm::BlockShape& s, std::vector<Acc>& c, const char* api, ascendc_sim::Loc loc) {
        ascendc_sim::mm::Storage row{CubeFormat::ND, 1, uint64_t(single_.n), 16};
        std::vector<Acc> bias;
        ascendc_sim::mm::gather<Acc>(bias_, row, 0, 1, s.n0, s.n, bias, api, "the bias", loc);
        for (uint64_t i = 0; i < s.m; ++i)
            for (uint64_t j = 0; j < s.n; ++j) c[i * s.n + j] = bias[j];
    }

    static void multiply(const Acc* a, const Acc* b, Acc* c, uint64_t m, uint64_t n, uint64_t k) {
        for (uint64_t i = 0; i < m; ++i) {
            Acc* row = c + i * n;
            for (uint64_t p = 0; p < k; ++p) {
                Acc x = a[i * k + p];
                const Acc* brow = b + p * n;
                for (uint64_t j = 0; j < n; ++j) row[j] += x * brow[j];
            }
        }
    }

    // The cube pipes' time for one block (see the header comment); returns when the block is in L0C.
    double charge_block(const ascendc_sim::mm::BlockShape& s, uint64_t k, ascendc_sim::Loc loc) {
        using ascendc_sim::CostModel;
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        const SimSocProfile& soc = c.soc();
        uint64_t a_panel = s.m * k * sizeof(SrcAT), b_panel = k * s.n * sizeof(SrcBT);
        double ready = std::max(ready_of(a_), ready_of(b_));
        double loaded = ready;
        auto load = [&](uint64_t panel, uint64_t key, uint64_t& cached, bool in_l1, bool scalar) {
            if (key == cached || in_l1 || scalar) return;
            cached = key;
            loaded = std::max(loaded, ascendc_sim::mm::book(c, ascendc_sim::kPipeMte2,
                                                            CostModel::gm_copy_ns(panel, false, soc), ready) +
                                          CostModel::gm_read_latency_ns(soc));
            c.report->gm_to_ub_bytes += panel;
        };
        load(a_panel, s.m0, loaded_a_, a_.in_l1, a_.kind == ascendc_sim::mm::Operand<SrcAT>::Scalar);
        load(b_panel, s.n0, loaded_b_, b_.in_l1, b_.kind == ascendc_sim::mm::Operand<SrcBT>::Scalar);
        double in_l0c = std::max(loaded, l0c_free_);
        for (uint64_t k0 = 0; k0 < k; k0 += uint64_t(tiling_.baseK)) {
            uint64_t kc = std::min<uint64_t>(tiling_.baseK, k - k0);
            double l0 = ascendc_sim::mm::book(c, ascendc_sim::kPipeMte1,
                                              CostModel::mte1_ns(s.m * kc * sizeof(SrcAT), soc) +
                                                  CostModel::mte1_ns(kc * s.n * sizeof(SrcBT), soc),
                                              loaded);
            double mmad = CostModel::mmad_ns(ascendc_sim::mm::ceil_div(s.m, 16), ascendc_sim::mm::ceil_div(s.n, 16),
                                             ascendc_sim::mm::ceil_div(kc, ascendc_sim::mm::c0_of<SrcAT>()), soc);
            in_l0c = ascendc_sim::mm::book(c, ascendc_sim::kPipeM, mmad, std::max(l0, in_l0c));
        }
        return in_l0c;
    }

    template <typename T>
    static double ready_of(const ascendc_sim::mm::Operand<T>& op) {
        return op.timing != nullptr ? op.timing->write_end : 0.0;
    }

    // FIX moves a block out of L0C; a synchronous call waits for it on the scalar pipe (the AIV waits for the
    // cube's answer).
    double charge_out(const Block& block, bool sync, ascendc_sim::BufferTiming* dest, ascendc_sim::Loc loc) {
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        uint64_t bytes = block.shape.m * block.shape.n * sizeof(DstT);
        double ready = block.ready;
        if (dest != nullptr) ready = std::max({ready, dest->read_end, dest->write_end});
        double done = ascendc_sim::mm::book(c, ascendc_sim::kPipeFix, ascendc_sim::CostModel::fixpipe_ns(bytes, c.soc()),
                                            ready);
        l0c_free_ = tiling_.dbL0C > 1 ? block.ready : done;
        if (sync) c.pipe_free[ascendc_sim::kPipeS] = std::max(c.pipe_free[ascendc_sim::kPipeS], done);
        if (dest != nullptr) {
            dest->write_end = done;
            dest->synced();  // the API waits for its own copy before it returns the tensor
        }
        return done;
    }

    template <typename T>
    void write_l0c(const Block& block, const LocalTensor<T>& t, bool accumulate, ascendc_sim::Loc loc) {
        const ascendc_sim::mm::BlockShape& s = block.shape;
        uint64_t m16 = ascendc_sim::mm::round_up(s.m, 16), n16 = ascendc_sim::mm::round_up(s.n, 16);
        if (t.GetPhyAddrPtr() == nullptr || m16 * n16 > t.GetSize())
            ascendc_sim::fail(ascendc_sim::Diag::LocalOverrun, loc,
                              "Iterate into a CO1 tensor of %u elements: the %llu x %llu block takes %llu in L0C's "
                              "16 x 16 fractals. Allocate at least baseM * baseN elements of CO1.",
                              t.GetSize(), (unsigned long long)s.m, (unsigned long long)s.n,
                              (unsigned long long)(m16 * n16));
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        ascendc_sim::note_write(c, t.timing(), ascendc_sim::kPipeM);
        T* l0c = t.GetPhyAddrPtr();
        if (!accumulate) std::fill(l0c, l0c + m16 * n16, T(0));
        for (uint64_t i = 0; i < s.m; ++i)
            for (uint64_t j = 0; j < s.n; ++j) {
                T& slot = l0c[(j / 16) * m16 * 16 + i * 16 + j % 16];
                slot = accumulate ? T(slot + block.values[i * s.n + j]) : T(block.values[i * s.n + j]);
            }
        if (t.timing() != nullptr) t.timing()->write_end = std::max(t.timing()->write_end, block.ready);
    }

    // ---- handing blocks out ----

    bool iterate_async(ascendc_sim::Loc loc) {
        if (!async_.empty() && async_taken_ < async_.size()) return true;
        if (async_taken_ > 0) {
            reset_iteration();
            return false;
        }
        async_.resize(block_count());
        for (uint64_t i = 0; i < block_count(); ++i) compute_block(i, false, async_[i], loc);
        return true;
    }

    template <bool sync>
    const Block& take_block(const char* api, ascendc_sim::Loc loc) {
        require_init(api, loc);
        if (sync) {
            if (!have_block_ || fetched_)
                ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                                  "Matmul::%s with no block computed since the last one was taken. Call "
                                  "GetTensorC once after each Iterate() that returned true (while "
                                  "(mm.Iterate()) { mm.GetTensorC(...); }).",
                                  api);
            fetched_ = true;
            sync_out_ = true;
            return current_;
        }
        if (async_taken_ >= async_.size())
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Matmul::%s<false> with no block left: Iterate<false>() computed %zu block(s) and all "
                              "were taken. Take singleCoreM / baseM * singleCoreN / baseN blocks (rounded up) per "
                              "Iterate<false>().",
                              api, async_.size());
        if (workspace_ == nullptr)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "Matmul::%s<false> without SetWorkspace: the asynchronous mode keeps its blocks in a "
                              "GM workspace (GetTensorC.md). Call mm.SetWorkspace(workspaceGm) before "
                              "Iterate<false>.",
                              api);
        sync_out_ = false;
        return async_[async_taken_++];
    }

    void write_global(const Block& block, const GlobalTensor<DstT>& gm, uint8_t enAtomic, bool sequential,
                      const char* api, ascendc_sim::Loc loc) {
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        const ascendc_sim::mm::BlockShape& s = block.shape;
        ascendc_sim::mm::Storage st = storage_c_global(s, sequential);
        uint64_t r0 = sequential ? 0 : s.m0, c0 = sequential ? 0 : s.n0;
        bool nz = st.format == CubeFormat::NZ;
        std::unique_lock<std::mutex> lock(c.launch->atomic_mutex, std::defer_lock);
        if (enAtomic != 0) lock.lock();
        // ND: row by row (checked and recorded on its own: other cores' bytes lie between); NZ: one span over the
        // fractals the block touches.
        uint64_t lo = st.offset(r0, c0), hi = st.offset(r0 + s.m - 1, c0 + s.n - 1);
        DstT* span = nz ? reinterpret_cast<DstT*>(ascendc_sim::check_gm(gm.GetPhyAddr() + lo, (hi - lo + 1) * sizeof(DstT),
                                                                         api, loc, gm.sim_home()))
                        : nullptr;
        for (uint64_t i = 0; i < s.m; ++i) {
            uint64_t row = st.offset(r0 + i, c0);
            DstT* base = nz ? span - lo
                            : reinterpret_cast<DstT*>(ascendc_sim::check_gm(gm.GetPhyAddr() + row, s.n * sizeof(DstT),
                                                                            api, loc, gm.sim_home())) - row;
            for (uint64_t j = 0; j < s.n; ++j) {
                DstT& slot = base[st.offset(r0 + i, c0 + j)];
                slot = ascendc_sim::mm::combine<DstT>(slot, ascendc_sim::mm::from_acc<DstT>(block.values[i * s.n + j]),
                                                      enAtomic);
            }
            if (enAtomic == 0 && !nz) ascendc_sim::record_gm_write(c, gm.GetPhyAddr() + row, s.n * sizeof(DstT), loc);
        }
        if (enAtomic == 0 && nz) ascendc_sim::record_gm_write(c, gm.GetPhyAddr() + lo, (hi - lo + 1) * sizeof(DstT), loc);
        c.report->ub_to_gm_bytes += s.m * s.n * sizeof(DstT);
        charge_out(block, sync_out_, nullptr, loc);
    }

    void write_local(const Block& block, const LocalTensor<DstT>& t, uint8_t enAtomic, bool sequential,
                     const char* api, ascendc_sim::Loc loc) {
        const ascendc_sim::mm::BlockShape& s = block.shape;
        ascendc_sim::mm::Storage st = storage_c_local(s, sequential);
        uint64_t r0 = sequential ? 0 : s.m0, c0 = sequential ? 0 : s.n0;
        uint64_t hi = st.offset(r0 + s.m - 1, c0 + s.n - 1);
        if (t.GetPhyAddrPtr() == nullptr)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc, "%s: C is an empty LocalTensor (never allocated).",
                              api);
        if (hi >= t.GetSize())
            ascendc_sim::fail(ascendc_sim::Diag::LocalOverrun, loc,
                              "%s writes C up to element %llu of the LocalTensor but it has %u elements (a %s%llu x "
                              "%llu block, rows rounded up to 32 bytes). Give the buffer at least baseM * baseN "
                              "elements (GetTensorC.md) or the whole [singleCoreM, singleCoreN] without "
                              "enSequentialWrite.",
                              api, (unsigned long long)hi, t.GetSize(), sequential ? "" : "non-sequential ",
                              (unsigned long long)s.m, (unsigned long long)s.n);
        DstT* base = t.GetPhyAddrPtr();
        for (uint64_t i = 0; i < s.m; ++i)
            for (uint64_t j = 0; j < s.n; ++j) {
                DstT& slot = base[st.offset(r0 + i, c0 + j)];
                slot = ascendc_sim::mm::combine<DstT>(slot, ascendc_sim::mm::from_acc<DstT>(block.values[i * s.n + j]),
                                                      enAtomic);
            }
        charge_out(block, sync_out_, t.timing(), loc);
    }

    TCubeTiling tiling_{};
    Shape4 org_{};
    Shape3 single_{};
    bool initialized_ = false;
    bool ended_ = false;
    bool bias_on_ = false;
    ascendc_sim::Loc end_loc_;
    ascendc_sim::mm::Operand<SrcAT> a_;
    ascendc_sim::mm::Operand<SrcBT> b_;
    ascendc_sim::mm::Operand<BiasT> bias_;
    uint8_t* workspace_ = nullptr;
    uint64_t next_block_ = 0;
    bool have_block_ = false;
    bool fetched_ = true;
    bool sync_out_ = true;
    Block current_;
    std::vector<Block> async_;
    uint64_t async_taken_ = 0;
    uint64_t loaded_a_ = UINT64_MAX;
    uint64_t loaded_b_ = UINT64_MAX;
    double l0c_free_ = 0.0;
    std::vector<Acc> scratch_a_;
    std::vector<Acc> scratch_b_;
};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<>, typename... MATMUL_POLICY>
using Matmul = MatmulImpl<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB, MATMUL_POLICY...>;

}  // namespace AscendC

namespace ascendc_sim {
namespace mm {

// On the AIC of a launch with vector cores the documented AIC serves the AIV's Matmul calls; here the AIV computes,
// so the AIC leaves the kernel at REGIST_MATMUL_OBJ.
inline bool aic_is_matmul_server() {
    if (!on_cube_core()) return false;
    int32_t type = t_core->launch->shape.type;
    return type == KERNEL_TYPE_MIX_AIC_1_1 || type == KERNEL_TYPE_MIX_AIC_1_2;
}

inline void regist(int, Loc) {}

template <class Obj, class... Rest>
void regist(int count, Loc loc, Obj& mm, Rest&&... rest);

template <class Obj, class... Rest>
void regist_with_tiling(int count, Loc loc, Obj& mm, const TCubeTiling* tiling, Rest&&... rest) {
    mm.Init(tiling, nullptr, loc);
    regist(count + 1, loc, std::forward<Rest>(rest)...);
}

template <class Obj, class... Rest>
void regist(int count, Loc loc, Obj& mm, Rest&&... rest) {
    if (count >= 4)
        fail(Diag::BadArgument, loc,
             "REGIST_MATMUL_OBJ with more than 4 Matmul objects: a program may define at most 4 "
             "(REGIST_MATMUL_OBJ.md).");
    if constexpr (sizeof...(Rest) == 0) {
        (void)mm;  // the tiling comes later through Init (allowed for a single object)
    } else {
        regist_with_tiling(count, loc, mm, std::forward<Rest>(rest)...);
    }
}

}  // namespace mm
}  // namespace ascendc_sim

// REGIST_MATMUL_OBJ(tpipe, workspace, mm[, &tiling][, mm2, &tiling2 ...]) (REGIST_MATMUL_OBJ.md).
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...)                                             \
    do {                                                                                     \
        if (::ascendc_sim::mm::aic_is_matmul_server()) return;                               \
        (void)(tpipe);                                                                       \
        (void)(workspace);                                                                   \
        ::ascendc_sim::mm::regist(0, ::ascendc_sim::Loc::here(), __VA_ARGS__);               \
    } while (0)

// The names kernels use: matmul::Matmul, matmul::MatmulType ... (older samples) beside AscendC::.
namespace matmul {
using AscendC::CFG_IBSHARE_NORM;
using AscendC::CFG_MDL;
using AscendC::CFG_NORM;
using AscendC::GetBasicConfig;
using AscendC::GetIBShareNormConfig;
using AscendC::GetMDLConfig;
using AscendC::GetNormalConfig;
using AscendC::GetSpecialBasicConfig;
using AscendC::GetSpecialMDLConfig;
using AscendC::IterateOrder;
using AscendC::LayoutMode;
using AscendC::Matmul;
using AscendC::MatmulCallBackFunc;
using AscendC::MatmulConfig;
using AscendC::MatmulImpl;
using AscendC::MatmulType;
using AscendC::ScheduleType;
}  // namespace matmul
