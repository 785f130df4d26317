// STUB for tests (tests/sim/test_npu_op_project.py): the few ge:: names the NPU op-host driver and a stand-in
// op_host use, so g++ can build the driver without CANN. Not CANN's header; values as the documented ge enums.
#pragma once
#include <cstdint>

namespace ge {
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
enum DataType : int32_t { DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_INT64 = 9, DT_BF16 = 27 };
enum Format : int32_t { FORMAT_ND = 2 };
}  // namespace ge
