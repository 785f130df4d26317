// Operator-project kernels (op_kernel/<op>.cpp of an msopgen project): GET_TILING_DATA reads the struct the
// op's tiling header registered (REGISTER_TILING_DATA_CLASS), TILING_KEY_IS compares with the launch's tiling
// key (the key the op's TilingFunc set), and the workspace helpers split the workspace into the system part
// and the user's. torch_ascendgen/targets/sim/op_project.py writes the prelude that includes this header,
// defines ASCENDGEN_OP_TILING_TYPE and the DTYPE_<NAME>/ORIG_DTYPE_<NAME> macros, and wraps the entry in
// KeyedEntry, whose extra last parameter carries the key.
#pragma once
#include <cstdint>
#include <utility>

#include "core.h"
#include "tiling.h"
#include "../host/register/lib_api_workspace.h"
#include "../host/register/tilingdata_base.h"

namespace ascendc_sim {

// The launch's tiling key, set by KeyedEntry as each block starts (blocks run on the library's worker threads).
inline thread_local bool op_tiling_key_set = false;
inline thread_local uint64_t op_tiling_key = 0;

inline bool tiling_key_is(uint64_t key, Loc loc) {
    if (!op_tiling_key_set)
        fail(Diag::BadArgument, loc,
             "TILING_KEY_IS(%llu): this launch carries no tiling key; TILING_KEY_IS works in operator-project kernels "
             "run through torch_ascendgen.targets.sim.op_project (the key is what TilingFunc passed to SetTilingKey)",
             (unsigned long long)key);
    return op_tiling_key == key;
}

template <size_t>
using GmRegion = uint8_t*;

template <typename Signature, typename Regions>
struct KeyedEntryOf;

// The operator entry with the tiling key as an extra parameter, then one GM pointer per tensor a DYNAMIC input
// lists (unused by the kernel: passing them makes the launch know their GM). What the simulator launches.
template <typename... Args, size_t... Region>
struct KeyedEntryOf<void(Args...), std::index_sequence<Region...>> {
    template <void (*Entry)(Args...)>
    static void call(Args... args, TilingKeyArg tiling_key, GmRegion<Region>...) {
        op_tiling_key = static_cast<uint64_t>(tiling_key);
        op_tiling_key_set = true;
        Entry(args...);
        op_tiling_key_set = false;
    }
};

template <typename Signature, size_t Regions = 0>
using KeyedEntry = KeyedEntryOf<Signature, std::make_index_sequence<Regions>>;

}  // namespace ascendc_sim

namespace AscendC {

// The user's part of the workspace: what follows the system workspace (GetLibApiWorkSpaceSize bytes).
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
    return workspace == nullptr ? nullptr : workspace + ::ascendgen_host::kLibApiWorkspaceBytes;
}
// SetSysWorkspace / SetSysWorkSpace: sim/sys_workspace.h (with GetSysWorkSpacePtr).

}  // namespace AscendC

using AscendC::GetUserWorkspace;
using AscendC::SetSysWorkspace;
using AscendC::SetSysWorkSpace;

#define TILING_KEY_IS(key) (::ascendc_sim::tiling_key_is(static_cast<uint64_t>(key), ::ascendc_sim::Loc::here()))

#undef GET_TILING_DATA
#define GET_TILING_DATA(name, tiling_gm) GET_TILING_DATA_WITH_STRUCT(ASCENDGEN_OP_TILING_TYPE, name, tiling_gm)
#define GET_TILING_DATA_MEMBER(type, member, name, tiling_gm)                                               \
    const auto name = ::ascendc_sim::load_tiling<type>(reinterpret_cast<const uint8_t*>(tiling_gm),         \
                                                       ::ascendc_sim::Loc::here()).member
