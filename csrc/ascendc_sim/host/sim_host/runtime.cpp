// The host runtime of a kernel-launch sample on the simulator (see runtime.h): device memory, streams,
// launches, the ACL shim's functions and the entry the sample runner calls instead of the process's main.
// Compiled into every sample library (torch_ascendgen/targets/sim/launch_sample.py).
#include "runtime.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>

#include "../../sim/launch.h"
#include "../acl/acl.h"

// platform_ascendc::PlatformAscendCManager (the op-project host shims, when present) describes the simulated SoC.
#if __has_include("../tiling/platform/platform_ascendc.h")
#include "../tiling/platform/platform_ascendc.h"
#define ASCENDC_SIM_HOST_PLATFORM 1
#endif

extern "C" __attribute__((weak)) uint64_t ascendc_sim_debug_output(char* buffer, uint64_t size);  // debug.h

namespace ascendc_sim_host {
namespace {

constexpr uint8_t kPoison = 0xFF;  // fresh device and host memory is not initialised (aclrtMallocHost.md)
constexpr size_t kAlignment = 64;  // aclrtMallocHost: the start address is 64-byte aligned

const char* kind_name(MemoryKind kind) {
    switch (kind) {
        case MemoryKind::Device: return "device memory (aclrtMalloc)";
        case MemoryKind::Host: return "host memory (aclrtMallocHost)";
        case MemoryKind::Gm: return "GM (GmAlloc)";
    }
    return "memory";
}

struct Allocation {
    size_t bytes = 0;
    MemoryKind kind = MemoryKind::Device;
    bool freed = false;
    Site freed_at;
};

// An event: recorded on a stream as a marker among its launches, completed when the stream reaches it, at the
// device's simulated time then (the cost model's estimates of the launches before it).
struct Event {
    bool recorded = false;
    bool completed = false;
    double time_ns = 0.0;
};

// What a stream holds until it is synchronised: a launch, or an event's marker (event != nullptr).
struct Task {
    KernelLaunch launch;
    Event* event = nullptr;
    std::function<int()> copy;  // an asynchronous copy (aclrtMemcpyAsync), when set
};

struct Stream {
    std::deque<Task> pending;
};

struct State {
    std::recursive_mutex mutex;
    // Freed memory is kept (never reused in the run), so that a use after free is told apart from a stray pointer.
    std::map<uintptr_t, Allocation> allocations;
    std::map<void*, Stream> streams;  // nullptr: the default stream
    std::map<void*, Event> events;
    double device_ns = 0.0;  // the device's simulated time: the estimates of every launch run so far
    bool initialized = false;
    bool finalized = false;
    bool device_set = false;
    SimSocProfile soc{};
    bool soc_known = false;
    FILE* report = nullptr;
    std::string last_error;
    int device_access = 0;  // nesting depth of the runtime's own device memory accesses (DeviceAccess)
};

State& state() {
    static State* instance = new State;  // never destroyed: detached simulator threads may outlive main
    return *instance;
}

std::string escaped(const std::string& text) {
    std::string out;
    for (char ch : text) {
        if (ch == '\\') out += "\\\\";
        else if (ch == '\n') out += "\\n";
        else if (ch == '\t') out += "\\t";
        else out += ch;
    }
    return out;
}

// One record of the run report the sample runner reads: tab-separated fields, newlines escaped.
void record(std::initializer_list<std::string> fields) {
    FILE* report = state().report;
    if (report == nullptr) return;
    bool first = true;
    for (const std::string& field : fields) {
        std::fputs(first ? "" : "\t", report);
        std::fputs(escaped(field).c_str(), report);
        first = false;
    }
    std::fputc('\n', report);
    std::fflush(report);
}

// The allocation holding `address` (live or freed), or nullptr.
std::pair<const uintptr_t, Allocation>* find_allocation(const void* address) {
    auto& allocations = state().allocations;
    auto at = reinterpret_cast<uintptr_t>(address);
    auto after = allocations.upper_bound(at);
    if (after == allocations.begin()) return nullptr;
    auto& found = *std::prev(after);
    return at < found.first + std::max<size_t>(found.second.bytes, 1) ? &found : nullptr;
}

size_t mapped_bytes(size_t bytes) {
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    return (bytes + page - 1) / page * page;
}

void protect_device_memory(int protection) {
    for (const auto& [base, allocation] : state().allocations)
        if (allocation.kind == MemoryKind::Device && !allocation.freed)
            mprotect(reinterpret_cast<void*>(base), mapped_bytes(allocation.bytes), protection);
}

// Device memory is out of the host code's reach, as on the NPU: its pages are inaccessible except while the
// runtime itself reads or writes it (a launch, a copy, a memset). The host touching it faults, and the fault
// handler (on_fault) names the allocation.
struct DeviceAccess {
    DeviceAccess() {
        if (state().device_access++ == 0) protect_device_memory(PROT_READ | PROT_WRITE);
    }
    ~DeviceAccess() {
        if (--state().device_access == 0) protect_device_memory(PROT_NONE);
    }
};

struct sigaction g_previous_fault_handler;

// A fault in device memory is the host code dereferencing a device pointer: say so (stderr and the run report,
// with fixed buffers and write(2) only), then fault again under the previous handler.
void on_fault(int signal_number, siginfo_t* info, void* context) {
    (void)context;
    auto* found = find_allocation(info->si_addr);
    if (found != nullptr && found->second.kind == MemoryKind::Device && state().device_access == 0) {
        char text[400];
        std::snprintf(text, sizeof text,
                      "host code read or wrote device memory directly: byte %zu of a %zu-byte aclrtMalloc "
                      "allocation%s. On the NPU the host cannot reach device memory; copy it with aclrtMemcpy and use "
                      "the host copy",
                      size_t(reinterpret_cast<uintptr_t>(info->si_addr) - found->first), found->second.bytes,
                      found->second.freed ? " that was freed already" : "");
        char line[512];
        int length = std::snprintf(line, sizeof line, "[ascendc_sim] error: %s\n", text);
        ssize_t ignored = write(2, line, size_t(std::min<int>(length, sizeof line - 1)));
        if (state().report != nullptr) {
            length = std::snprintf(line, sizeof line, "diagnostic\thost_api_misuse\t\t0\t-1\thost code\t%s\n", text);
            ignored = write(fileno(state().report), line, size_t(std::min<int>(length, sizeof line - 1)));
        }
        (void)ignored;
    }
    sigaction(signal_number, &g_previous_fault_handler, nullptr);  // returning re-runs the access: it faults again
}

void take_debug_text(const std::string& kernel) {
    if (ascendc_sim_debug_output == nullptr || ascendc_sim_debug_output(nullptr, 0) == 0) return;
    std::string text(ascendc_sim_debug_output(nullptr, 0) + 1, '\0');
    uint64_t length = ascendc_sim_debug_output(text.data(), text.size());
    text.resize(std::min<uint64_t>(length, text.size() - 1));
    std::fputs(text.c_str(), stdout);  // as on the NPU, the kernel's printf reaches the host's screen
    std::fflush(stdout);
    record({"debug", kernel, text});
}

// Every pointer argument must be live device (or GmAlloc) memory: the kernel can reach nothing else.
bool check_pointer_arguments(const KernelLaunch& launch) {
    for (int index : launch.pointer_args) {
        const void* pointer = *static_cast<void* const*>(launch.values[index]);
        if (pointer == nullptr) continue;
        auto* found = find_allocation(pointer);
        if (found != nullptr && !found->second.freed && found->second.kind != MemoryKind::Host) continue;
        if (found == nullptr)
            report_misuse(launch.site, launch.kernel.c_str(),
                          "argument %d is not device memory: pass a pointer from aclrtMalloc (or GmAlloc in CPU "
                          "debugging); the kernel cannot reach host memory", index);
        else if (found->second.freed)
            report_misuse(launch.site, launch.kernel.c_str(),
                          "argument %d points into %s that was freed at %s:%d", index, kind_name(found->second.kind),
                          found->second.freed_at.file, found->second.freed_at.line);
        else
            report_misuse(launch.site, launch.kernel.c_str(),
                          "argument %d is %s, which the kernel cannot reach: copy the data to device memory "
                          "(aclrtMalloc, aclrtMemcpy) and pass that", index, kind_name(found->second.kind));
        return false;
    }
    return true;
}

std::vector<SimRegion> launch_regions(const KernelLaunch& launch) {
    std::vector<SimRegion> regions;
    for (const auto& [base, allocation] : state().allocations) {
        if (allocation.freed || allocation.kind == MemoryKind::Host) continue;
        int32_t argument = -1;
        for (int index : launch.pointer_args) {
            auto pointer = reinterpret_cast<uintptr_t>(*static_cast<void* const*>(launch.values[index]));
            if (pointer >= base && pointer < base + allocation.bytes) argument = index;
        }
        regions.push_back(SimRegion{base, allocation.bytes, argument, 1, 0});
    }
    return regions;
}

void report_kernel_diagnostic(const KernelLaunch& launch, const SimDiagnostic& diag) {
    std::fprintf(stderr, "[ascendc_sim] %s:%d: error: %s in kernel %s (block %d): %s\n", diag.file, diag.line,
                 diag.kind, launch.kernel.c_str(), diag.block, diag.message);
    record({"diagnostic", diag.kind, diag.file, std::to_string(diag.line), std::to_string(diag.block), launch.kernel,
            diag.message});
}

// Host-side errors found before any launch ran: a diagnostic of the host's line.
bool check_launch(const KernelLaunch& launch) {
    State& s = state();
    if (!s.soc_known) {
        report_misuse(launch.site, launch.kernel.c_str(), "no SoC profile: run the sample through "
                      "torch_ascendgen.targets.sim.launch_sample, which configures the simulated chip");
        return false;
    }
    if (launch.block_dim < 1 || launch.block_dim > 65535) {
        report_misuse(launch.site, launch.kernel.c_str(),
                      "blockDim %u: it must be from 1 to 65535 (the kernel call's execution configuration)",
                      launch.block_dim);
        return false;
    }
    return check_pointer_arguments(launch);
}

// Pending launches whose pointer arguments reach the allocation at `base`.
const KernelLaunch* pending_launch_on(uintptr_t base, size_t bytes) {
    for (const auto& [stream, queue] : state().streams)
        for (const Task& task : queue.pending)
            for (int index : task.launch.pointer_args) {
                auto pointer = reinterpret_cast<uintptr_t>(*static_cast<void* const*>(task.launch.values[index]));
                if (pointer >= base && pointer < base + std::max<size_t>(bytes, 1)) return &task.launch;
            }
    return nullptr;
}

// Runs the stream's tasks in order, up to and including the marker of `until` (nullptr: all of them).
int drain(Stream& stream, const Event* until = nullptr) {
    int status = ACL_SUCCESS;
    while (!stream.pending.empty()) {
        Task task = std::move(stream.pending.front());
        stream.pending.pop_front();
        if (task.event != nullptr) {
            task.event->completed = true;
            task.event->time_ns = state().device_ns;
            if (task.event == until) break;
        } else if (status == ACL_SUCCESS) {  // after a failed kernel the stream runs nothing more
            status = task.copy ? task.copy() : run_now(task.launch);
        }
    }
    return status;
}

int drain_all() {
    int status = ACL_SUCCESS;
    for (auto& [handle, stream] : state().streams) {
        int drained = drain(stream);
        if (status == ACL_SUCCESS) status = drained;
    }
    return status;
}

size_t pending_count() {
    size_t count = 0;
    for (const auto& [handle, stream] : state().streams)
        for (const Task& task : stream.pending) count += task.event == nullptr && !task.copy;
    return count;
}

bool require_device(const Site& site, const char* api) {
    if (state().device_set) return true;
    report_misuse(site, api, "no device is set: call aclrtSetDevice(0) first (after aclInit)");
    return false;
}

// [pointer, pointer + bytes) checked as one side of a copy. `want` is what the copy kind says it is
// (Device or Host), or -1 when the kind says nothing. Returns an aclError.
int check_copy_side(const Site& site, const char* api, const char* side, const void* pointer, size_t bytes,
                    int want, bool race_check = true) {
    auto* found = find_allocation(pointer);
    bool device = found != nullptr && found->second.kind != MemoryKind::Host;
    if (found != nullptr && found->second.freed) {
        report_misuse(site, api, "%s points into %s that was freed at %s:%d", side, kind_name(found->second.kind),
                      found->second.freed_at.file, found->second.freed_at.line);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (want == int(MemoryKind::Device) && !device) {
        report_misuse(site, api, "%s is not device memory, but the copy kind says it is: pass a pointer from "
                      "aclrtMalloc, or the kind that matches the pointers", side);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (want == int(MemoryKind::Host) && device) {
        report_misuse(site, api, "%s is device memory, but the copy kind says it is host memory: use the kind "
                      "that matches the pointers", side);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (found != nullptr) {
        uintptr_t begin = reinterpret_cast<uintptr_t>(pointer) - found->first;
        if (begin + bytes > found->second.bytes) {
            report_misuse(site, api, "%s: %zu bytes from byte %zu of a %zu-byte allocation run %zu bytes past its "
                          "end", side, bytes, size_t(begin), found->second.bytes,
                          size_t(begin + bytes - found->second.bytes));
            return ACL_ERROR_INVALID_PARAM;
        }
        if (device && race_check) {
            if (const KernelLaunch* launch = pending_launch_on(found->first, found->second.bytes))
                report_misuse(site, api, "%s is device memory that kernel %s (launched at %s:%d) uses, and its "
                              "stream has not been synchronised: the copy races the kernel. Call "
                              "aclrtSynchronizeStream before copying", side, launch->kernel.c_str(),
                              launch->site.file, launch->site.line);
        }
    }
    return ACL_SUCCESS;
}

int kind_of_destination(aclrtMemcpyKind kind) {
    if (kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE) return int(MemoryKind::Device);
    if (kind == ACL_MEMCPY_HOST_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_HOST) return int(MemoryKind::Host);
    return -1;
}

int kind_of_source(aclrtMemcpyKind kind) {
    if (kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE) return int(MemoryKind::Device);
    if (kind == ACL_MEMCPY_HOST_TO_HOST || kind == ACL_MEMCPY_HOST_TO_DEVICE) return int(MemoryKind::Host);
    return -1;
}

// What PlatformAscendCManager::GetInstance() answers in a sample: the SoC run_sample simulates. Cube cores: half
// the vector cores on the separated architecture (Atlas A2/A3), as many on the coupled one (310P).
void describe_platform(const SimSocProfile& soc) {
#ifdef ASCENDC_SIM_HOST_PLATFORM
    static fe::PlatFormInfos infos;
    infos = fe::PlatFormInfos{soc.name, soc.arch, soc.vector_cores, soc.arch == 0 ? soc.vector_cores / 2
                                                                                  : soc.vector_cores, soc.ub_bytes};
    platform_ascendc::current_platform() = &infos;
#else
    (void)soc;
#endif
}

jmp_buf g_exit_jump;
bool g_in_sample = false;
int g_exit_status = 0;

}  // namespace

void report_misuse(const Site& site, const char* api, const char* format, ...) {
    char text[1024];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    std::fprintf(stderr, "[ascendc_sim] %s:%d: error: %s: %s\n", site.file, site.line, api, text);
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    state().last_error = std::string(api) + ": " + text;
    record({"diagnostic", "host_api_misuse", site.file, std::to_string(site.line), "-1", api, text});
}

void* allocate(size_t bytes, MemoryKind kind) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    void* memory = nullptr;
    if (kind == MemoryKind::Device) {  // pages of its own, inaccessible outside the runtime (DeviceAccess)
        memory = mmap(nullptr, mapped_bytes(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) return nullptr;
        std::memset(memory, kPoison, mapped_bytes(bytes));
        if (state().device_access == 0) mprotect(memory, mapped_bytes(bytes), PROT_NONE);
    } else {
        size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
        memory = std::aligned_alloc(kAlignment, rounded);
        if (memory == nullptr) return nullptr;
        std::memset(memory, kPoison, rounded);
    }
    state().allocations[reinterpret_cast<uintptr_t>(memory)] = Allocation{bytes, kind, false, Site{}};
    return memory;
}

int release(void* pointer, MemoryKind kind, const char* api, const Site& site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    auto found = state().allocations.find(reinterpret_cast<uintptr_t>(pointer));
    if (pointer == nullptr || found == state().allocations.end()) {
        report_misuse(site, api, "%p was not returned by the matching allocation call (free what it returned, "
                      "unchanged)", pointer);
        return ACL_ERROR_INVALID_PARAM;
    }
    Allocation& allocation = found->second;
    if (allocation.freed) {
        report_misuse(site, api, "%p was already freed at %s:%d", pointer, allocation.freed_at.file,
                      allocation.freed_at.line);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (allocation.kind != kind) {
        report_misuse(site, api, "%p is %s; %s frees %s only", pointer, kind_name(allocation.kind), api,
                      kind_name(kind));
        return ACL_ERROR_INVALID_PARAM;
    }
    if (const KernelLaunch* launch = pending_launch_on(found->first, allocation.bytes))
        report_misuse(site, api, "%p is used by kernel %s (launched at %s:%d), whose stream has not been "
                      "synchronised: call aclrtSynchronizeStream before freeing", pointer, launch->kernel.c_str(),
                      launch->site.file, launch->site.line);
    allocation.freed = true;
    allocation.freed_at = site;
    if (kind == MemoryKind::Device) {  // stays inaccessible for good: a later use faults or is reported
        mprotect(pointer, mapped_bytes(allocation.bytes), PROT_READ | PROT_WRITE);
        std::memset(pointer, kPoison, allocation.bytes);
        mprotect(pointer, mapped_bytes(allocation.bytes), PROT_NONE);
    } else {
        std::memset(pointer, kPoison, allocation.bytes);
    }
    return ACL_SUCCESS;
}

int run_now(const KernelLaunch& launch) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    if (!check_launch(launch)) {
        record({"launch", launch.kernel, std::to_string(launch.block_dim), "failed", "0"});
        return ACL_ERROR_RT_AICORE_EXCEPTION;
    }
    std::vector<SimRegion> regions = launch_regions(launch);
    std::vector<SimCoreReport> cores(launch.block_dim);
    // A kernel-launch project builds with --cce-auto-sync on (支持自动同步.md): the compiler syncs the scalar pipe.
    SimLaunchRequest request{launch.block_dim, &state().soc, const_cast<void**>(launch.values.data()),
                             regions.data(), uint32_t(regions.size()), 0, 0, 0, 1};
    SimLaunchResult result{};
    result.cores = cores.data();
    int status = 0;
    {
        DeviceAccess access;
        status = ascendc_sim::run_launch(launch.body, &request, &result);
    }
    take_debug_text(launch.kernel);
    char estimate[64];
    std::snprintf(estimate, sizeof estimate, "%.1f", result.est_ns);
    record({"launch", launch.kernel, std::to_string(launch.block_dim), status == 0 ? "ok" : "failed", estimate});
    if (status == 0) {
        state().device_ns += result.est_ns;
        return ACL_SUCCESS;
    }
    report_kernel_diagnostic(launch, result.diag);
    return ACL_ERROR_RT_AICORE_EXCEPTION;
}

int enqueue(void* stream, KernelLaunch launch) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    auto found = state().streams.find(stream);
    if (stream != nullptr && found == state().streams.end()) {
        report_misuse(launch.site, launch.kernel.c_str(), "the stream was not created by aclrtCreateStream (or was "
                      "destroyed)");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!require_device(launch.site, launch.kernel.c_str())) return ACL_ERROR_RT_CONTEXT_NULL;
    state().streams[stream].pending.push_back(Task{std::move(launch), nullptr});
    return ACL_SUCCESS;
}

}  // namespace ascendc_sim_host

using namespace ascendc_sim_host;

// ---- the ACL shim (acl/acl.h) ---------------------------------------------------------------------------

aclError aclInit(const char* configPath, Site site) {
    (void)configPath;
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    if (state().initialized) {
        report_misuse(site, "aclInit", "called a second time; a process initialises AscendCL once");
        return ACL_ERROR_REPEAT_INITIALIZE;
    }
    state().initialized = true;
    return ACL_SUCCESS;
}

aclError aclFinalize(Site site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    if (!state().initialized || state().finalized) {
        report_misuse(site, "aclFinalize", "AscendCL is not initialised (aclInit) or was finalised already");
        return ACL_ERROR_UNINITIALIZE;
    }
    state().finalized = true;
    return ACL_SUCCESS;
}

const char* aclGetRecentErrMsg() { return state().last_error.empty() ? nullptr : state().last_error.c_str(); }

aclError aclrtSetDevice(int32_t deviceId, Site site) {
    if (deviceId != 0) {
        report_misuse(site, "aclrtSetDevice", "device %d does not exist: the simulator has one device, 0",
                      int(deviceId));
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    state().device_set = true;
    state().streams[nullptr];  // the default stream
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId, Site site) {
    if (deviceId != 0) {
        report_misuse(site, "aclrtResetDevice", "device %d does not exist", int(deviceId));
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    if (size_t pending = pending_count())
        report_misuse(site, "aclrtResetDevice", "%zu kernel launch(es) were never synchronised; they are dropped "
                      "(call aclrtSynchronizeStream before reading results or resetting the device)", pending);
    for (auto& [handle, stream] : state().streams) stream.pending.clear();
    state().device_set = false;
    return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t* deviceId, Site site) {
    if (deviceId == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (!require_device(site, "aclrtGetDevice")) return ACL_ERROR_RT_CONTEXT_NULL;
    *deviceId = 0;
    return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count, Site site) {
    (void)site;
    if (count == nullptr) return ACL_ERROR_INVALID_PARAM;
    *count = 1;
    return ACL_SUCCESS;
}

aclError aclrtGetRunMode(aclrtRunMode* runMode, Site site) {
    (void)site;
    if (runMode == nullptr) return ACL_ERROR_INVALID_PARAM;
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

const char* aclrtGetSocName() { return state().soc_known ? state().soc.name : nullptr; }

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId, Site site) {
    if (context == nullptr) return ACL_ERROR_INVALID_PARAM;
    aclError status = aclrtSetDevice(deviceId, site);
    *context = status == ACL_SUCCESS ? reinterpret_cast<aclrtContext>(&state()) : nullptr;
    return status;
}

aclError aclrtDestroyContext(aclrtContext context, Site site) {
    if (context != reinterpret_cast<aclrtContext>(&state())) {
        report_misuse(site, "aclrtDestroyContext", "not a context from aclrtCreateContext");
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context, Site site) {
    if (context != reinterpret_cast<aclrtContext>(&state())) {
        report_misuse(site, "aclrtSetCurrentContext", "not a context from aclrtCreateContext");
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(Site site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    if (!require_device(site, "aclrtSynchronizeDevice")) return ACL_ERROR_RT_CONTEXT_NULL;
    return drain_all();
}

aclError aclrtCreateStream(aclrtStream* stream, Site site) {
    if (stream == nullptr) return ACL_ERROR_INVALID_PARAM;
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    if (!require_device(site, "aclrtCreateStream")) return ACL_ERROR_RT_CONTEXT_NULL;
    *stream = new char;  // a unique handle
    state().streams[*stream];
    return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream, Site site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    auto found = state().streams.find(stream);
    if (stream == nullptr || found == state().streams.end()) {
        report_misuse(site, "aclrtDestroyStream", "not a stream from aclrtCreateStream (or destroyed already)");
        return ACL_ERROR_INVALID_PARAM;
    }
    int status = ACL_SUCCESS;
    if (!found->second.pending.empty()) {
        report_misuse(site, "aclrtDestroyStream", "%zu launch(es) on the stream were never synchronised: call "
                      "aclrtSynchronizeStream before destroying it (they run now)", found->second.pending.size());
        status = drain(found->second);
    }
    state().streams.erase(found);
    delete static_cast<char*>(stream);
    return status;
}

aclError aclrtSynchronizeStream(aclrtStream stream, Site site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    auto found = state().streams.find(stream);
    if (found == state().streams.end()) {
        report_misuse(site, "aclrtSynchronizeStream", "not a stream from aclrtCreateStream (or destroyed already)");
        return ACL_ERROR_INVALID_PARAM;
    }
    return drain(found->second);
}

aclError aclrtCreateEvent(aclrtEvent* event, Site site) {
    if (event == nullptr) return ACL_ERROR_INVALID_PARAM;
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    if (!require_device(site, "aclrtCreateEvent")) return ACL_ERROR_RT_CONTEXT_NULL;
    *event = new char;  // a unique handle
    state().events[*event];
    return ACL_SUCCESS;
}

namespace {
Event* find_event(aclrtEvent event, const char* api, const Site& site) {
    auto found = state().events.find(event);
    if (event != nullptr && found != state().events.end()) return &found->second;
    report_misuse(site, api, "not an event from aclrtCreateEvent (or destroyed already)");
    return nullptr;
}
}  // namespace

aclError aclrtDestroyEvent(aclrtEvent event, Site site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    Event* found = find_event(event, "aclrtDestroyEvent", site);
    if (found == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (found->recorded && !found->completed) {
        report_misuse(site, "aclrtDestroyEvent", "the event's stream has not reached it yet: synchronise the event "
                      "(aclrtSynchronizeEvent) before destroying it");
        return ACL_ERROR_INVALID_PARAM;
    }
    state().events.erase(event);
    delete static_cast<char*>(event);
    return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream, Site site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    Event* found = find_event(event, "aclrtRecordEvent", site);
    if (found == nullptr) return ACL_ERROR_INVALID_PARAM;
    auto queue = state().streams.find(stream);
    if (queue == state().streams.end()) {
        report_misuse(site, "aclrtRecordEvent", "not a stream from aclrtCreateStream (or destroyed already)");
        return ACL_ERROR_INVALID_PARAM;
    }
    *found = Event{true, false, 0.0};
    queue->second.pending.push_back(Task{KernelLaunch{}, found});
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event, Site site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    Event* found = find_event(event, "aclrtSynchronizeEvent", site);
    if (found == nullptr) return ACL_ERROR_INVALID_PARAM;
    int status = ACL_SUCCESS;
    for (auto& [handle, stream] : state().streams)
        for (const Task& task : stream.pending)
            if (task.event == found) {
                status = drain(stream, found);
                return status;
            }
    return status;  // never recorded, or reached already: nothing to wait for
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent, Site site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    Event* start = find_event(startEvent, "aclrtEventElapsedTime", site);
    Event* end = start == nullptr ? nullptr : find_event(endEvent, "aclrtEventElapsedTime", site);
    if (ms == nullptr || end == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (!start->completed || !end->completed) {
        report_misuse(site, "aclrtEventElapsedTime", "both events must be recorded (aclrtRecordEvent) and reached "
                      "(aclrtSynchronizeEvent or aclrtSynchronizeStream) first");
        return ACL_ERROR_INVALID_PARAM;
    }
    *ms = float((end->time_ns - start->time_ns) / 1e6);
    return ACL_SUCCESS;
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy, Site site) {
    (void)policy;
    if (devPtr == nullptr || size == 0) {
        report_misuse(site, "aclrtMalloc", devPtr == nullptr ? "devPtr is null" : "size 0: size must not be 0");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!require_device(site, "aclrtMalloc")) return ACL_ERROR_RT_CONTEXT_NULL;
    *devPtr = allocate(size, MemoryKind::Device);
    return *devPtr != nullptr ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_ALLOCATION;
}

aclError aclrtFree(void* devPtr, Site site) { return release(devPtr, MemoryKind::Device, "aclrtFree", site); }

aclError aclrtMallocHost(void** hostPtr, size_t size, Site site) {
    if (hostPtr == nullptr || size == 0) {
        report_misuse(site, "aclrtMallocHost", hostPtr == nullptr ? "hostPtr is null" : "size 0: size must not be 0");
        return ACL_ERROR_INVALID_PARAM;
    }
    *hostPtr = allocate(size, MemoryKind::Host);
    return *hostPtr != nullptr ? ACL_SUCCESS : ACL_ERROR_BAD_ALLOC;
}

aclError aclrtFreeHost(void* hostPtr, Site site) { return release(hostPtr, MemoryKind::Host, "aclrtFreeHost", site); }

namespace {
// The checks of a copy (aclrtMemcpy.md): pointers, count within destMax, each side inside its allocation and of the
// kind the copy says. `race_check`: also report device memory a queued launch uses (a synchronous copy races it).
int check_copy(const Site& site, const char* api, void* dst, size_t destMax, const void* src, size_t count,
               aclrtMemcpyKind kind, bool race_check) {
    if (dst == nullptr || src == nullptr || kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEFAULT) {
        report_misuse(site, api, "%s", dst == nullptr ? "dst is null" : src == nullptr ? "src is null"
                                                                                       : "unknown copy kind");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (count > destMax) {
        report_misuse(site, api, "count %zu is more than destMax %zu", count, destMax);
        return ACL_ERROR_INVALID_PARAM;
    }
    int status = check_copy_side(site, api, "dst", dst, count, kind_of_destination(kind), race_check);
    if (status == ACL_SUCCESS) status = check_copy_side(site, api, "src", src, count, kind_of_source(kind), race_check);
    return status;
}
}  // namespace

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind, Site site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    int status = check_copy(site, "aclrtMemcpy", dst, destMax, src, count, kind, true);
    if (status != ACL_SUCCESS) return status;
    DeviceAccess access;
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream, Site site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    auto queue = state().streams.find(stream);
    if (queue == state().streams.end()) {
        report_misuse(site, "aclrtMemcpyAsync", "not a stream from aclrtCreateStream (or destroyed already)");
        return ACL_ERROR_INVALID_PARAM;
    }
    int status = check_copy(site, "aclrtMemcpyAsync", dst, destMax, src, count, kind, false);
    if (status != ACL_SUCCESS) return status;
    Task task;
    task.copy = [=]() {  // checked again when the stream reaches it: the memory may have been freed since
        int checked = check_copy(site, "aclrtMemcpyAsync", dst, destMax, src, count, kind, false);
        if (checked != ACL_SUCCESS) return checked;
        DeviceAccess access;
        std::memmove(dst, src, count);
        return int(ACL_SUCCESS);
    };
    queue->second.pending.push_back(std::move(task));
    return ACL_SUCCESS;
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count, Site site) {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    if (devPtr == nullptr || count > maxCount) {
        report_misuse(site, "aclrtMemset", devPtr == nullptr ? "devPtr is null" : "count is more than maxCount");
        return ACL_ERROR_INVALID_PARAM;
    }
    int status = check_copy_side(site, "aclrtMemset", "devPtr", devPtr, count, -1);
    if (status != ACL_SUCCESS) return status;
    DeviceAccess access;
    std::memset(devPtr, value, count);
    return ACL_SUCCESS;
}

aclFloat16 aclFloatToFloat16(float value) {
    _Float16 half = static_cast<_Float16>(value);
    aclFloat16 bits;
    std::memcpy(&bits, &half, sizeof bits);
    return bits;
}

float aclFloat16ToFloat(aclFloat16 value) {
    _Float16 half;
    std::memcpy(&half, &value, sizeof half);
    return static_cast<float>(half);
}

// ---- the sample's entry ----------------------------------------------------------------------------------

int main(int argc, char** argv);  // the sample's own

// exit() in the sample ends the sample, not the process that runs it (the library is linked --wrap=exit).
extern "C" void __real_exit(int status) __attribute__((noreturn));
extern "C" __attribute__((noreturn)) void __wrap_exit(int status) {
    if (!g_in_sample) __real_exit(status);
    g_exit_status = status;
    longjmp(g_exit_jump, 1);
}

// Runs the sample's main with `argv` on the simulated chip `soc`, the run report written to `report_path`.
// Returns main's status (or exit's).
extern "C" __attribute__((visibility("default"))) int ascendc_sample_run(int argc, char** argv,
                                                                        const SimSocProfile* soc,
                                                                        const char* report_path) {
    State& s = state();
    s.soc = *soc;
    s.soc_known = true;
    describe_platform(*soc);
    s.report = std::fopen(report_path, "w");
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // what was printed survives a crash
    struct sigaction fault_handler {};
    fault_handler.sa_sigaction = on_fault;
    fault_handler.sa_flags = SA_SIGINFO;
    sigemptyset(&fault_handler.sa_mask);
    sigaction(SIGSEGV, &fault_handler, &g_previous_fault_handler);
    g_in_sample = true;
    if (setjmp(g_exit_jump) == 0) g_exit_status = main(argc, argv);
    g_in_sample = false;
    sigaction(SIGSEGV, &g_previous_fault_handler, nullptr);
    std::cout.flush();
    std::fflush(stdout);
    if (size_t pending = pending_count())
        report_misuse(Site{"<end of main>", 0}, "aclrtSynchronizeStream",
                      "%zu kernel launch(es) were never synchronised, so they never ran (call "
                      "aclrtSynchronizeStream after launching)", pending);
    std::fflush(stderr);
    if (s.report != nullptr) std::fclose(s.report);
    s.report = nullptr;
    return g_exit_status;
}
