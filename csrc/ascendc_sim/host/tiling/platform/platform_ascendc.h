// platform_ascendc::PlatformAscendC and PlatformAscendCManager (clean-room, from the documented host API): the
// SoC facts a TilingFunc reads. Core counts and the UB size come from the simulated SoC's profile
// (torch_ascendgen/targets/soc.py). Facts the profile does not hold (L2/HBM sizes, bandwidths) are
// reported as not simulated rather than guessed.
#pragma once
#include <cstdint>
#include <string>

#include "exe_graph/runtime/platform_infos.h"
#include "register/host_error.h"
#include "register/lib_api_workspace.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

enum class SocVersion { ASCEND910 = 0, ASCEND910B, ASCEND910_93, ASCEND310P, ASCEND310B, ASCEND610LITE, RESERVED_VERSION };

class PlatformAscendC {
public:
    PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos* infos) : infos_(infos) {
        if (infos_ == nullptr) ascendgen_host::host_fail("PlatformAscendC(nullptr): pass context->GetPlatformInfo()");
    }

    // Vector cores on the separated architecture (Atlas A2/A3); AI cores on the coupled one (310P).
    uint32_t GetCoreNum() const { return infos().vector_cores; }
    uint32_t GetCoreNumAiv() const { return infos().vector_cores; }
    uint32_t GetCoreNumAic() const { return infos().cube_cores; }
    uint32_t GetCoreNumVector() const { return infos().vector_cores; }

    void GetCoreMemSize(CoreMemType type, uint64_t& size) const {
        const fe::PlatFormInfos& p = infos();
        size = type == CoreMemType::UB     ? p.ub_bytes
               : type == CoreMemType::L1   ? p.l1_bytes
               : type == CoreMemType::L0_A ? p.l0a_bytes
               : type == CoreMemType::L0_B ? p.l0b_bytes
               : type == CoreMemType::L0_C ? p.l0c_bytes
                                           : 0;
        if (size == 0)
            ascendgen_host::host_fail("PlatformAscendC::GetCoreMemSize: only UB, L1, L0_A, L0_B and L0_C are "
                                      "simulated (the SoC profile holds no L2/HBM sizes)");
    }
    void GetCoreMemBw(CoreMemType, uint64_t&) const {
        ascendgen_host::host_fail("PlatformAscendC::GetCoreMemBw is not simulated");
    }

    SocVersion GetSocVersion() const {
        const std::string& name = infos().soc_name;
        if (name.rfind("Ascend910B", 0) == 0) return SocVersion::ASCEND910B;
        if (name.rfind("Ascend910_93", 0) == 0) return SocVersion::ASCEND910_93;
        if (name.rfind("Ascend310P", 0) == 0) return SocVersion::ASCEND310P;
        ascendgen_host::host_fail("PlatformAscendC::GetSocVersion: no SocVersion for " + name);
    }

    uint32_t GetLibApiWorkSpaceSize() const { return ascendgen_host::kLibApiWorkspaceBytes; }

    // The number of AIC+AIV groups for sliceNum slices: sliceNum / (aivCoreNum / aicCoreNum), rounded up (the
    // page's example: 40 vector + 20 cube cores, 40 slices -> 20); sliceNum when either count is 0 (a vector-only
    // or cube-only op). The simulator launches that many vector blocks: it does not model AIC+AIV groups.
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        if (aicCoreNum == 0 || aivCoreNum == 0) return sliceNum;
        uint32_t ratio = aivCoreNum / aicCoreNum;
        if (ratio == 0)
            ascendgen_host::host_fail("PlatformAscendC::CalcTschBlockDim: aivCoreNum " + std::to_string(aivCoreNum) +
                                      " is smaller than aicCoreNum " + std::to_string(aicCoreNum));
        return (sliceNum + ratio - 1) / ratio;
    }
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        return CalcTschBlockDim(sliceNum, aicCoreNum, aivCoreNum);
    }

private:
    const fe::PlatFormInfos& infos() const {
        if (infos_ == nullptr) ascendgen_host::host_fail("a default-constructed PlatformAscendC has no SoC");
        return *infos_;
    }

    fe::PlatFormInfos* infos_ = nullptr;
};

// The SoC of the current call (set by the simulator's driver before it runs the op's host code).
inline fe::PlatFormInfos*& current_platform() {
    static fe::PlatFormInfos* infos = nullptr;
    return infos;
}

class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance() {
        static PlatformAscendC instance;
        instance = PlatformAscendC(current_platform());
        return &instance;
    }
    static PlatformAscendC* GetInstance(const char*) { return GetInstance(); }
};

}  // namespace platform_ascendc
