// Where the Matmul API finds one matrix and how it writes C: a matrix in GM or in a LocalTensor, stored ND, ND_ALIGN
// or NZ, maybe transposed, read element by element into the block the cube would work on, and C written back in its
// MatmulType's format and type. Helpers of sim/matmul.h.
//
// Layouts (Matmul使用说明.md table 3 and the TCubeTiling page):
// - ND: row-major [rows, cols] with rows `pitch` elements apart; ND_ALIGN (C only): rows rounded up to 32 bytes.
// - NZ: [cols / C0, round_up(rows, 16), C0]: columns in groups of C0 = 32 bytes of the type (8 float, 16 half /
//   bfloat16, 32 int8), each group holding every row (rows rounded up to 16) of C0 elements. A C matrix in NZ uses
//   C0 = 16 for float / int32 / half / bfloat16 and 32 for int8 (table 3: "float/int32_t: 16 的倍数").
// - A transposed matrix is stored as the transpose: A^T [K, M], B^T [N, K].
#pragma once
#include <algorithm>
#include <vector>

#include "matmul_types.h"

namespace ascendc_sim {
namespace mm {

template <typename T>
constexpr uint32_t c0_of() {
    return 32u / uint32_t(sizeof(T));
}

constexpr uint64_t round_up(uint64_t value, uint64_t unit) { return unit == 0 ? value : (value + unit - 1) / unit * unit; }
constexpr uint64_t ceil_div(uint64_t value, uint64_t unit) { return unit == 0 ? 0 : (value + unit - 1) / unit; }

// A stored matrix: `rows` x `cols` as laid out (already transposed when the matrix is), in `format`.
struct Storage {
    CubeFormat format = CubeFormat::ND;
    uint64_t rows = 0;   // stored rows (NZ: rounded up to 16 inside offset)
    uint64_t pitch = 0;  // ND: elements from one row to the next
    uint32_t c0 = 16;    // NZ: elements per fractal row

    uint64_t offset(uint64_t r, uint64_t c) const {
        if (format == CubeFormat::NZ) return (c / c0) * (round_up(rows, 16) * c0) + r * c0 + c % c0;
        return r * pitch + c;
    }
};

template <typename T>
float to_float(T value) {
    return static_cast<float>(value);
}

// One input matrix (A, B) or the bias: its source and how it is stored. `data` is where the simulator reads: a GM
// address the kernel sees (checked per block with check_gm) or a local tensor's bytes.
template <typename T>
struct Operand {
    enum Kind : uint8_t { None, Gm, Local, Scalar } kind = None;
    T* address = nullptr;
    GmHome home;
    uint64_t local_elements = 0;
    const BufferTiming* timing = nullptr;
    bool in_l1 = false;  // TSCM / A1 / B1: already in L1, no GM->L1 copy
    bool trans = false;
    T scalar{};

    bool set() const { return kind != None; }

    // The elements [lo, hi] of the operand, checked, as a pointer to element lo.
    const T* span(uint64_t lo, uint64_t hi, const char* api, const char* role, Loc loc) const {
        if (kind == Gm) {
            uint64_t bytes = (hi - lo + 1) * sizeof(T);
            return reinterpret_cast<const T*>(check_gm_read(address + lo, bytes, api, loc, home));
        }
        if (hi >= local_elements)
            fail(Diag::LocalOverrun, loc,
                 "%s: %s is read up to element %llu but its LocalTensor has %llu elements. The tensor must hold the "
                 "whole single-core matrix (singleCoreM x singleCoreK for A, singleCoreK x singleCoreN for B, "
                 "singleCoreN for the bias): give its buffer more bytes or fix the tiling's single-core shape.",
                 api, role, (unsigned long long)hi, (unsigned long long)local_elements);
        return address + lo;
    }
};

// Gathers rows [r0, r0 + nr) x cols [c0, c0 + nc) of a logical matrix (before its storage transposes it) into
// `out` (row-major, nc wide) as Acc.
template <typename Acc, typename T>
void gather(const Operand<T>& op, const Storage& st, uint64_t r0, uint64_t nr, uint64_t c0, uint64_t nc,
            std::vector<Acc>& out, const char* api, const char* role, Loc loc) {
    out.resize(nr * nc);
    if (op.kind == Operand<T>::Scalar) {
        std::fill(out.begin(), out.end(), static_cast<Acc>(to_float(op.scalar)));
        return;
    }
    auto value = [](const T* p) { return static_cast<Acc>(to_float(*p)); };
    if (st.format == CubeFormat::NZ) {  // one span over the fractals the block touches
        auto stored = [&](uint64_t r, uint64_t c) { return op.trans ? st.offset(c, r) : st.offset(r, c); };
        uint64_t lo = stored(r0, c0);
        const T* base = op.span(lo, stored(r0 + nr - 1, c0 + nc - 1), api, role, loc);
        for (uint64_t r = 0; r < nr; ++r)
            for (uint64_t c = 0; c < nc; ++c) out[r * nc + c] = value(base + stored(r0 + r, c0 + c) - lo);
        return;
    }
    if (!op.trans) {  // ND: each row's piece is contiguous, checked on its own (other cores' bytes lie between)
        for (uint64_t r = 0; r < nr; ++r) {
            uint64_t lo = st.offset(r0 + r, c0);
            const T* row = op.span(lo, lo + nc - 1, api, role, loc);
            for (uint64_t c = 0; c < nc; ++c) out[r * nc + c] = value(row + c);
        }
        return;
    }
    for (uint64_t c = 0; c < nc; ++c) {  // transposed ND: a logical column is a stored row
        uint64_t lo = st.offset(c0 + c, r0);
        const T* column = op.span(lo, lo + nr - 1, api, role, loc);
        for (uint64_t r = 0; r < nr; ++r) out[r * nc + c] = value(column + r);
    }
}

// C's element type from the accumulator: float rounds to nearest even into half / bfloat16_t.
template <typename C, typename Acc>
C from_acc(Acc value) {
    return static_cast<C>(value);
}

template <typename C>
C combine(C old_value, C value, uint8_t atomic) {
    switch (atomic) {
        case 1: return static_cast<C>(static_cast<float>(old_value) + static_cast<float>(value));
        case 2: return static_cast<float>(old_value) >= static_cast<float>(value) ? old_value : value;
        case 3: return static_cast<float>(old_value) <= static_cast<float>(value) ? old_value : value;
        default: return value;
    }
}

template <>
inline int32_t combine<int32_t>(int32_t old_value, int32_t value, uint8_t atomic) {
    switch (atomic) {
        case 1: return int32_t(uint32_t(old_value) + uint32_t(value));
        case 2: return std::max(old_value, value);
        case 3: return std::min(old_value, value);
        default: return value;
    }
}

}  // namespace mm
}  // namespace ascendc_sim
