// torch_ascendgen: what CANN's operator build gives an op_kernel/<op>.cpp, for a kernel bisheng compiles
// outside msopgen (torch_ascendgen/targets/npu/op_project.py). The op's tiling header is included after this
// file, in place of register/tilingdata_base.h, so its macros expand to plain structs here.
//
// - The TilingData macros ("TilingData结构定义", hiascend.com .../ascendcopapi/atlasascendc_api_07_1005.html):
//   one struct per BEGIN_TILING_DATA_DEF, its fields in declaration order. The host's TilingDef pads every
//   field to its own alignment ("CheckAlignAndGenPlaceHolder ... 检查Tiling结构体中成员变量是否满足字节对齐要求,
//   并对不对齐的变量进行补齐", same page), which is what a C++ compiler does for these members: the plain
//   struct has the host's field offsets (tests/sim/test_npu_op_project.py checks them against the simulator's
//   host-side layout).
// - GET_TILING_DATA / GET_TILING_DATA_WITH_STRUCT / TILING_KEY_IS: CANN defines them only for operator
//   projects ("暂不支持Kernel直调工程", atlasascendc_api_07_0214/0215/0217.html), so they are defined here:
//   GET_TILING_DATA copies the registered struct's bytes from GM (the launcher's kernel type first, as
//   npu_launcher.cpp does), TILING_KEY_IS compares with TILING_KEY_VAR, which the build defines: the kernel
//   is built once per key, as CANN's op build does.
#pragma once
#include <cstdint>

#ifdef ASCENDGEN_KERNEL_TYPE
#define ASCENDGEN_DECLARE_KERNEL_TYPE { KERNEL_TASK_TYPE_DEFAULT(ASCENDGEN_KERNEL_TYPE); }
#else
#define ASCENDGEN_DECLARE_KERNEL_TYPE
#endif

#define BEGIN_TILING_DATA_DEF(class_name) struct class_name {
#define TILING_DATA_FIELD_DEF(data_type, field_name) data_type field_name;
#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name) arr_type field_name[arr_size];
#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name) struct_type field_name;
#define END_TILING_DATA_DEF }

// REGISTER_TILING_DATA_CLASS(op_type, class_name): GET_TILING_DATA in op_type's kernel reads a class_name.
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) \
    struct ascendgen_registered_tiling_##op_type {      \
        using type = class_name;                        \
    };

template <typename T>
__aicore__ inline void AscendgenCopyOpTiling(T* dst, GM_ADDR src)
{
    uint8_t* bytes = reinterpret_cast<uint8_t*>(dst);
    for (uint32_t i = 0; i < sizeof(T); ++i) {
        bytes[i] = src[i];
    }
}

#undef GET_TILING_DATA
#undef GET_TILING_DATA_WITH_STRUCT
#undef TILING_KEY_IS
// ASCENDGEN_OP_TILING_TYPE: the struct registered for the op (op_project.py defines it after the tiling header).
#define GET_TILING_DATA(name, tiling) \
    ASCENDGEN_DECLARE_KERNEL_TYPE ASCENDGEN_OP_TILING_TYPE name; AscendgenCopyOpTiling(&name, tiling)
#define GET_TILING_DATA_WITH_STRUCT(struct_name, name, tiling) \
    ASCENDGEN_DECLARE_KERNEL_TYPE struct_name name; AscendgenCopyOpTiling(&name, tiling)
#define TILING_KEY_IS(key) (static_cast<uint64_t>(TILING_KEY_VAR) == static_cast<uint64_t>(key))
