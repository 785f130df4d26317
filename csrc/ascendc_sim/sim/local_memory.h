// Where a TPosition lives, and the local memories of a core that TPipe::InitBuffer carves buffers from.
//
// From the 通用约束 page (atlasascendc_api_07_0004, CANN 8.x), table 1 (TPosition -> physical memory) and table 2
// (start-address alignment the memory manager applies):
// - GM: Global Memory. VECIN, VECCALC, VECOUT: Unified Buffer. A1, B1, TSCM: L1. A2: L0A. B2: L0B. CO1: L0C.
// - Atlas A2/A3: C1 is L1, C2 the BT (bias table) buffer, CO2 and SPM are Global Memory, C2PIPE2GM the Fixpipe
//   buffer. Atlas 推理系列 AI Core (310P): C1 and CO2 are UB, C2 is L0C, SPM is L1.
// - Alignment: UB 32 bytes, L1 32 bytes, L0A/L0B 512 bytes, L0C 64 bytes, BT 64 bytes (FB: the page gives none;
//   assumption: 64 bytes, as BT).
// - On Atlas A2/A3 the AI Core is split (设置Kernel类型.md, the 预定义宏 page atlas_ascendc_10_10053): the cube core
//   (AIC) has L1, L0A/L0B/L0C, BT and FB and no UB; the vector core (AIV) has UB only. A buffer at a position the
//   running core does not have is wrong_core. The 310P AI Core has all of them (coupled architecture).
// Sizes come from the SoC profile (SimSocProfile l1_bytes ..., targets/soc.py cites them).
#pragma once
#include "tensor.h"

namespace ascendc_sim {

inline const char* memory_name(Memory m) {
    static const char* const names[] = {"UB", "L1", "L0A", "L0B", "L0C", "BT (bias table)", "FB (Fixpipe buffer)",
                                        "GM"};
    return names[static_cast<int>(m)];
}

// The memory a TPosition is on the SoC of architecture `arch` (SimSocProfile::arch: 0 Atlas A2/A3, 1 310P).
inline Memory memory_of(AscendC::TPosition pos, int arch) {
    using AscendC::TPosition;
    const bool a2 = arch == 0;
    switch (pos) {
        case TPosition::VECIN:
        case TPosition::VECOUT:
        case TPosition::VECCALC:
            return Memory::UB;
        case TPosition::A1:
        case TPosition::B1:
        case TPosition::TSCM:
            return Memory::L1;
        case TPosition::C1:
            return a2 ? Memory::L1 : Memory::UB;
        case TPosition::A2:
            return Memory::L0A;
        case TPosition::B2:
            return Memory::L0B;
        case TPosition::CO1:
            return Memory::L0C;
        case TPosition::C2:
            return a2 ? Memory::BT : Memory::L0C;
        case TPosition::CO2:
            return a2 ? Memory::GM : Memory::UB;
        case TPosition::SPM:
        case TPosition::SHM:  // SPM's alias on the TPosition page
            return a2 ? Memory::GM : Memory::L1;
        case TPosition::C2PIPE2GM:
            return Memory::FB;
        default:  // GM, C2PIPE2LOCAL (reserved)
            return Memory::GM;
    }
}

// The memory of `pos` on the running core's SoC (Atlas A2/A3 outside a launch).
inline Memory memory_of(AscendC::TPosition pos) {
    return memory_of(pos, t_core != nullptr ? t_core->soc().arch : 0);
}

inline uint32_t memory_alignment(Memory m) {
    switch (m) {
        case Memory::L0A:
        case Memory::L0B:
            return 512;
        case Memory::L0C:
        case Memory::BT:
        case Memory::FB:
            return 64;
        default:
            return 32;
    }
}

inline uint32_t memory_bytes(const SimSocProfile& soc, Memory m) {
    switch (m) {
        case Memory::UB: return soc.ub_bytes;
        case Memory::L1: return soc.l1_bytes;
        case Memory::L0A: return soc.l0a_bytes;
        case Memory::L0B: return soc.l0b_bytes;
        case Memory::L0C: return soc.l0c_bytes;
        case Memory::BT: return soc.bt_bytes;
        case Memory::FB: return soc.fb_bytes;
        default: return 0;
    }
}

// Whether the running core has memory `m`: on Atlas A2/A3 the AIC has the cube memories, the AIV the UB.
inline bool core_has(const CoreState& c, Memory m) {
    if (m == Memory::GM) return false;
    if (c.soc().arch != 0) return true;
    return c.cube ? m != Memory::UB : m == Memory::UB;
}

namespace sim_detail {

constexpr uint32_t kCubeMemoryPad = 4096;  // each cube memory starts on its own page in the arena

inline uint32_t padded_bytes(const SimSocProfile& soc, Memory m) {
    return (memory_bytes(soc, m) + kCubeMemoryPad - 1) / kCubeMemoryPad * kCubeMemoryPad;
}

// Where cube memory `m` starts in the core's arena, which is taken (and poisoned: uninitialised data reads as NaN
// or -1, never as zeros) at the core's first cube buffer.
inline uint8_t* cube_memory_base(CoreState& c, Memory m) {
    const SimSocProfile& soc = c.soc();
    if (c.cube_memory == nullptr) {
        size_t total = 0;
        for (int k = int(Memory::L1); k < kLocalMemories; ++k) total += padded_bytes(soc, Memory(k));
        if (t_cube_memory.size() < total) t_cube_memory.resize(total);
        std::memset(t_cube_memory.data(), 0xFF, total);
        c.cube_memory = t_cube_memory.data();
    }
    uint8_t* base = c.cube_memory;
    for (int k = int(Memory::L1); k < int(m); ++k) base += padded_bytes(soc, Memory(k));
    return base;
}

}  // namespace sim_detail

// A memory the running core does not have: AIC code using UB, AIV code using L1/L0, a GM position.
[[noreturn]] inline void fail_wrong_memory(const CoreState& c, AscendC::TPosition pos, Memory m, const char* what,
                                           Loc loc) {
    if (m == Memory::GM)
        fail(Diag::UnsupportedApi, loc,
             "InitBuffer for %s at a TPosition that is Global Memory on %s (CO2 and SPM: 通用约束 page, "
             "atlasascendc_api_07_0004), not a local buffer. Fixpipe writes L0C results straight to GM: use a "
             "GlobalTensor (a workspace) instead of a local buffer at this position.",
             what, c.soc().name);
    if (c.cube)
        fail(Diag::WrongCore, loc,
             "InitBuffer for %s in %s on a cube core (AIC): the AIC of Atlas A2/A3 has L1, L0A/L0B/L0C, BT and FB "
             "but no Unified Buffer. Guard the vector code with `if ASCEND_IS_AIV { ... }` (and the cube code with "
             "`if ASCEND_IS_AIC`), as mixed kernels must (预定义宏 page, atlas_ascendc_10_10053), or declare a "
             "vector kernel type.",
             what, memory_name(m));
    fail(Diag::WrongCore, loc,
         "InitBuffer for %s in %s on a vector core (AIV): the AIV of Atlas A2/A3 has only the Unified Buffer; L1, "
         "L0A/L0B/L0C, BT and FB belong to the cube core (AIC). Run cube code on the AIC: guard it with `if "
         "ASCEND_IS_AIC { ... }` in a KERNEL_TYPE_AIC_ONLY or KERNEL_TYPE_MIX_AIC_1_* kernel (设置Kernel类型.md).",
         what, memory_name(m));
}

// Carves `bytes` (already aligned) for `what` from the memory of `pos` on the running core; fails when the core
// does not have it or it is full. Returns the buffer's start.
inline uint8_t* carve_local(AscendC::TPosition pos, uint32_t bytes, const char* what, Loc loc) {
    CoreState& c = core(loc);
    const Memory m = memory_of(pos, c.soc().arch);
    if (!core_has(c, m)) fail_wrong_memory(c, pos, m, what, loc);
    const uint32_t capacity = memory_bytes(c.soc(), m);
    uint32_t& used = m == Memory::UB ? c.ub_used : c.local_used[int(m)];
    if (uint64_t(used) + bytes > capacity)
        fail(m == Memory::UB ? Diag::UbOverflow : Diag::LocalMemoryOverflow, loc,
             "InitBuffer for %s asks for %u bytes of %s, but %u of the %u bytes of %s on %s are already given to "
             "other buffers (%u bytes over). %s",
             what, bytes, memory_name(m), used, capacity, memory_name(m), c.soc().name,
             unsigned(used + bytes - capacity),
             m == Memory::UB ? "Use a smaller tile length or fewer buffers (BUFFER_NUM), or reuse one TBuf for "
                               "temporaries."
                             : "Split the matrices into smaller base blocks (baseM/baseN/baseK), or use fewer "
                               "buffers (single instead of double buffering).");
    uint8_t* start = (m == Memory::UB ? c.ub : sim_detail::cube_memory_base(c, m)) + used;
    used += bytes;
    return start;
}

// Bytes one buffer of `len` takes at `pos`: rounded up to the memory's start-address alignment, so that every buffer
// of a queue starts aligned.
inline uint32_t aligned_buffer_bytes(AscendC::TPosition pos, uint32_t len) {
    uint32_t align = memory_alignment(memory_of(pos));
    return (len + align - 1) / align * align;
}

// The offset of a local tensor's data from the start of its memory on the running core, for alignment checks of the
// cube instructions (e.g. L0A/L0B operands at 512-byte boundaries).
inline uint64_t local_offset(const CoreState& c, const void* data, Memory m) {
    const uint8_t* p = static_cast<const uint8_t*>(data);
    if (m == Memory::UB) return uint64_t(p - c.ub);
    const uint8_t* base = c.cube_memory;
    for (int k = int(Memory::L1); k < int(m); ++k) base += sim_detail::padded_bytes(c.soc(), Memory(k));
    return uint64_t(p - base);
}

}  // namespace ascendc_sim
