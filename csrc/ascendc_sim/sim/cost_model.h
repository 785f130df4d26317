// The NPU time estimate. This is a model, not a cycle-accurate simulation: it exists to rank
// variants of one kernel against each other when no NPU is at hand, so what matters is that it
// charges the things that make one variant slower than another (bytes moved, vector repeats,
// scalar GM traffic, pipeline stalls when a queue has one buffer, the slowest core).
//
// Each core keeps a time line per pipe (MTE2: GM->UB, V: vector, MTE3: UB->GM, S: scalar).
// An instruction starts when its pipe is free, its source buffers have been written and its
// destination buffer has been read by the previous user; so a queue with two buffers lets
// CopyIn of tile i+1 overlap Compute of tile i, and a queue with one buffer does not.
//
// Constants and where they come from:
// - Vector width 256 bytes per repeat, one repeat per cycle for simple ops: the DaVinci vector
//   unit is 2048 bits wide (Liao et al., "Ascend: a Scalable and Unified Architecture for
//   Ubiquitous Deep Neural Network Computing", HPCA 2021, section 3); AscendC docs state a
//   repeat processes 256 bytes (高维切分.md).
// - Long ops (Div, Exp, Ln, Sqrt, Rsqrt, Reciprocal) are priced at 4 cycles a repeat and Reduce
//   ops at 2 plus a log2 tree: an assumption, not a published figure; it keeps the ordering
//   "transcendentals cost more than adds" that public Ascend tuning guides describe.
// - Instruction issue: 10 cycles per vector instruction and 30 per DataCopy (latency of the
//   scalar unit dispatching to a pipe): an assumption, sized so that many tiny instructions
//   cost more than few large ones, as the AscendC performance guide advises (fewer, larger
//   repeats; tiles of at least a few KB).
// - GM bandwidth per SoC is in torch_ascendgen/soc.py (aggregate HBM figure from the vendor
//   spec sheets, and one core's share of it). A DataCopy pays a start-up of 300 ns on MTE2 and
//   200 ns on MTE3 (assumption: the order of an HBM round trip), plus bytes / per-core bandwidth.
// - Scalar GM access (GlobalTensor GetValue/SetValue): 200 cycles each, an uncached GM round
//   trip through the scalar unit (assumption; Ascend guides say to avoid scalar GM access).
// - Kernel launch: 5 us (the order of torch_npu's measured launch overhead for a small
//   custom op; assumption).
#pragma once
#include <cmath>
#include <cstdint>

#include "launch_abi.h"
#include "op_table.h"

namespace ascendc_sim {

enum PipeIndex { kPipeMte2 = 0, kPipeV = 1, kPipeMte3 = 2, kPipeS = 3 };

struct CostModel {
    static constexpr double kVectorIssueCycles = 10.0;
    static constexpr double kCopyIssueCycles = 30.0;
    static constexpr double kSimpleCyclesPerRepeat = 1.0;
    static constexpr double kLongCyclesPerRepeat = 4.0;
    static constexpr double kReduceCyclesPerRepeat = 2.0;
    static constexpr double kMte2StartupNs = 300.0;
    static constexpr double kMte3StartupNs = 200.0;
    static constexpr double kScalarGmCycles = 200.0;
    static constexpr double kLaunchNs = 5000.0;

    static double cycles_to_ns(double cycles, const SimSocProfile& soc) { return cycles / soc.clock_ghz; }

    static double vector_ns(OpId op, uint64_t repeats, const SimSocProfile& soc) {
        double per_repeat = kSimpleCyclesPerRepeat;
        switch (op_cost_class(op)) {
            case CostClass::Long: per_repeat = kLongCyclesPerRepeat; break;
            case CostClass::Reduce: per_repeat = kReduceCyclesPerRepeat; break;
            default: break;
        }
        double cycles = kVectorIssueCycles + per_repeat * static_cast<double>(repeats);
        if (op_cost_class(op) == CostClass::Reduce && repeats > 1) cycles += 8.0 * std::log2(static_cast<double>(repeats));
        return cycles_to_ns(cycles, soc);
    }

    static double gm_copy_ns(uint64_t bytes, bool to_gm, const SimSocProfile& soc) {
        double startup = to_gm ? kMte3StartupNs : kMte2StartupNs;
        return startup + cycles_to_ns(kCopyIssueCycles, soc) + static_cast<double>(bytes) / soc.core_gm_bytes_per_ns;
    }

    // UB to UB copies run on the vector pipe at one 256-byte repeat a cycle.
    static double ub_copy_ns(uint64_t bytes, const SimSocProfile& soc) {
        return cycles_to_ns(kVectorIssueCycles + std::ceil(static_cast<double>(bytes) / 256.0), soc);
    }

    static double scalar_gm_ns(const SimSocProfile& soc) { return cycles_to_ns(kScalarGmCycles, soc); }
};

}  // namespace ascendc_sim
