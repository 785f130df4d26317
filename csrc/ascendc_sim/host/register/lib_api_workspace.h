// The system workspace the AscendC library reserves at the start of an operator's workspace: what the host's
// PlatformAscendC::GetLibApiWorkSpaceSize reports and what the kernel's GetUserWorkspace skips
// (sim/op_project.h). The documentation gives no number; 16 MiB is assumed.
#pragma once
#include <cstdint>

namespace ascendgen_host {
constexpr uint32_t kLibApiWorkspaceBytes = 16u * 1024u * 1024u;
}  // namespace ascendgen_host
