// The host side of a kernel-launch sample on the simulator: device memory is host memory registered
// as GM, a stream is a queue of launches run when it is synchronised, and every documented misuse of
// the ACL runtime is reported with the host code's file and line. Declarations shared by the ACL shim
// (acl/acl.h), the CPU-debug API (tikicpulib.h), the launch templates (kernel_launch.h) and their one
// implementation file (runtime.cpp, compiled into every sample).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../sim/launch_abi.h"

namespace ascendc_sim_host {

// Where a host API was called: the sample's file and line (defaulted parameters, as the kernel API's Loc).
struct Site {
    const char* file = "";
    int line = 0;
    static Site here(const char* file = __builtin_FILE(), int line = __builtin_LINE()) { return {file, line}; }
};

enum class MemoryKind : int { Device = 0, Host = 1, Gm = 2 };  // aclrtMalloc, aclrtMallocHost, GmAlloc

// The body of one block (launch.h's BlockBody) and the values it is called with.
using BlockBody = void (*)(void** arg_values);

// One launch as the launch syntax captured it: the entry, its argument values (owned by `storage`),
// which arguments are pointers, and where it was launched from.
struct KernelLaunch {
    std::string kernel;
    uint32_t block_dim = 0;
    BlockBody body = nullptr;
    std::shared_ptr<void> storage;
    std::vector<void*> values;
    std::vector<int> pointer_args;  // indexes of the pointer parameters
    Site site;
};

// The launch's first diagnostic is reported (stderr and the run report) and returned as an aclError:
// 0 when it ran clean, ACL_ERROR_RT_AICORE_EXCEPTION when the kernel broke a rule.
int run_now(const KernelLaunch& launch);
// Queues the launch on `stream` (nullptr: the default stream); it runs when the stream is synchronised.
int enqueue(void* stream, KernelLaunch launch);

// A misuse of the host API: written to stderr with the host line and recorded in the run report.
void report_misuse(const Site& site, const char* api, const char* format, ...) __attribute__((format(printf, 3, 4)));

void* allocate(size_t bytes, MemoryKind kind);
// 0 when `pointer` was allocated as `kind` and is freed now; else the misuse is reported and an error returned.
int release(void* pointer, MemoryKind kind, const char* api, const Site& site);

}  // namespace ascendc_sim_host
