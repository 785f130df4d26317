// The export of one kernel library: its entry's signature and a call through the launch ABI.
// Included once per kernel library by the export shim the build writes next to the kernel
// source (see ASCENDC_SIM_EXPORT_KERNEL). Running the blocks, the checks after the run and the
// time estimate do not depend on the kernel: they are in launch.cpp, compiled once per machine
// (torch_ascendgen/build.py) and linked into every kernel library.
#pragma once
#include <exception>
#include <utility>

#include "core.h"

namespace ascendc_sim {

template <typename T>
constexpr SimArgInfo arg_info() {
    using U = std::remove_cv_t<std::remove_reference_t<T>>;
    if constexpr (std::is_pointer_v<U>) return {SIM_ARG_POINTER, int32_t(sizeof(U))};
    else if constexpr (std::is_floating_point_v<U> || std::is_same_v<U, half>) return {SIM_ARG_FLOAT, int32_t(sizeof(U))};
    else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) return {SIM_ARG_INT, int32_t(sizeof(U))};
    else if constexpr (std::is_integral_v<U> || std::is_enum_v<U>) return {SIM_ARG_UINT, int32_t(sizeof(U))};
    else {
        static_assert(std::is_trivially_copyable_v<U>, "kernel parameters must be pointers, scalars or POD structs");
        return {SIM_ARG_STRUCT, int32_t(sizeof(U))};
    }
}

template <typename... Args>
int signature_of(void (*)(Args...), const SimArgInfo** out) {
    static const SimArgInfo infos[sizeof...(Args) + 1] = {arg_info<Args>()..., SimArgInfo{-1, 0}};
    *out = infos;
    return int(sizeof...(Args));
}

template <typename... Args, size_t... I>
void call_entry(void (*entry)(Args...), void** values, std::index_sequence<I...>) {
    entry(*static_cast<std::remove_cv_t<std::remove_reference_t<Args>>*>(values[I])...);
}

template <typename... Args>
void call_entry(void (*entry)(Args...), void** values) {
    call_entry(entry, values, std::index_sequence_for<Args...>{});
}

// The launch's tiling key: the value of the entry's TilingKeyArg parameter (operator projects, op_project.h),
// -1 when it has none. It picks the KERNEL_TASK_TYPE of the key (kernel_type.h).
template <typename... Args>
int64_t launch_tiling_key(void (*)(Args...), void** values) {
    constexpr bool keyed[] = {std::is_same_v<std::remove_cv_t<std::remove_reference_t<Args>>, TilingKeyArg>..., false};
    for (size_t i = 0; i < sizeof...(Args); ++i)
        if (keyed[i]) return int64_t(*static_cast<const uint64_t*>(values[i]));
    return -1;
}

// Runs the kernel body of one block: the entry, called with the launch's argument values.
using BlockBody = void (*)(void** arg_values);

// Runs every block of a launch on the library's worker threads (each block a logical core with its
// own UB, or as many vector cores and cube cores as its kernel type gives a block: kernel_type.h), checks
// what only the whole launch shows (GM races), and fills `result` with the counters (a block's
// cores summed, its cube core's too), the time estimate and the first diagnostic. `tiling_key`: launch_tiling_key,
// or -1.
// Returns result->status. (launch.cpp)
int run_launch(BlockBody body, const SimLaunchRequest* request, SimLaunchResult* result, int64_t tiling_key = -1);
// A failure of the simulator itself that escaped run_launch (std::exception: what()), as a diagnostic; returns 1.
int report_escaped(SimLaunchResult* result, const char* what);

}  // namespace ascendc_sim

#define ASCENDC_SIM_EXPORT __attribute__((visibility("default")))

// Written by the build after the kernel source: exports the entry through the launch ABI. Variadic, so
// that a template entry's arguments may hold commas (add_kernel<float, 8>).
#define ASCENDC_SIM_EXPORT_KERNEL(...)                                                                       \
    static void ascendc_sim_block_body(void** values) { ascendc_sim::call_entry(&__VA_ARGS__, values); }             \
    extern "C" ASCENDC_SIM_EXPORT int ascendc_sim_abi_version() { return ASCENDC_SIM_ABI_VERSION; }              \
    extern "C" ASCENDC_SIM_EXPORT const char* ascendc_sim_kernel_name() { return #__VA_ARGS__; }                      \
    extern "C" ASCENDC_SIM_EXPORT int ascendc_sim_kernel_args(const SimArgInfo** out) {                         \
        return ascendc_sim::signature_of(&__VA_ARGS__, out);                                                         \
    }                                                                                                          \
    extern "C" ASCENDC_SIM_EXPORT int ascendc_sim_op_count() { return int(ascendc_sim::OpId::Count); }         \
    extern "C" ASCENDC_SIM_EXPORT const char* ascendc_sim_op_name(int op) {                                     \
        return ascendc_sim::op_name(static_cast<ascendc_sim::OpId>(op));                                       \
    }                                                                                                          \
    extern "C" ASCENDC_SIM_EXPORT int ascendc_sim_run(const SimLaunchRequest* request, SimLaunchResult* result) { \
        try {                                                                                                  \
            return ascendc_sim::run_launch(&ascendc_sim_block_body, request, result,                           \
                                           ascendc_sim::launch_tiling_key(&__VA_ARGS__, request->arg_values)); \
        } catch (const std::exception& e) {                                                                    \
            return ascendc_sim::report_escaped(result, e.what());                                              \
        } catch (...) {                                                                                        \
            result->status = 2;                                                                                \
            return 2;                                                                                          \
        }                                                                                                      \
    }
