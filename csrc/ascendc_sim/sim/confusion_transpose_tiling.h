// ConfusionTransposeTiling, the struct the host fills (GetTransposeTilingInfo and its deprecated names,
// Transpose-Tiling.md) and the kernel passes to Transpose(dst, src, [tmp,] TransposeType, tiling) (Transpose-39.md),
// with the simulator's model of its temporary space. Plain C++ with no simulator state, shared by host code
// (host/tiling/transpose_tiling.h) and kernel code (sim/confusion_transpose.h).
//
// The page does not document the fields; the layout is ours:
//   transposeType          the scenario the host asked for (1-7, TransposeType's value)
//   b, n, s, hnDiv         srcShape [B, N, S, H/N] (scenarios 1-6); scenario 7's [H, W] as s = H, hnDiv = W, b = n = 1
//   typeSize               bytes per element the host declared
//   tmpBytes               temporary space the call uses
//   stackShort             1 when stackBufferSize was below that (the kernel reports it)
//
// Temporary space (ours, the page gives no numbers): scenarios 1-2 stage S/16 squares of 16 x 16 (16 S elements),
// 3-6 two such buffers (the page's temp1 and temp2), 7 none (TransDataTo5HD address lists); min = max.
#pragma once
#include <cstdint>

namespace AscendC {
namespace tiling {

struct ConfusionTransposeTiling {
    uint32_t transposeType = 0;
    uint32_t b = 0;
    uint32_t n = 0;
    uint32_t s = 0;
    uint32_t hnDiv = 0;
    uint32_t typeSize = 0;
    uint32_t tmpBytes = 0;
    uint32_t stackShort = 0;
};

}  // namespace tiling

using tiling::ConfusionTransposeTiling;

namespace confusion_model {

// srcShape as [B, N, S, H/N] (or [H, W] for scenario 7).
struct Shape4 {
    uint32_t b = 1, n = 1, s = 0, hn = 0;
};

constexpr uint32_t tmp_bytes(uint32_t type, uint32_t s, uint32_t typeSize) {
    uint32_t square_rows = 16u * s * typeSize;
    if (type == 1 || type == 2) return square_rows;
    if (type >= 3 && type <= 6) return 2 * square_rows;
    return 0;
}

constexpr ConfusionTransposeTiling make(const Shape4& shape, uint32_t stack, uint32_t typeSize, uint32_t type) {
    ConfusionTransposeTiling t{};
    t.transposeType = type;
    t.b = shape.b;
    t.n = shape.n;
    t.s = shape.s;
    t.hnDiv = shape.hn;
    t.typeSize = typeSize;
    t.tmpBytes = tmp_bytes(type, shape.s, typeSize);
    t.stackShort = stack < t.tmpBytes ? 1 : 0;
    return t;
}

}  // namespace confusion_model
}  // namespace AscendC

using AscendC::ConfusionTransposeTiling;
