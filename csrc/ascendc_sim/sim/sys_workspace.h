// The system workspace pointer of the high-level APIs (GetSysWorkSpacePtr.md, SetSysWorkSpace.md): what a kernel hands
// to REGIST_MATMUL_OBJ. Kernel-launch code sets it with SetSysWorkspace(workspace) and tests it for null; operator
// projects get it from the framework. The simulator's Matmul does not use it, so it is any non-null GM address until
// SetSysWorkspace names one (assumption: the framework always provides one; a kernel that dereferences the placeholder
// is told it lies outside every tensor).
#pragma once
#include "core.h"

namespace ascendc_sim {

inline thread_local uint64_t t_sys_workspace_serial = 0;  // the launch the pointer was set in
inline thread_local uint8_t* t_sys_workspace = nullptr;

inline uint8_t* sys_workspace_placeholder() { return reinterpret_cast<uint8_t*>(uintptr_t(1) << 44); }

}  // namespace ascendc_sim

namespace AscendC {

inline void SetSysWorkspace(GM_ADDR workspace) {
    if (ascendc_sim::t_core == nullptr) return;
    ascendc_sim::t_sys_workspace = workspace;
    ascendc_sim::t_sys_workspace_serial = ascendc_sim::t_core->launch->serial;
}
inline void SetSysWorkSpace(GM_ADDR workspace) { SetSysWorkspace(workspace); }

inline GM_ADDR GetSysWorkSpacePtr() {
    const ascendc_sim::CoreState* c = ascendc_sim::t_core;
    bool set_here = c != nullptr && ascendc_sim::t_sys_workspace_serial == c->launch->serial &&
                    ascendc_sim::t_sys_workspace != nullptr;
    return set_here ? ascendc_sim::t_sys_workspace : ascendc_sim::sys_workspace_placeholder();
}

}  // namespace AscendC

using AscendC::GetSysWorkSpacePtr;
using AscendC::SetSysWorkspace;
using AscendC::SetSysWorkSpace;
