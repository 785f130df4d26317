// Stand-in for torch_npu's torch_npu/csrc/framework/OpCommand.h (Ascend/pytorch, BSD-3-Clause),
// declaring only what csrc/runtime/npu_runtime.cpp uses; compiled with g++ -c by
// tests/test_npu_runtime.py. Declarations only.
//
// Followed: OpCommand.h, identical in v2.1.0-6.0.0 through v2.12.0-26.1.0 and master:
//     static void RunOpApi(const string& op_name, PROC_FUNC func, bool sync = false);
// with `string` = std::string (framework/utils/NpuUtils.h: using std::string) and
// framework/OpParamMaker.h: namespace at_npu::native { using PROC_FUNC = std::function<int()>; }.
// The function's int is an aclError: non-zero is reported by torch_npu (OpParamMaker.cpp InnerRunOpApi).
#pragma once

#include <functional>
#include <string>

namespace at_npu {
namespace native {

using PROC_FUNC = std::function<int()>;

class OpCommand {
public:
    static void RunOpApi(const std::string& op_name, PROC_FUNC func, bool sync = false);
};

}  // namespace native
}  // namespace at_npu
