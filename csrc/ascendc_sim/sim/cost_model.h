// The NPU time estimate. This is a model, not a cycle-accurate simulation: it exists to rank
// variants of one kernel against each other when no NPU is at hand, so what matters is that it
// charges the things that make one variant slower than another: bytes moved and how many copies
// move them, vector repeats and instructions, scalar GM traffic, pipeline stalls when a queue has
// one buffer, the slowest core, extra waves of blocks, and the chip's shared HBM.
//
// Each core keeps a time line per pipe (MTE2: GM->UB, V: vector, MTE3: UB->GM, S: scalar).
// An instruction starts when its pipe is free, its source buffers have been written and its
// destination buffer has been read by the previous user (core.h `schedule`); so a queue with two
// buffers lets CopyIn of tile i+1 overlap Compute of tile i, and a queue with one buffer does not.
// The launch then places blocks on cores (launch.cpp `estimate_launch`).
//
// Constants and where they come from (SoC numbers: torch_ascendgen/soc.py):
// - Vector unit: 256 bytes (128 half / 64 float) per cycle. The DaVinci vector unit is 2048 bits
//   wide (Liao et al., "Ascend: a Scalable and Unified Architecture for Ubiquitous Deep Neural
//   Network Computing", HPCA 2021, sec. 3; Huawei's Hot Chips 31 DaVinci talk, 2019), CANN's
//   platform config for Ascend910B2 has vec_calc_size=128 (elements of half), and a repeat is 256
//   bytes (AscendC docs, 高维切分.md). So one repeat a cycle for simple ops.
// - Divide, exp, log, square root, reciprocal: 4 cycles a repeat. Assumption: no public figure;
//   it keeps "transcendentals cost more than adds", which the AscendC tuning guides rely on.
// - Reductions: 2 cycles a repeat plus 8 cycles per level of the log2 tree of partial results.
//   Assumption, same reason.
// - Issue: 10 cycles per vector instruction (the scalar unit dispatching it and the pipeline
//   filling). Assumption; it makes many short instructions cost more than few long ones, which is
//   why the AscendC best-practice guide ("Vector算子灵活运用Counter模式") prefers one counter-mode
//   instruction to a main block plus a tail.
// - GM copies: one core's MTE moves core_bytes_per_cycle bytes a cycle (CANN platform config
//   [AICoreMemoryRates] ddr_rate=32 in the Ascend910B1 and B4 files as quoted in public repositories;
//   assumed the same for the other parts), but no core gets more than its share
//   of the chip's HBM bandwidth when all blocks of the wave stream at once (launch_profile). Each
//   copy also pays a set-up of 57 cycles: the AscendC best-practice guide ("尽量一次搬运较大的数据块",
//   CANN 8.x Ascend C best practices) says copies of 16 KB or more reach near-peak bandwidth; with
//   57 cycles of set-up a 16 KB copy at 32 bytes/cycle runs at 90% of peak (16384/32/9 = 57).
// - GM read latency: the data of a GM->UB copy lands 900 cycles (500 ns at 1.8 GHz) after MTE2 has
//   issued it, and MTE2 meanwhile takes the next copy. Assumption: the order of an HBM round trip
//   on other accelerators; no Ascend figure is public. It is what double buffering hides: with one
//   buffer per queue every tile waits for its copy to land.
// - GM addresses not 512-byte aligned (relative to the tensor start) move at 70% of the rate: the
//   same guide ("GM地址尽量512B对齐") measured 32-byte-aligned copies at 70% of 512-byte-aligned
//   ones in the worst case, on Atlas A2 only.
// - UB to UB copies: on the vector pipe, one 256-byte repeat a cycle (assumption: the width of the
//   vector unit's UB port).
// - Scalar GM access (GlobalTensor GetValue/SetValue): 200 cycles each, an uncached GM round trip
//   through the scalar unit. Assumption (the order of a DRAM access at 1.8 GHz); the AscendC
//   guides tell kernels to avoid scalar GM access.
// - Scalar UB access (LocalTensor GetValue/SetValue/operator()): 4 cycles each on the S pipe, one at
//   a time, after the buffer's data has landed. Assumption: a scalar load or store plus the loop
//   around it. A kernel cannot dodge these charges with raw pointers in a checked launch (the
//   search's): the GM and UB addresses it is given there are inaccessible (sim_runtime.cpp).
// - Launch: 3 us fixed, then the task scheduler starts one block every 40 ns. Assumption, sized to
//   torch_npu's microsecond-order launch overhead; the best-practice guide "设置合适的核数" says the
//   start-up ("header") overhead grows with the number of cores started, which the per-block
//   dispatch reproduces (and which makes few cores win for tiny inputs).
//
// The cube core (issue 16; MTE1: L1->L0A/L0B, M: Mmad, FIX: L0C->GM):
// - Mmad: one fractal multiply a cycle, 16 x 16 x k0 MACs, with k0 = 32 bytes of the input type (16 half/bfloat16,
//   32 int8, 8 float). Documented for half: the Ascend910B2 platform config's [AICoreSpec] cube_m_size=16,
//   cube_n_size=16, cube_k_size=16 as quoted publicly; int8 with k0=32 from the same file's int8 entry. float at k0=8
//   (half the half rate in MACs) is an assumption: no public figure. Plus 20 cycles issue a Mmad (assumption, as the
//   vector issue).
// - MTE1 (LoadData, L1->BT): 512 bytes a cycle ([AICoreMemoryRates] l1_to_l0_a_rate=512 and l1_to_l0_b_rate=512 of
//   the Ascend910B platform configs as quoted publicly) plus 20 cycles set-up (assumption).
// - FIX (Fixpipe, L0C->GM): the GM write rate of one core, as a DataCopy to GM (assumption: the Fixpipe's own rate is
//   not public, and its output goes to GM through the same port), set-up included.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "launch_abi.h"
#include "op_table.h"

namespace ascendc_sim {

enum PipeIndex { kPipeMte2 = 0, kPipeV = 1, kPipeMte3 = 2, kPipeS = 3, kPipeMte1 = 4, kPipeM = 5, kPipeFix = 6 };

struct CostModel {
    static constexpr double kVectorIssueCycles = 10.0;
    static constexpr double kSimpleCyclesPerRepeat = 1.0;
    static constexpr double kLongCyclesPerRepeat = 4.0;
    static constexpr double kReduceCyclesPerRepeat = 2.0;
    static constexpr double kReduceCyclesPerLevel = 8.0;
    static constexpr double kCopySetupCycles = 57.0;
    static constexpr double kUnalignedGmRate = 0.7;
    static constexpr double kGmReadLatencyCycles = 900.0;
    static constexpr uint64_t kGmAlignBytes = 512;
    static constexpr double kUbCopyBytesPerCycle = 256.0;
    static constexpr double kScalarGmCycles = 200.0;
    static constexpr double kScalarUbCycles = 4.0;
    static constexpr double kLaunchNs = 3000.0;
    static constexpr double kBlockDispatchNs = 40.0;

    static double cycles_to_ns(double cycles, const SimSocProfile& soc) { return cycles / soc.clock_ghz; }

    // The profile a launch runs with: one core's GM rate is capped at its share of the chip's HBM
    // bandwidth when `resident` cores stream at once.
    static SimSocProfile launch_profile(const SimSocProfile& soc, uint32_t resident) {
        SimSocProfile p = soc;
        double share = soc.hbm_bytes_per_ns / std::max<uint32_t>(resident, 1);
        p.core_gm_bytes_per_ns = std::min(soc.core_gm_bytes_per_ns, share);
        return p;
    }

    static double vector_ns(OpId op, uint64_t repeats, const SimSocProfile& soc) {
        double per_repeat = kSimpleCyclesPerRepeat;
        CostClass cls = op_cost_class(op);
        if (cls == CostClass::Long) per_repeat = kLongCyclesPerRepeat;
        if (cls == CostClass::Reduce) per_repeat = kReduceCyclesPerRepeat;
        double cycles = kVectorIssueCycles + per_repeat * static_cast<double>(repeats);
        if (cls == CostClass::Reduce && repeats > 1)
            cycles += kReduceCyclesPerLevel * std::log2(static_cast<double>(repeats));
        return cycles_to_ns(cycles, soc);
    }

    // One GM<->UB copy of `bytes` (MTE2 reads, MTE3 writes); `gm_aligned`: the GM address is a
    // multiple of 512 bytes from the tensor's start.
    static double gm_copy_ns(uint64_t bytes, bool to_gm, const SimSocProfile& soc, bool gm_aligned = true) {
        (void)to_gm;  // MTE2 and MTE3 have the same rate (one ddr_rate in the platform config)
        double rate = soc.core_gm_bytes_per_ns * (gm_aligned || soc.arch != 0 ? 1.0 : kUnalignedGmRate);
        return cycles_to_ns(kCopySetupCycles, soc) + static_cast<double>(bytes) / rate;
    }

    static double ub_copy_ns(uint64_t bytes, const SimSocProfile& soc) {
        return cycles_to_ns(kVectorIssueCycles + std::ceil(static_cast<double>(bytes) / kUbCopyBytesPerCycle), soc);
    }

    // How long after MTE2 has issued a GM read its data is in UB; the pipe takes the next copy meanwhile.
    static double gm_read_latency_ns(const SimSocProfile& soc) { return cycles_to_ns(kGmReadLatencyCycles, soc); }

    static double scalar_gm_ns(const SimSocProfile& soc) { return cycles_to_ns(kScalarGmCycles, soc); }

    // ---- the cube core ----
    static constexpr double kCubeIssueCycles = 20.0;
    static constexpr double kMte1BytesPerCycle = 512.0;
    static constexpr double kMte1SetupCycles = 20.0;

    // One Mmad of m_blocks x n_blocks x k_blocks fractals (16 x 16 x k0 each), one fractal a cycle.
    static double mmad_ns(uint64_t m_blocks, uint64_t n_blocks, uint64_t k_blocks, const SimSocProfile& soc) {
        return cycles_to_ns(kCubeIssueCycles + static_cast<double>(m_blocks * n_blocks * k_blocks), soc);
    }
    // One L1 -> L0A/L0B/BT load of `bytes`.
    static double mte1_ns(uint64_t bytes, const SimSocProfile& soc) {
        return cycles_to_ns(kMte1SetupCycles + std::ceil(static_cast<double>(bytes) / kMte1BytesPerCycle), soc);
    }
    // One Fixpipe (L0C -> GM) writing `bytes`.
    static double fixpipe_ns(uint64_t bytes, const SimSocProfile& soc) { return gm_copy_ns(bytes, true, soc); }
    static double scalar_ub_ns(const SimSocProfile& soc) { return cycles_to_ns(kScalarUbCycles, soc); }
};

}  // namespace ascendc_sim
