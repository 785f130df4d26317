// ge::DataType, ge::Format and ge::graphStatus of the operator-project host API (clean-room, from the
// documented enumerations): what an op_host file names when it declares an OpDef or reads a tensor's dtype.
#pragma once
#include <cstdint>

namespace ge {

enum DataType : int32_t {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_STRING = 13,
    DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17,
    DT_BF16 = 27,
    DT_UNDEFINED = 28,
};

enum Format : int32_t {
    FORMAT_NCHW = 0,
    FORMAT_NHWC = 1,
    FORMAT_ND = 2,
    FORMAT_NC1HWC0 = 3,
    FORMAT_FRACTAL_Z = 4,
    FORMAT_HWCN = 16,
    FORMAT_FRACTAL_NZ = 29,
    FORMAT_NCDHW = 30,
    FORMAT_NDHWC = 27,
    FORMAT_RESERVED = 40,
};

using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649;

// Bytes of one element; 0 for types without a fixed element size.
inline int GetSizeByDataType(DataType type) {
    switch (type) {
        case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
        case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: return 2;
        case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
        case DT_COMPLEX128: return 16;
        default: return 0;
    }
}

}  // namespace ge
