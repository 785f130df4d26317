// The kernel type of a launch (KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE), the cores it runs and what each core
// is told.
//
// From asc-devkit v8.5.0 设置Kernel类型.md (the page "设置Kernel类型"):
// - KERNEL_TASK_TYPE_DEFAULT(value) sets the kernel type of every tiling key; KERNEL_TASK_TYPE(key, value) that of
//   one tiling key and wins over the default. Keyed types without a default for the other keys are a compile error.
//   The macros are written inside the kernel entry (the page's examples put them after GET_TILING_DATA and inside
//   the TILING_KEY_IS branches): they are compile-time declarations, not statements that run.
// - On Atlas A2/A3: AIV_ONLY starts blockDim vector cores; MIX_AIV_1_0 blockDim vector cores (with hard sync);
//   AIC_ONLY and MIX_AIC_1_0 blockDim cube cores only; MIX_AIC_1_1 blockDim cube and blockDim vector cores;
//   MIX_AIC_1_2 blockDim cube and 2 * blockDim vector cores. AICORE and MIX_VECTOR_CORE are not supported there,
//   VECTORCORE and MIX_AICORE are reserved.
// The simulator runs every core of the type as its own thread: per block one cube core (AIC) in the types with cube
// cores, and 0, 1 or 2 vector cores (AIV). Each core runs the whole kernel entry; ASCEND_IS_AIC / ASCEND_IS_AIV
// (types.h) tell it which it is, and mixed kernels isolate the two sides with them (预定义宏 page,
// atlas_ascendc_10_10053). The AIC has L1, L0A/L0B/L0C, BT and FB and no UB, the AIV UB only (local_memory.h).
// Types with cube cores run at most as many blocks at once as the SoC has AI Cores (SimSocProfile::cube_cores).
// What the cores read:
// - GetSubBlockNum(ISASI).md, GetTaskRatio.md (table "在AIC和AIV上调用该接口的返回值"): on AIV 1 for AIV_ONLY,
//   MIX_AIC_1_1 and MIX_AIV_1_0, 2 for MIX_AIC_1_2; on AIC 1 in every type that has one. GetTaskRation (CANN 8.0
//   page atlasascendc_api_07_0181, the older name): the number of vector cores of a block, 2 in a fused operator, 1
//   for pure vector operators.
// - GetSubBlockIdx(ISASI).md: "获取AI Core上Vector核的ID", the vector core's index inside its AI Core: 0..N-1.
//   (The CANN 9.0 Matmul GetSubBlockIdx page, atlasascendc_api_07_0663, calls AscendC::GetSubBlockIdx a logical
//   id over all AI Cores; the basic API page and the kernels that split a block's rows by it say 0..N-1.) On AIC: 0
//   (assumption).
// - GetBlockIdx (CANN 9.0 page atlasascendc_api_07_0185, "同时启动AIC和AIV的场景"): on AIV in [0, 2 * numBlocks)
//   for AIC:AIV 1:2 and [0, numBlocks) for 1:1; on AIC in [0, numBlocks). The simulator numbers the vector cores of
//   block b as b * 2 + GetSubBlockIdx() (kernels recover the block as GetBlockIdx() / GetSubBlockNum()).
// - GetBlockNum.md: "当前任务配置的核数", the blockDim of the launch (numBlocks, which the 9.0 GetBlockIdx page
//   says GetBlockNum returns), in every type and on both kinds of core.
// Synchronisation between the kinds: CrossCoreSetFlag/WaitFlag mode 2 (cross_core.h) and SyncAll<false> (pipe.h);
// in launches with cube cores the GM race check follows the order they give (launch.cpp find_ordered_race).
// A kernel that declares no type (kernel-launch code, where bisheng decides the type from the code it compiles):
// the cube APIs and buffers at cube positions mark the library with ASCENDC_SIM_CUBE_API(), buffers at vector
// positions with ASCENDC_SIM_VECTOR_API() (below). On Atlas A2/A3 cube marks alone make it AIC_ONLY, cube and vector
// marks MIX_AIC_1_2 (assumption: 1:2 is the A2/A3 AI Core's ratio); neither, AIV_ONLY. On 310P (coupled AI Core)
// every core has UB and the cube memories, and ASCEND_IS_AIV is true.
#pragma once
#include <cstdint>

#include "diagnostics.h"

// The documented enum, unqualified as kernels write it (设置Kernel类型.md).
enum KernelMetaType {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
    KERNEL_TYPE_AICORE,
    KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE,
    KERNEL_TYPE_MIX_VECTOR_CORE,
    KERNEL_TYPE_MAX
};

namespace ascendc_sim {

// The tiling key parameter of an operator-project entry (op_project.h KeyedEntry): its own type, so that the
// launch finds the key among the entry's arguments (launch.h launch_tiling_key). Passed as a uint64_t.
enum class TilingKeyArg : uint64_t {};

// One KERNEL_TASK_TYPE(_DEFAULT) of the library: written by the macro into the section ascendc_sim_ktype at
// compile time (the macro sits in a function body, where nothing may register at run time).
struct KernelTypeRecord {
    int64_t key;  // -1: KERNEL_TASK_TYPE_DEFAULT
    int32_t type;
    int32_t line;
    const char* file;
};

// The kernel type a launch runs with: the vector cores per block and what the API tells them.
struct KernelShape {
    int32_t type = KERNEL_TYPE_AIV_ONLY;
    uint32_t sub_blocks = 1;  // vector cores per block (GetSubBlockNum, GetTaskRatio on AIV); 0 for AIC_ONLY
    bool with_cube = false;  // the type starts cube cores (one per block): a block needs a whole AI Core
    Loc declared;  // where the type was declared (file empty: not declared)
    bool inferred = false;  // not declared: taken from the APIs the library uses (launch.cpp infer_kernel_shape)
};

inline const char* kernel_type_name(int32_t type) {
    static const char* const names[] = {"KERNEL_TYPE_AIV_ONLY", "KERNEL_TYPE_AIC_ONLY", "KERNEL_TYPE_MIX_AIV_1_0",
                                        "KERNEL_TYPE_MIX_AIC_1_0", "KERNEL_TYPE_MIX_AIC_1_1", "KERNEL_TYPE_MIX_AIC_1_2",
                                        "KERNEL_TYPE_AICORE", "KERNEL_TYPE_VECTORCORE", "KERNEL_TYPE_MIX_AICORE",
                                        "KERNEL_TYPE_MIX_VECTOR_CORE"};
    return type >= 0 && type < KERNEL_TYPE_MAX ? names[type] : "an unknown kernel type";
}

}  // namespace ascendc_sim

// The record goes into the library's data through the assembler: a section attribute is ignored on template
// instantiations by GCC and conflicts between inline and plain functions, an asm block is emitted wherever the
// function is. `key` and `value` must be constants, as the NPU compiler requires.
#define ASCENDC_SIM_KERNEL_TYPE_RECORD(key, value)                                                   \
    __asm__(".pushsection ascendc_sim_ktype,\"aw\"\n\t.balign 8\n\t.quad %c0\n\t.long %c1\n\t.long %c2\n\t" \
            ".quad 1f\n\t.popsection\n\t.pushsection .rodata.ascendc_sim_ktype_file,\"a\"\n"           \
            "1:\t.asciz \"" __FILE__ "\"\n\t.popsection"                                              \
            :                                                                                         \
            : "i"(static_cast<int64_t>(key)), "i"(static_cast<int32_t>(value)), "i"(__LINE__))

// Which units the library's code uses, for a kernel that declares no type (launch.cpp infers it, as bisheng does
// from the code of kernel-launch builds): every cube API (Mmad, LoadData, Fixpipe, DataCopy to L1, Matmul ...) calls
// ASCENDC_SIM_CUBE_API() in its body, and a buffer at a vector position (pipe.h) ASCENDC_SIM_VECTOR_API(). Each
// call site that the compiler emits leaves a byte in the section; an API never used leaves none.
#define ASCENDC_SIM_UNIT_RECORD(section) __asm__(".pushsection " section ",\"aw\"\n\t.byte 1\n\t.popsection")
#define ASCENDC_SIM_CUBE_API() ASCENDC_SIM_UNIT_RECORD("ascendc_sim_cube")
#define ASCENDC_SIM_VECTOR_API() ASCENDC_SIM_UNIT_RECORD("ascendc_sim_vec")

#define KERNEL_TASK_TYPE_DEFAULT(value) ASCENDC_SIM_KERNEL_TYPE_RECORD(-1, value)
#define KERNEL_TASK_TYPE(key, value) ASCENDC_SIM_KERNEL_TYPE_RECORD(key, value)
