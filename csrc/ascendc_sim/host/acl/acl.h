// A clean-room CPU stand-in for the part of the AscendCL runtime API that kernel-launch samples use,
// written from the public AscendCL API reference (aclError codes, aclrtMalloc, aclrtMemcpy, streams).
// One simulated device: device memory is host memory the simulator checks as GM, and a stream runs its
// launches when it is synchronised (launches are asynchronous on the NPU). Misuse the documentation
// rules out (size 0, a copy past an allocation or into a freed one, a wrong copy kind, a foreign free)
// returns the documented error code and is reported on stderr with the host file and line.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../sim_host/runtime.h"

typedef int aclError;
typedef void* aclrtStream;
typedef void* aclrtContext;
typedef void* aclrtEvent;
typedef uint16_t aclFloat16;

static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_RT_PARAM_INVALID = 107000;
static const int ACL_ERROR_RT_INVALID_DEVICEID = 107001;
static const int ACL_ERROR_RT_CONTEXT_NULL = 107002;
static const int ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;
static const int ACL_ERROR_RT_AICORE_EXCEPTION = 507015;

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEM_MALLOC_HUGE_ONLY,
    ACL_MEM_MALLOC_NORMAL_ONLY,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
} aclrtMemMallocPolicy;

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEFAULT,  // the direction follows from the addresses
} aclrtMemcpyKind;

typedef enum aclrtRunMode { ACL_DEVICE, ACL_HOST } aclrtRunMode;

#define ASCENDC_SIM_HOST_SITE ascendc_sim_host::Site site = ascendc_sim_host::Site::here()

aclError aclInit(const char* configPath, ASCENDC_SIM_HOST_SITE);
aclError aclFinalize(ASCENDC_SIM_HOST_SITE);
const char* aclGetRecentErrMsg();

aclError aclrtSetDevice(int32_t deviceId, ASCENDC_SIM_HOST_SITE);
aclError aclrtResetDevice(int32_t deviceId, ASCENDC_SIM_HOST_SITE);
aclError aclrtGetDevice(int32_t* deviceId, ASCENDC_SIM_HOST_SITE);
aclError aclrtGetDeviceCount(uint32_t* count, ASCENDC_SIM_HOST_SITE);
aclError aclrtGetRunMode(aclrtRunMode* runMode, ASCENDC_SIM_HOST_SITE);
const char* aclrtGetSocName();
aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId, ASCENDC_SIM_HOST_SITE);
aclError aclrtDestroyContext(aclrtContext context, ASCENDC_SIM_HOST_SITE);
aclError aclrtSetCurrentContext(aclrtContext context, ASCENDC_SIM_HOST_SITE);
aclError aclrtSynchronizeDevice(ASCENDC_SIM_HOST_SITE);

aclError aclrtCreateStream(aclrtStream* stream, ASCENDC_SIM_HOST_SITE);
aclError aclrtDestroyStream(aclrtStream stream, ASCENDC_SIM_HOST_SITE);
aclError aclrtSynchronizeStream(aclrtStream stream, ASCENDC_SIM_HOST_SITE);

// Events time the simulated device: aclrtEventElapsedTime is the cost model's estimate of the NPU time of the
// launches between the two events, not the CPU time the simulation took.
aclError aclrtCreateEvent(aclrtEvent* event, ASCENDC_SIM_HOST_SITE);
aclError aclrtDestroyEvent(aclrtEvent event, ASCENDC_SIM_HOST_SITE);
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream, ASCENDC_SIM_HOST_SITE);
aclError aclrtSynchronizeEvent(aclrtEvent event, ASCENDC_SIM_HOST_SITE);
aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent, ASCENDC_SIM_HOST_SITE);

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy, ASCENDC_SIM_HOST_SITE);
aclError aclrtFree(void* devPtr, ASCENDC_SIM_HOST_SITE);
aclError aclrtMallocHost(void** hostPtr, size_t size, ASCENDC_SIM_HOST_SITE);
aclError aclrtFreeHost(void* hostPtr, ASCENDC_SIM_HOST_SITE);
aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                     ASCENDC_SIM_HOST_SITE);
// Queued on the stream like a launch: it happens when the stream is synchronised, in order with its launches.
aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream, ASCENDC_SIM_HOST_SITE);
aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count, ASCENDC_SIM_HOST_SITE);

aclFloat16 aclFloatToFloat16(float value);
float aclFloat16ToFloat(aclFloat16 value);
