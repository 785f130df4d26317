/*
 * Host side of scale_template: scales a float and a half vector by 3 with the template kernel, then adds 0.5
 * to the float result with offset_custom through ACLRT_LAUNCH_KERNEL. Files: input/x_float.bin,
 * input/x_half.bin -> output/y_float.bin, output/y_half.bin.
 */
#include <cstdio>
#include <fstream>
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclrtlaunch_offset_custom.h"

extern void scale_float_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, float factor, uint32_t n);
extern void scale_half_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, float factor, uint32_t n);

#define CHECK_ACL(x)                                                                        \
    do {                                                                                    \
        aclError __ret = x;                                                                 \
        if (__ret != ACL_SUCCESS) {                                                         \
            std::cerr << __FILE__ << ":" << __LINE__ << " aclError:" << __ret << std::endl; \
            return 2;                                                                       \
        }                                                                                   \
    } while (0)

static std::vector<char> Load(const char *path)
{
    std::ifstream file(path, std::ios::binary);
    return std::vector<char>((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

static void Store(const char *path, const void *data, size_t size)
{
    std::ofstream(path, std::ios::binary).write(static_cast<const char *>(data), size);
}

int main()
{
    const uint32_t blockDim = 4;
    const uint32_t n = 4 * 64;
    std::vector<char> xf = Load("input/x_float.bin");
    std::vector<char> xh = Load("input/x_half.bin");
    if (xf.size() != n * sizeof(float) || xh.size() != n * sizeof(aclFloat16)) {
        std::cerr << "bad input sizes" << std::endl;
        return 1;
    }
    CHECK_ACL(aclInit(nullptr));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    CHECK_ACL(aclrtCreateStream(&stream));
    uint8_t *xfDev, *yfDev, *zfDev, *xhDev, *yhDev;
    CHECK_ACL(aclrtMalloc((void **)&xfDev, xf.size(), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void **)&yfDev, xf.size(), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void **)&zfDev, xf.size(), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void **)&xhDev, xh.size(), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void **)&yhDev, xh.size(), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMemcpy(xfDev, xf.size(), xf.data(), xf.size(), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ACL(aclrtMemcpy(xhDev, xh.size(), xh.data(), xh.size(), ACL_MEMCPY_HOST_TO_DEVICE));

    aclrtEvent start, end;
    CHECK_ACL(aclrtCreateEvent(&start));
    CHECK_ACL(aclrtCreateEvent(&end));
    CHECK_ACL(aclrtRecordEvent(start, stream));
    scale_float_do(blockDim, stream, xfDev, yfDev, 3.0f, n);
    scale_half_do(blockDim, stream, xhDev, yhDev, 3.0f, n);
    ACLRT_LAUNCH_KERNEL(offset_custom)(blockDim, stream, yfDev, zfDev, 0.5f, n);
    CHECK_ACL(aclrtRecordEvent(end, stream));
    CHECK_ACL(aclrtSynchronizeEvent(end));
    float ms = 0.0f;
    CHECK_ACL(aclrtEventElapsedTime(&ms, start, end));
    printf("three kernels took %.6f ms\n", ms);
    CHECK_ACL(aclrtDestroyEvent(start));
    CHECK_ACL(aclrtDestroyEvent(end));
    CHECK_ACL(aclrtSynchronizeStream(stream));

    std::vector<char> yf(xf.size()), yh(xh.size());
    CHECK_ACL(aclrtMemcpy(yf.data(), yf.size(), zfDev, yf.size(), ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_ACL(aclrtMemcpy(yh.data(), yh.size(), yhDev, yh.size(), ACL_MEMCPY_DEVICE_TO_HOST));
    Store("output/y_float.bin", yf.data(), yf.size());
    Store("output/y_half.bin", yh.data(), yh.size());
    printf("first result %f\n", *reinterpret_cast<float *>(yf.data()));
    printf("running on %s\n", aclrtGetSocName());
    printf("0.1 as aclFloat16: %.10f\n", aclFloat16ToFloat(aclFloatToFloat16(0.1f)));

    for (uint8_t *p : {xfDev, yfDev, zfDev, xhDev, yhDev}) {
        CHECK_ACL(aclrtFree(p));
    }
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    return 0;
}
