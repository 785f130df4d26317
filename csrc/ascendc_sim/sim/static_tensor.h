// Static tensor programming: LocalTensor(pos, addr, tileSize), LocalMemAllocator<Hardware::UB> and InitSocState
// (LocalTensor构造函数.md, LocalMemAllocator简介.md, Alloc.md, InitSocState.md). Tensors are placed at
// UB addresses the kernel chooses, without TPipe or queues; the kernel synchronises the pipes itself
// (SetFlag/WaitFlag), and the pipe-race check follows each static tensor address. Only UB is simulated:
// the other Hardware places (L1, L0A/B/C, BIAS, FIXBUF) are reported as unsupported.
#pragma once
#include "core.h"
#include "tensor.h"
#include "vector_ops.h"

namespace AscendC {
enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };
}  // namespace AscendC

namespace ascendc_sim {

inline bool is_ub_position(AscendC::TPosition pos) {
    return pos == AscendC::TPosition::VECIN || pos == AscendC::TPosition::VECOUT ||
           pos == AscendC::TPosition::VECCALC;
}

// What every static tensor needs: InitSocState first, and no TPipe alive (LocalMemAllocator简介.md: static tensor
// programming cannot be mixed with TPipe).
inline CoreState& static_core(const char* api, Loc loc) {
    CoreState& c = core(loc);
    if (c.cube)
        fail(Diag::WrongCore, loc,
             "%s on a cube core (AIC), which has no Unified Buffer on Atlas A2/A3: static UB tensors are for vector "
             "code. Guard it with `if ASCEND_IS_AIV { ... }`.", api);
    if (!c.soc_state_initialized)
        fail(Diag::BadArgument, loc,
             "%s: static tensor programming must call AscendC::InitSocState() at the kernel entry first, so that the "
             "atomic and mask state a previous operator left does not leak into this one (InitSocState.md)", api);
    if (c.current_pipe != nullptr)
        fail(Diag::BadArgument, loc,
             "%s while a TPipe is alive: static tensors and LocalMemAllocator cannot be mixed with TPipe/TQue/TBuf, "
             "whose buffers occupy the same UB. Use one programming style per kernel.", api);
    return c;
}

template <typename T>
AscendC::LocalTensor<T> static_tensor_at(AscendC::TPosition pos, uint32_t addr, uint32_t tileSize, Loc loc) {
    const char* api = "LocalTensor(pos, addr, tileSize)";
    CoreState& c = static_core(api, loc);
    if (!is_ub_position(pos))
        fail(Diag::UnsupportedApi, loc,
             "%s at a TPosition outside UB (VECIN, VECOUT, VECCALC): the simulator has only the vector unit's UB",
             api);
    uint64_t bytes = uint64_t(tileSize) * sizeof(T);
    if (addr % kBlockBytes != 0)
        fail(Diag::UbMisaligned, loc, "%s: addr %u is not 32-byte aligned; a static tensor must start on a 32-byte "
             "boundary of UB", api, addr);
    if (uint64_t(addr) + bytes > c.soc().ub_bytes)
        fail(Diag::UbOverflow, loc,
             "%s: %u elements of %u bytes from UB byte %u end at byte %llu, past the %u bytes of UB on %s. Use a "
             "smaller tileSize or a lower addr.",
             api, tileSize, unsigned(sizeof(T)), addr, (unsigned long long)(addr + bytes), c.soc().ub_bytes,
             c.soc().name);
    return AscendC::LocalTensor<T>(reinterpret_cast<T*>(c.ub + addr), tileSize, pos, &c.static_timings[addr],
                                   &c.static_timings);
}

}  // namespace ascendc_sim

namespace AscendC {

// Puts the core's global state in its starting place: no atomic accumulation, the mask register in normal mode
// with every lane on. Static tensor programming must call it at the kernel entry (TPipe does it otherwise).
inline void InitSocState(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    c.atomic_mode = 0;
    sim_detail::MaskRegister& mask = sim_detail::write_mask_register(c);
    mask.counter = false;
    mask.hi = mask.lo = ~0ull;
    c.soc_state_initialized = true;
}

// Hands out consecutive 32-byte aligned pieces of UB, from address 0 (LocalMemAllocator简介.md, Alloc.md).
template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
public:
    LocalMemAllocator() = default;

    uint32_t GetCurAddr() const { return cur_; }

    template <class DataType, uint32_t tileSize>
    LocalTensor<DataType> Alloc(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        return take<DataType>(TPosition::VECCALC, tileSize, loc);
    }
    template <TPosition pos, class DataType, uint32_t tileSize>
    LocalTensor<DataType> Alloc(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        return take<DataType>(pos, tileSize, loc);
    }
    template <class DataType>
    LocalTensor<DataType> Alloc(uint32_t tileSize, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        return take<DataType>(TPosition::VECCALC, tileSize, loc);
    }
    template <TPosition pos, class DataType>
    LocalTensor<DataType> Alloc(uint32_t tileSize, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        return take<DataType>(pos, tileSize, loc);
    }

private:
    template <class DataType>
    LocalTensor<DataType> take(TPosition pos, uint32_t tileSize, ascendc_sim::Loc loc) {
        if (hard != Hardware::UB)
            ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                              "LocalMemAllocator::Alloc on a Hardware place other than UB: the simulator has only "
                              "the vector unit's UB (LocalMemAllocator<Hardware::UB>)");
        ascendc_sim::CoreState& c = ascendc_sim::static_core("LocalMemAllocator::Alloc", loc);
        uint64_t bytes = (uint64_t(tileSize) * sizeof(DataType) + 31u) / 32u * 32u;
        if (cur_ + bytes > c.soc().ub_bytes)
            ascendc_sim::fail(ascendc_sim::Diag::UbOverflow, loc,
                              "LocalMemAllocator::Alloc of %u elements (%llu bytes) at UB byte %u: only %u of the %u "
                              "bytes of UB on %s are left (Alloc.md: tileSize must fit what GetCurAddr leaves). Use "
                              "smaller tiles.",
                              tileSize, (unsigned long long)bytes, cur_, unsigned(c.soc().ub_bytes - cur_),
                              c.soc().ub_bytes, c.soc().name);
        LocalTensor<DataType> tensor = ascendc_sim::static_tensor_at<DataType>(pos, cur_, tileSize, loc);
        cur_ += uint32_t(bytes);
        return tensor;
    }

    uint32_t cur_ = 0;
};

}  // namespace AscendC
