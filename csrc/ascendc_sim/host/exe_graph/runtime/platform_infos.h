// fe::PlatFormInfos: the SoC a TilingContext's GetPlatformInfo() describes. The simulator's driver fills it from
// torch_ascendgen/targets/soc.py (the one source of core counts and UB sizes); platform_ascendc reads it.
#pragma once
#include <cstdint>
#include <string>

namespace fe {

struct PlatFormInfos {
    std::string soc_name;   // "Ascend910B2"
    int32_t arch = 0;       // 0: dav-2201 (Atlas A2/A3, separated AIC/AIV), 1: dav-m200 (310P, coupled)
    uint32_t vector_cores = 0;
    uint32_t cube_cores = 0;
    uint64_t ub_bytes = 0;
    // The cube core's buffers (0: not given by the caller): L1, L0A, L0B, L0C.
    uint64_t l1_bytes = 0;
    uint64_t l0a_bytes = 0;
    uint64_t l0b_bytes = 0;
    uint64_t l0c_bytes = 0;
};

}  // namespace fe
