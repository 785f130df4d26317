// Stand-in for torch_npu's torch_npu/csrc/core/npu/NPUStream.h (Ascend/pytorch, BSD-3-Clause),
// declaring only what csrc/runtime/npu_runtime.cpp uses; compiled with g++ -c by
// tests/test_npu_runtime.py. Declarations only.
//
// Followed: NPUStream.h, the same in v2.1.0-6.0.0 through v2.12.0-26.1.0 and master:
//     C10_NPU_API NPUStream getCurrentNPUStream(c10::DeviceIndex device_index = -1);
//     aclrtStream NPUStream::stream(const bool need_empty) const;   // false: the queue is not drained
// The real header reaches acl.h as "third_party/acl/inc/acl/acl.h" under torch_npu's include dir.
#pragma once

#include <c10/core/Device.h>

#include <acl/acl.h>

namespace c10_npu {

class NPUStream {
public:
    aclrtStream stream(const bool need_empty) const;
};

NPUStream getCurrentNPUStream(c10::DeviceIndex device_index = -1);

}  // namespace c10_npu
