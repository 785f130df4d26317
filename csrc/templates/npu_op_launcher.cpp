// torch_ascendgen NPU launcher of an operator project's kernel, written by torch_ascendgen/targets/npu/op_project.py:
// bisheng compiles it with the op's tiling header and op_kernel source (both included at their own paths, so
// diagnostics name op_host/... and op_kernel/... at their own lines) into one library per tiling key, which the
// NPU runtime dlopens like a contract kernel's (npu_launcher.cpp): the same exported ABI.
#include <cstdint>
#include "kernel_operator.h"
#include "npu_op_kernel.h"

// The matched dtype combination: DT_* values, DTYPE_<NAME>/ORIG_DTYPE_<NAME> per input and output.
@dtype_defines@
#define TILING_KEY_VAR @tiling_key@ULL

#include "@tiling_header@"
#define ASCENDGEN_OP_TILING_TYPE ::optiling::ascendgen_registered_tiling_@registered@::type
using namespace optiling;

#include "@kernel_file@"

#ifndef ASCENDGEN_LAUNCH
#define ASCENDGEN_LAUNCH(kernel, blocks, stream) kernel<<<blocks, nullptr, stream>>>
#endif

#define ASCENDGEN_EXPORT extern "C" __attribute__((visibility("default")))

ASCENDGEN_EXPORT int32_t ascendgen_npu_abi_version()
{
    return @abi_version@;
}

// The bytes GET_TILING_DATA reads: the registered struct (the host's TilingFunc may write fewer; the runtime
// pads the rest with zeros).
ASCENDGEN_EXPORT uint32_t ascendgen_tiling_size()
{
    return static_cast<uint32_t>(sizeof(ASCENDGEN_OP_TILING_TYPE));
}

ASCENDGEN_EXPORT uint32_t ascendgen_gm_arg_count()
{
    return @gm_args@;
}

ASCENDGEN_EXPORT uint64_t ascendgen_op_tiling_key()
{
    return TILING_KEY_VAR;
}

// The contract's tiling entry, which an operator project has none of: its TilingFunc runs in the op's host
// library (npu_op_host.cpp). Returns 0 blocks, so a runtime that calls it declines instead of launching.
ASCENDGEN_EXPORT uint32_t ascendgen_tiling(uint32_t, int32_t, const int32_t*, const int64_t*, void*, uint64_t*)
{
    return 0;
}

// gm_args: @gm_args@ device addresses, the inputs, the outputs, the workspace and the tiling, in the kernel's
// parameter order. Returns @ok@ once launched on `stream`; @null_args@ (null gm_args) and @no_blocks@ (zero
// blocks) launch nothing.
ASCENDGEN_EXPORT int32_t ascendgen_launch(uint32_t blocks, void* stream, void** gm_args)
{
    if (gm_args == nullptr) {
        return @null_args@;
    }
    if (blocks == 0) {
        return @no_blocks@;
    }
    ASCENDGEN_LAUNCH(@entry@, blocks, stream)(
@arguments@);
    return @ok@;
}
