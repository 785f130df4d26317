// The 系统变量访问 chapter beyond GetBlockIdx/GetBlockNum/GetSubBlockIdx (pipe.h): GetSystemCycle,
// GetArchVersion, GetDataBlockSizeInBytes, GetSubBlockNum, GetProgramCounter (InitSocState: static_tensor.h).
//
// From asc-devkit v8.5.0 GetSystemCycle(ISASI).md, GetArchVersion.md, GetDataBlockSizeInBytes.md,
// GetSubBlockNum(ISASI).md, GetProgramCounter(ISASI).md, InitSocState.md:
// - GetSystemCycle runs on the S pipe and counts at 50 MHz: here the S pipe's time in the cost model,
//   so PipeBarrier<PIPE_ALL> before it includes the other pipes' work (the page's example).
// - GetArchVersion: 0x220 on Atlas A2/A3 (the page's table); 0x200 on 310P (assumption: its arch is
//   dav-m200; the v8.5.0 table lists A2/A3 only).
// - GetDataBlockSizeInBytes: 32 on every SoC the simulator models.
// - GetSubBlockNum: the vector cores per block of the launch's kernel type on AIV (1, or 2 for
//   KERNEL_TYPE_MIX_AIC_1_2: kernel_type.h); 1 on AIC for every kernel type (GetSubBlockNum(ISASI).md table 1, also
//   MIX_AIC_1_2; GetTaskRatio.md's table agrees).
// - GetProgramCounter: the simulator has no program counter; it returns a stand-in that differs
//   from line to line of the kernel (0x1000 + 4 * line), never a real address.
// - get_block_idx()/get_block_num(): the NPU compiler's builtins that GetBlockIdx/GetBlockNum wrap, which
//   kernels also call directly (ms_custom_ops's); global, as the compiler's.
#pragma once
#include "vector_ops.h"

namespace AscendC {

// Cycles at 50 MHz of the S pipe's time in the cost model.
inline int64_t GetSystemCycle(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    return static_cast<int64_t>(c.pipe_free[ascendc_sim::kPipeS] * 0.05);
}

inline void GetArchVersion(uint32_t& coreVersion, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    coreVersion = ascendc_sim::core(loc).soc().arch == 1 ? 0x200u : 0x220u;
}

constexpr int16_t GetDataBlockSizeInBytes() { return static_cast<int16_t>(ascendc_sim::kBlockBytes); }

inline int64_t GetSubBlockNum(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    return c.cube ? 1 : c.launch->shape.sub_blocks;
}

inline int64_t GetProgramCounter(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::core(loc);
    return 0x1000 + 4 * static_cast<int64_t>(loc.line);
}

}  // namespace AscendC

inline int64_t get_block_idx(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) { return AscendC::GetBlockIdx(loc); }
inline int64_t get_block_num(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) { return AscendC::GetBlockNum(loc); }
