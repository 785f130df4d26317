// The launch syntaxes of kernel-launch samples, as calls into the host runtime (runtime.h):
//   kernel<<<blockDim, l2ctrl, stream>>>(args...)   rewritten by the sample build into
//       ascendc_sim_host::kernel_call(kernel, "kernel", blockDim, l2ctrl, stream)(args...)
//   ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...)   (the generated aclrtlaunch_<kernel>.h)
//   ICPU_RUN_KF(kernel, blockDim, args...)   (tikicpulib.h)
// The first two queue the launch on the stream; ICPU_RUN_KF runs it at once. Every block runs through
// the simulator's own launch (launch.h run_launch), as a launch from Python does.
#pragma once
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../../sim/launch.h"
#include "runtime.h"

namespace ascendc_sim_host {

// A launch argument as the kernel's parameter: pointers of any type become the parameter's pointer type
// (samples pass uint8_t* or void* for GM_ADDR), everything else converts as in a call.
template <typename P, typename A>
P convert_argument(A&& value) {
    using D = std::decay_t<A>;
    if constexpr (std::is_pointer_v<P>) {
        static_assert(std::is_pointer_v<D> || std::is_null_pointer_v<D>,
                      "a kernel pointer parameter (GM_ADDR) needs a pointer argument");
        return (P)(value);
    } else {
        return static_cast<P>(std::forward<A>(value));
    }
}

template <typename... P>
struct HeldArguments {
    std::tuple<std::decay_t<P>...> values;
    void (*entry)(P...);
};

// The block body of a launch of an entry with parameters P...: the entry travels after the arguments.
template <typename... P>
void block_body(void** values) {
    auto* held = static_cast<void (**)(P...)>(values[sizeof...(P)]);
    ascendc_sim::call_entry(*held, values);
}

template <typename... P, size_t... I>
void fill_values(KernelLaunch& launch, HeldArguments<P...>& held, std::index_sequence<I...>) {
    (launch.values.push_back(&std::get<I>(held.values)), ...);
    launch.values.push_back(&held.entry);
    ((std::is_pointer_v<P> ? launch.pointer_args.push_back(int(I)) : void()), ...);
}

template <typename... P, typename... A>
KernelLaunch make_launch(void (*entry)(P...), const char* name, uint32_t block_dim, Site site, A&&... args) {
    static_assert(sizeof...(P) == sizeof...(A), "the launch passes a different number of arguments than the kernel "
                                                "entry takes");
    auto held = std::make_shared<HeldArguments<P...>>(
        HeldArguments<P...>{std::tuple<std::decay_t<P>...>(convert_argument<P>(std::forward<A>(args))...), entry});
    KernelLaunch launch;
    launch.kernel = name;
    launch.block_dim = block_dim;
    launch.body = &block_body<P...>;
    launch.site = site;
    fill_values(launch, *held, std::index_sequence_for<P...>{});
    launch.storage = held;
    return launch;
}

// kernel<<<blockDim, l2ctrl, stream>>>(args...) and ACLRT_LAUNCH_KERNEL: queued on the stream.
template <typename... P>
class KernelCall {
public:
    KernelCall(void (*entry)(P...), const char* name, uint32_t block_dim, void* stream, Site site)
        : entry_(entry), name_(name), block_dim_(block_dim), stream_(stream), site_(site) {}

    template <typename... A>
    uint32_t operator()(A&&... args) const {
        return uint32_t(enqueue(stream_, make_launch(entry_, name_, block_dim_, site_, std::forward<A>(args)...)));
    }

private:
    void (*entry_)(P...);
    const char* name_;
    uint32_t block_dim_;
    void* stream_;
    Site site_;
};

template <typename... P>
KernelCall<P...> kernel_call(void (*entry)(P...), const char* name, uint32_t block_dim, void* l2ctrl = nullptr,
                             void* stream = nullptr, Site site = Site::here()) {
    (void)l2ctrl;  // reserved: nullptr on the NPU too
    return KernelCall<P...>(entry, name, block_dim, stream, site);
}

}  // namespace ascendc_sim_host
