// torch_ascendgen NPU launcher, written by torch_ascendgen/npu_build.py: bisheng compiles it together
// with the kernel source it includes, into one library the NPU runtime dlopens.
#include <cstdint>
#include "kernel_operator.h"

#ifdef ASCENDGEN_KERNEL_TYPE
#define ASCENDGEN_DECLARE_KERNEL_TYPE { KERNEL_TASK_TYPE_DEFAULT(ASCENDGEN_KERNEL_TYPE); }
#else
#define ASCENDGEN_DECLARE_KERNEL_TYPE
#endif

#ifndef GET_TILING_DATA
template <typename T>
__aicore__ inline void AscendgenCopyTiling(T* dst, GM_ADDR src)
{
    uint8_t* bytes = reinterpret_cast<uint8_t*>(dst);
    for (uint32_t i = 0; i < sizeof(T); ++i) {
        bytes[i] = src[i];
    }
}
#define GET_TILING_DATA(name, tiling) \
    ASCENDGEN_DECLARE_KERNEL_TYPE TilingData name; AscendgenCopyTiling(&name, tiling)
#endif

#include "@kernel_file@"

#ifndef ASCENDGEN_LAUNCH
#define ASCENDGEN_LAUNCH(kernel, blocks, stream) kernel<<<blocks, nullptr, stream>>>
#endif

#define ASCENDGEN_EXPORT extern "C" __attribute__((visibility("default")))

ASCENDGEN_EXPORT int32_t ascendgen_npu_abi_version()
{
    return @abi_version@;
}

ASCENDGEN_EXPORT uint32_t ascendgen_tiling_size()
{
    return static_cast<uint32_t>(sizeof(TilingData));
}

ASCENDGEN_EXPORT uint32_t ascendgen_gm_arg_count()
{
    return @gm_args@;
}

// gm_args: @gm_args@ device addresses, the inputs, the outputs, the workspace and the tiling, in the
// kernel's parameter order. Returns @ok@ once launched on `stream`; @null_args@ (null gm_args) and
// @no_blocks@ (zero blocks) launch nothing.
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
