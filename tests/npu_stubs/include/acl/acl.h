// Stand-in for CANN's acl/acl.h, declaring only what csrc/runtime/npu_runtime.cpp uses, so that
// tests/test_npu_runtime.py can compile the runtime with g++ (-c, never linked) where CANN is absent.
// Declarations only: a call that does not match one of these fails the test.
//
// Followed: the AscendCL application development API reference (aclcppdevg: aclrtMalloc, aclrtMemcpy,
// aclrtFree, aclrtGetDevice, aclrtSynchronizeDevice, aclGetRecentErrMsg, aclError, aclrtMemcpyKind,
// aclrtMemMallocPolicy) and the prototypes as torch_npu ships them in
// third_party/acl/inc/acl/{acl_base.h,acl_rt.h,acl.h} (Ascend/pytorch v2.8.0-7.3.0). Enumerator values
// are the real ones (their position in the documented enums); the other enumerators are left out.
#pragma once

#include <cstddef>
#include <cstdint>

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;               // acl_base.h
static const int ACL_SUCCESS = 0;   // acl_base.h
typedef void* aclrtStream;          // acl_base.h

typedef enum aclrtMemcpyKind {      // acl_rt.h: HOST_TO_HOST, HOST_TO_DEVICE, DEVICE_TO_HOST, ...
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy { // acl_rt.h: HUGE_FIRST, HUGE_ONLY, NORMAL_ONLY, ...
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
} aclrtMemMallocPolicy;

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind);
aclError aclrtFree(void* devPtr);
aclError aclrtGetDevice(int32_t* deviceId);
aclError aclrtSynchronizeDevice(void);
const char* aclGetRecentErrMsg();   // acl.h

#ifdef __cplusplus
}
#endif
