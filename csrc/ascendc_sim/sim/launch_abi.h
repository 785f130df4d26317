// The C interface between a built kernel library and the runtime module that launches it.
// Plain structs only: both sides are compiled separately and may use different compilers.
#pragma once
#include <stdint.h>

#define ASCENDC_SIM_ABI_VERSION 5
#define ASCENDC_SIM_MAX_OPS 256  // room for the documented vector API (issue 14)
// MTE2 (GM->UB/L1), V (vector), MTE3 (UB->GM), S (scalar); the cube core's MTE1 (L1->L0A/L0B), M (Mmad) and FIX
// (Fixpipe, L0C->GM)
#define ASCENDC_SIM_PIPES 7

enum SimArgKind { SIM_ARG_POINTER = 0, SIM_ARG_INT = 1, SIM_ARG_UINT = 2, SIM_ARG_FLOAT = 3, SIM_ARG_STRUCT = 4 };

struct SimArgInfo {
    int32_t kind;
    int32_t size;
};

// One launcher-owned GM buffer (a tensor, the tiling bytes, the workspace). Every GM access must
// fall inside one region; regions are checked one by one, never as one merged allocation.
// `base` is the address the kernel sees; the simulator's API reads and writes the bytes at `alias`
// (0: at `base`). A checked launch hands the kernel addresses in inaccessible memory, so that only
// the API, which translates, reaches the data (sim_runtime.cpp).
struct SimRegion {
    uint64_t base;
    uint64_t bytes;
    int32_t arg_index;
    int32_t writable;
    uint64_t alias;
};

// Facts about the simulated SoC, filled from torch_ascendgen/soc.py.
struct SimSocProfile {
    char name[32];
    int32_t arch;  // 0: dav-2201 (Atlas A2/A3), 1: dav-m200 (310P)
    uint32_t ub_bytes;
    uint32_t vector_cores;
    uint32_t has_datacopy_pad;
    double clock_ghz;
    double hbm_bytes_per_ns;  // aggregate GM bandwidth of the chip
    double core_gm_bytes_per_ns;  // what one core's MTE2/MTE3 can move
    // The cube (AIC) side: cores and the bytes of its buffers (L1: A1/B1/C1, L0A: A2, L0B: B2, L0C: CO1, BT: C2,
    // FB: C2PIPE2GM).
    uint32_t cube_cores;
    uint32_t l1_bytes;
    uint32_t l0a_bytes;
    uint32_t l0b_bytes;
    uint32_t l0c_bytes;
    uint32_t bt_bytes;
    uint32_t fb_bytes;
};

struct SimLaunchRequest {
    uint32_t block_dim;
    const struct SimSocProfile* soc;
    void** arg_values;  // one pointer per kernel parameter, pointing at the value to pass
    const struct SimRegion* regions;
    uint32_t n_regions;
    uint64_t block_order_seed;  // 0: blocks are handed to cores in order; else a permutation seeded by it
    // Checked launches: inaccessible address space for the UB of each of the SoC's vector cores as the kernel sees it
    // (LocalTensor::GetPhyAddr), `ub_shadow_stride` bytes apart; 0: the real UB addresses.
    uint64_t ub_shadow;
    uint64_t ub_shadow_stride;
    // 1: the kernel was built as bisheng builds operator projects and kernel-launch projects, with --cce-auto-sync:
    // the compiler synchronises the scalar pipe with MTE2, MTE3 and V, so only MTE2/V/MTE3 hand-overs need queues
    // or flags. 0: every cross-pipe hand-over needs them (how torch_ascendgen builds its own kernels).
    uint32_t auto_sync;
};

struct SimCoreReport {
    uint64_t gm_to_ub_bytes;
    uint64_t ub_to_gm_bytes;
    uint64_t ub_to_ub_bytes;
    uint64_t gm_scalar_reads;
    uint64_t gm_scalar_writes;
    uint64_t data_copies;
    uint64_t op_instrs[ASCENDC_SIM_MAX_OPS];
    uint64_t op_repeats[ASCENDC_SIM_MAX_OPS];
    double pipe_busy_ns[ASCENDC_SIM_PIPES];
    double est_ns;  // this core's finishing time in the cost model
};

struct SimDiagnostic {
    char kind[40];
    char message[1536];
    char file[512];
    int32_t line;
    int32_t block;
};

struct SimLaunchResult {
    int32_t status;  // 0: ran clean; 1: a diagnostic was raised (see diag)
    struct SimDiagnostic diag;
    struct SimCoreReport* cores;  // caller-allocated, block_dim entries
    double est_ns;  // whole-launch estimate
    double est_launch_ns;
    double est_hbm_ns;  // lower bound from the chip's aggregate GM bandwidth
};
