// Fill (Fill.md, v8.5.0, 张量变换): sets size elements of a GlobalTensor to value. The page gives it
// the types, units and constraints of InitGlobalMemory (before any InitBuffer; MTE3 -> MTE2 sync and
// SyncAll across cores are the kernel's job), so it runs InitGlobalMemory, whose diagnostics name it.
#pragma once
#include "data_move.h"

namespace AscendC {

template <typename T>
void Fill(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value,
          ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    InitGlobalMemory(gmWorkspaceAddr, size, value, loc);
}

}  // namespace AscendC
