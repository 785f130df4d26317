// STUB for tests (tests/sim/test_npu_op_project.py): fe::PlatformInfoManager as the NPU op-host driver calls it;
// knows the SoC names starting "Ascend" and no other. Not CANN's header.
#pragma once
#include <string>

namespace fe {
struct PlatFormInfos {
    std::string soc;
};
struct OptionalInfos {};

class PlatformInfoManager {
public:
    static PlatformInfoManager& Instance() {
        static PlatformInfoManager manager;
        return manager;
    }
    unsigned InitializePlatformInfo() { return 0; }
    unsigned GetPlatformInfos(const std::string& soc, PlatFormInfos& infos, OptionalInfos&) {
        if (soc.rfind("Ascend", 0) != 0) return 1;
        infos.soc = soc;
        return 0;
    }
};
}  // namespace fe
