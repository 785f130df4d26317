// PadTiling and UnPadTiling, the structs the host fills (PadTilingFunc / UnPadTilingFunc, Pad-Tiling.md,
// UnPad-Tiling.md) and the kernel passes to Pad / UnPad, with the simulator's model of their temporary space. Plain
// C++ with no simulator state, so that host code (host/tiling/pad_tiling.h) and kernel code (sim/pad.h) share one
// definition.
//
// The pages do not document the fields (the kernel passes the struct through, as with SoftMaxTiling); the layout
// is ours:
//   srcHeight, srcWidth   srcShape: rows and row length in elements (valid plus redundant columns)
//   oriSrcWidth           oriSrcShape's row length: the valid columns (Pad; UnPad keeps srcWidth)
//   typeSize              bytes per element the host declared (the kernel checks sizeof(T) against it)
//   alignedWidth          srcWidth rounded up to 32 bytes, in elements
//   rowsPerPass           rows one pass handles in the temporary space given (0: less than the minimum)
//   tmpBytes              bytes of temporary space those passes use
//
// Temporary space (ours, the pages give no numbers): a pass moves whole groups of 16 rows (the TransDataTo5HD
// block height) through one aligned row each, so min = 16 aligned rows, max = every row rounded up to 16.
#pragma once
#include <cstdint>

namespace AscendC {
namespace tiling {

struct PadTiling {
    uint32_t srcHeight = 0;
    uint32_t srcWidth = 0;
    uint32_t oriSrcWidth = 0;
    uint32_t typeSize = 0;
    uint32_t alignedWidth = 0;
    uint32_t rowsPerPass = 0;
    uint32_t tmpBytes = 0;
};

struct UnPadTiling {
    uint32_t srcHeight = 0;
    uint32_t srcWidth = 0;
    uint32_t typeSize = 0;
    uint32_t rowsPerPass = 0;
    uint32_t tmpBytes = 0;
};

}  // namespace tiling

using tiling::PadTiling;
using tiling::UnPadTiling;

namespace pad_model {

constexpr uint32_t kRowGroup = 16;

constexpr uint32_t round_up(uint32_t value, uint32_t unit) { return unit == 0 ? 0 : (value + unit - 1) / unit * unit; }

constexpr uint32_t aligned_width(uint32_t width, uint32_t typeSize) {
    return typeSize == 0 ? 0 : round_up(width * typeSize, 32u) / typeSize;
}

constexpr uint32_t row_bytes(uint32_t width, uint32_t typeSize) { return aligned_width(width, typeSize) * typeSize; }

constexpr uint32_t min_tmp_bytes(uint32_t width, uint32_t typeSize) { return kRowGroup * row_bytes(width, typeSize); }

constexpr uint32_t max_tmp_bytes(uint32_t height, uint32_t width, uint32_t typeSize) {
    uint32_t groups = round_up(height == 0 ? 1 : height, kRowGroup);
    return groups * row_bytes(width, typeSize);
}

// Rows per pass with `stack` bytes: whole groups of 16, no more than the (rounded-up) height; 0 below the minimum.
constexpr uint32_t rows_per_pass(uint32_t height, uint32_t width, uint32_t typeSize, uint32_t stack) {
    uint32_t row = row_bytes(width, typeSize);
    if (row == 0) return 0;
    uint32_t rows = stack / row / kRowGroup * kRowGroup;
    uint32_t all = round_up(height == 0 ? 1 : height, kRowGroup);
    return rows < all ? rows : all;
}

constexpr PadTiling make_pad(uint32_t height, uint32_t width, uint32_t oriWidth, uint32_t typeSize, uint32_t stack) {
    PadTiling t{};
    t.srcHeight = height;
    t.srcWidth = width;
    t.oriSrcWidth = oriWidth;
    t.typeSize = typeSize;
    t.alignedWidth = aligned_width(width, typeSize);
    t.rowsPerPass = rows_per_pass(height, width, typeSize, stack);
    t.tmpBytes = t.rowsPerPass * row_bytes(width, typeSize);
    return t;
}

constexpr UnPadTiling make_unpad(uint32_t height, uint32_t width, uint32_t typeSize, uint32_t stack) {
    UnPadTiling t{};
    t.srcHeight = height;
    t.srcWidth = width;
    t.typeSize = typeSize;
    t.rowsPerPass = rows_per_pass(height, width, typeSize, stack);
    t.tmpBytes = t.rowsPerPass * row_bytes(width, typeSize);
    return t;
}

}  // namespace pad_model
}  // namespace AscendC

using AscendC::PadTiling;
using AscendC::UnPadTiling;
