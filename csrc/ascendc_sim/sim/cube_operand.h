// What the cube instructions (cube_copy.h, mmad.h, fixpipe.h) share: the fractal sizes, the memory a TPosition names,
// and the check of a LocalTensor operand (position, alignment in its memory, room for what the instruction touches).
//
// Fractals (Mmad.md, Load2D.md): 512 bytes, 16 rows of 32 bytes: 16 x k0 with k0 = 32 / sizeof(T) (16 half or
// bfloat16, 32 int8, 8 float); L0C holds 16 x 16 fractals of float or int32 (256 elements).
// Positions and memories (通用说明和约束.md table 1): A1, B1, C1, TSCM: L1; A2: L0A; B2: L0B; CO1: L0C; C2: the bias
// table; C2PIPE2GM: the Fixpipe buffer. Alignment (通用说明和约束.md table 2): L1 32 bytes, L0A/L0B 512 bytes, L0C,
// bias table, Fixpipe buffer 64 bytes; an API page's own rule wins where it states one (Mmad.md: CO1 256 elements).
// Every cube API calls ASCENDC_SIM_CUBE_API() (kernel_type.h), so that a kernel using it runs on cube cores.
#pragma once
#include <initializer_list>

#include "local_memory.h"

namespace AscendC {
constexpr int32_t BLOCK_CUBE = 16;     // rows of a fractal
constexpr int32_t ONE_BLK_SIZE = 32;   // bytes of a DataBlock
constexpr int32_t CUBE_MAX_SIZE = 256; // elements of an L0C fractal
}  // namespace AscendC

namespace ascendc_sim::cube {

using AscendC::TPosition;

constexpr uint32_t kFractalBytes = 512;
constexpr uint32_t kL0cFractal = 256;  // elements of a 16 x 16 L0C fractal

template <typename T>
constexpr uint32_t k0() { return kBlockBytes / sizeof(T); }  // columns of an input fractal (C0)

// A set of dtypes, as check_dtype takes it.
template <typename... D>
constexpr uint32_t dtypes(D... d) { return (dtype_bit(d) | ...); }

inline const char* position_name(TPosition p) {
    static const char* const names[] = {"GM", "A1", "A2", "B1", "B2", "C1", "C2", "CO1", "CO2", "VECIN", "VECOUT",
                                        "VECCALC", "SPM", "SHM", "TSCM", "C2PIPE2GM", "C2PIPE2LOCAL"};
    auto i = static_cast<size_t>(p);
    return i < sizeof names / sizeof names[0] ? names[i] : "an unknown position";
}

// A LocalTensor operand of a cube instruction: allocated, at one of `allowed`, `align`-byte aligned in its memory,
// with `bytes` of room from its start.
template <typename T>
T* operand(const AscendC::LocalTensor<T>& t, std::initializer_list<TPosition> allowed, uint64_t bytes, uint32_t align,
           const char* api, const char* role, Loc loc) {
    CoreState& c = core(loc);
    if (t.GetPhyAddrPtr() == nullptr)
        fail(Diag::BadArgument, loc,
             "%s: %s is an empty LocalTensor (never allocated). Get it from a queue's AllocTensor/DeQue or a TBuf's "
             "Get first.",
             api, role);
    const Memory memory = memory_of(t.GetPosition(), c.soc().arch);
    bool placed = false;
    std::string names;
    for (TPosition p : allowed) {
        placed = placed || p == t.GetPosition();
        names += std::string(names.empty() ? "" : ", ") + position_name(p);
    }
    if (!placed)
        fail(Diag::BadArgument, loc,
             "%s: %s is a tensor at TPosition::%s (%s), but this instruction takes it only at %s. Allocate it from a "
             "TQue/TBuf of the right position.",
             api, role, position_name(t.GetPosition()), memory_name(memory), names.c_str());
    uint64_t offset = local_offset(c, t.GetPhyAddrPtr(), memory);
    if (offset % align != 0)
        fail(Diag::CubeAlignment, loc,
             "%s: %s starts at byte %llu of %s, not a multiple of %u bytes, which this operand must be aligned to. "
             "Offset the tensor by whole fractals (multiples of %u elements of %s).",
             api, role, (unsigned long long)offset, memory_name(memory), align, unsigned(align / sizeof(T)),
             dtype_name(dtype_of<T>));
    uint64_t room = uint64_t(t.GetSize()) * sizeof(T);
    if (bytes > room)
        fail(Diag::LocalOverrun, loc,
             "%s: %s needs %llu bytes of %s (%llu elements of %s) but the LocalTensor has only %llu bytes. Check the "
             "repeat, size and stride parameters, or give the buffer more bytes in InitBuffer.",
             api, role, (unsigned long long)bytes, memory_name(memory),
             (unsigned long long)(bytes / sizeof(T)), dtype_name(dtype_of<T>), (unsigned long long)room);
    return t.GetPhyAddrPtr();
}

inline void check_range(const char* api, const char* field, uint64_t value, uint64_t low, uint64_t high, Loc loc) {
    if (value < low || value > high)
        fail(Diag::BadArgument, loc, "%s: %s is %llu; the documented range is [%llu, %llu].", api, field,
             (unsigned long long)value, (unsigned long long)low, (unsigned long long)high);
}

}  // namespace ascendc_sim::cube
