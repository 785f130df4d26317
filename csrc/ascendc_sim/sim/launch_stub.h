// What a rewritten `kernel<<<blockDim, l2ctrl, stream>>>(args)` launcher calls in a kernel built on its own
// (compile_kernel): the launcher compiles, arguments checked against the entry's parameters, but the library
// launches its entry directly (ascendc_sim_run), so the launcher is never what runs. A kernel-launch sample's
// build (launch_sample.py) links the real call instead (host/sim_host/kernel_launch.h).
#pragma once
#include <cstdint>

namespace ascendc_sim_host {

template <typename... P>
struct UnlaunchedCall {
    template <typename... A>
    uint32_t operator()(A&&...) const {
        static_assert(sizeof...(A) == sizeof...(P),
                      "the launch passes a different number of arguments than the kernel entry takes");
        return 1;  // not ACL_SUCCESS: running a launcher needs a kernel-launch sample build
    }
};

template <typename... P, typename... C>
UnlaunchedCall<P...> kernel_call(void (*)(P...), const char*, C&&...) {
    return {};
}

}  // namespace ascendc_sim_host
