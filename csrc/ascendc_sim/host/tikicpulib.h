// A clean-room stand-in for the CPU-debug API of kernel-launch samples (the ASCENDC_CPU_DEBUG branch of
// main.cpp), written from the AscendC reference pages ICPU_RUN_KF, GmAlloc, GmFree and SetKernelMode:
// GmAlloc'd memory is GM, and ICPU_RUN_KF runs every block of the kernel through the simulator at once.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../sim/types.h"
#include "sim_host/kernel_launch.h"

enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE };

namespace AscendC {
using ::KernelMode;

// Shared memory the kernel and the host both reach (GmAlloc.md); every argument of ICPU_RUN_KF but the
// kernel and blockDim must come from here.
inline void* GmAlloc(size_t size, ascendc_sim_host::Site site = ascendc_sim_host::Site::here()) {
    if (size == 0) {
        ascendc_sim_host::report_misuse(site, "GmAlloc", "size 0: ask for the bytes the kernel reads or writes");
        return nullptr;
    }
    return ascendc_sim_host::allocate(size, ascendc_sim_host::MemoryKind::Gm);
}

inline void GmFree(void* ptr, ascendc_sim_host::Site site = ascendc_sim_host::Site::here()) {
    ascendc_sim_host::release(ptr, ascendc_sim_host::MemoryKind::Gm, "GmFree", site);
}

// Vector kernels run as AIV blocks whatever the mode; the simulator has no cube unit.
inline void SetKernelMode(KernelMode mode) { (void)mode; }
}  // namespace AscendC

#define ICPU_RUN_KF(func, blkdim, ...)                                                                  \
    ::ascendc_sim_host::run_now(::ascendc_sim_host::make_launch(func, #func, uint32_t(blkdim),          \
                                                                ::ascendc_sim_host::Site::here(), ##__VA_ARGS__))
