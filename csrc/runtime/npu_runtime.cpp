// The NPU runtime module: loads kernel libraries built by bisheng (torch_ascendgen/npu_build.py) and
// launches them on the current torch_npu stream, in order with the torch ops around them.
//
// Built once per machine, CANN, torch and torch_npu (torch_ascendgen/npu_runtime.py) against torch's
// headers, torch_npu's headers and ACL. The shape follows the simulator's runtime (sim_runtime.cpp):
// a KernelLibrary per .so (dlopen, dlsym, ABI check), the contract's host tiling, then a launch.
//
// Ordering with torch_npu (read in Ascend/pytorch torch_npu/csrc/framework/OpCommand.cpp and
// op-plugin examples/cpp_extension/csrc/add_custom.asc): torch_npu runs most ops through a task queue
// drained by another thread, so a raw launch on getCurrentNPUStream().stream(false) can overtake ops
// that are queued but not yet submitted. The launch is therefore handed to
// at_npu::native::OpCommand::RunOpApi, which queues it behind them (or runs it at once when the queue
// is disabled). The ACL stream is read on the calling thread and captured: the current stream is a
// thread-local of the calling thread (NPUStream.cpp), and the queue's thread does not set it, so
// reading it inside the queued function would name that thread's default stream instead of the one
// the caller made current (op-plugin's EXEC_NPU_CMD and its cpp_extension example read it outside too).
#include <dlfcn.h>
#include <torch/extension.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "torch_npu/csrc/core/npu/NPUStream.h"
#include "torch_npu/csrc/framework/OpCommand.h"
#include <acl/acl.h>

namespace py = pybind11;

namespace {

// ascendgen_npu_abi_version() of the launcher translation unit torch_ascendgen/npu_build.py writes;
// npu_runtime.py passes npu_build.NPU_ABI_VERSION, so the two cannot drift apart.
#ifndef ASCENDGEN_NPU_ABI_VERSION
#error "build with -DASCENDGEN_NPU_ABI_VERSION=<torch_ascendgen.npu_build.NPU_ABI_VERSION> (npu_runtime_command does)"
#endif
constexpr int kAbiVersion = ASCENDGEN_NPU_ABI_VERSION;
constexpr uint32_t kMaxBlocks = 65535;
constexpr const char* kOpName = "ascendgen_kernel";  // the name torch_npu's profiler and logs show

using AbiVersionFn = int (*)();
using TilingSizeFn = uint32_t (*)();
using TilingFn = uint32_t (*)(uint32_t, int32_t, const int32_t*, const int64_t*, void*, uint64_t*);
using LaunchFn = int (*)(uint32_t, void*, void**);
using GmArgsFn = uint32_t (*)();
// aclError aclrtGetLastError(aclrtLastErrLevel level), CANN 8.0.RC3 and newer (ACL docs, "异常处理");
// looked up at run time so the module still loads with older toolkits. aclrtLastErrLevel is a C enum
// whose one value is ACL_RT_THREAD_LEVEL = 0.
using LastErrorFn = aclError (*)(int);
constexpr int kThreadLevel = 0;

// An ACL call failed; Python sees it as ascendgen_npu_runtime.AclError (a RuntimeError).
class AclError : public std::runtime_error {
public:
    AclError(const std::string& what, aclError code) : std::runtime_error(what), code_(code) {}
    aclError code() const { return code_; }

private:
    aclError code_;
};

// Read ACL's message for this thread at once: the next failing ACL call replaces it.
AclError acl_error(aclError code, const std::string& what) {
    const char* detail = aclGetRecentErrMsg();
    std::string message = what + " failed with ACL error " + std::to_string(code);
    if (detail != nullptr && *detail != '\0') message += ": " + std::string(detail);
    return AclError(message, code);
}

void check_acl(aclError code, const std::string& what) {
    if (code != ACL_SUCCESS) throw acl_error(code, what);
}

template <typename Fn>
Fn symbol(void* handle, const char* name, const std::string& path) {
    void* address = dlsym(handle, name);
    if (address == nullptr)
        throw std::runtime_error(path + " is not an NPU kernel library built by torch_ascendgen: it exports no " +
                                 name + " (rebuild it with torch_ascendgen.npu_build)");
    return reinterpret_cast<Fn>(address);
}

LastErrorFn acl_last_error() {
    static const LastErrorFn found = [] {
        void* acl = dlopen("libascendcl.so", RTLD_NOW | RTLD_NOLOAD);  // loaded already: this module links it
        return acl == nullptr ? nullptr : reinterpret_cast<LastErrorFn>(dlsym(acl, "aclrtGetLastError"));
    }();
    return found;
}

// One kernel library built by bisheng: the launcher's extern "C" functions. Libraries stay loaded for
// the life of the process: a launch may still be queued when Python drops its last reference.
class KernelLibrary {
public:
    explicit KernelLibrary(const std::string& path) : path_(path) {
        handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle_ == nullptr)
            throw std::runtime_error("cannot load NPU kernel library " + path + ": " + dlerror() +
                                     " (is CANN's lib64 on LD_LIBRARY_PATH? source CANN's set_env.sh)");
        int version = symbol<AbiVersionFn>(handle_, "ascendgen_npu_abi_version", path)();
        if (version != kAbiVersion)
            throw std::runtime_error(path + " was built for NPU launch ABI " + std::to_string(version) + ", not " +
                                     std::to_string(kAbiVersion) + "; rebuild it");
        tiling_size_ = symbol<TilingSizeFn>(handle_, "ascendgen_tiling_size", path)();
        tiling_ = symbol<TilingFn>(handle_, "ascendgen_tiling", path);
        launch_ = symbol<LaunchFn>(handle_, "ascendgen_launch", path);
        // The launcher's GM_ADDR parameter count: a wrong argument count is refused here instead of
        // faulting on the device.
        gm_args_ = symbol<GmArgsFn>(handle_, "ascendgen_gm_arg_count", path)();
        if (tiling_size_ == 0) throw std::runtime_error(path + " reports a TilingData of 0 bytes");
    }
    KernelLibrary(const KernelLibrary&) = delete;
    KernelLibrary& operator=(const KernelLibrary&) = delete;

    const std::string& path() const { return path_; }
    uint32_t tiling_size() const { return tiling_size_; }
    uint32_t gm_args() const { return gm_args_; }

    // The contract's host tiling for these shapes (inputs, then outputs):
    // (block_dim, workspace_bytes, the TilingData bytes). block_dim 0: the kernel declines the shapes.
    py::tuple tiling(const std::vector<std::vector<int64_t>>& shapes, uint32_t core_num) const {
        std::vector<int32_t> ranks;
        std::vector<int64_t> dims;
        for (const auto& shape : shapes) {
            ranks.push_back(int32_t(shape.size()));
            dims.insert(dims.end(), shape.begin(), shape.end());
        }
        std::string bytes(tiling_size_, '\0');
        uint64_t workspace = 0;
        uint32_t blocks =
            tiling_(core_num, int32_t(shapes.size()), ranks.data(), dims.data(), bytes.data(), &workspace);
        return py::make_tuple(blocks, workspace, py::bytes(bytes));
    }

    // Runs on torch_npu's queue thread (or the caller's with the queue off) and never throws: returns
    // the launcher's status, or the runtime error the launch left on this thread. The <<<>>> launch
    // reports nothing itself; a fault while the kernel runs surfaces at the next synchronisation.
    int launch(uint32_t blocks, aclrtStream stream, void** args) const {
        const LastErrorFn last_error = acl_last_error();
        if (last_error != nullptr) last_error(kThreadLevel);  // an earlier call's error is not this launch's
        int status = launch_(blocks, stream, args);
        if (status != 0 || last_error == nullptr) return status;
        return last_error(kThreadLevel);
    }

private:
    std::string path_;
    void* handle_ = nullptr;
    uint32_t tiling_size_ = 0;
    uint32_t gm_args_ = 0;
    TilingFn tiling_ = nullptr;
    LaunchFn launch_ = nullptr;
};

c10::Device npu_device(int64_t index) {
    if (index < 0 || index > INT8_MAX)
        throw std::invalid_argument("NPU device index " + std::to_string(index) + " is out of range");
    return c10::Device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(index));
}

// One shape's TilingData bytes in device memory: copied from the host once, passed to every launch
// at that shape. Shared with the launches queued on it (std::shared_ptr), so the memory outlives
// their submission to the stream.
class DeviceTiling {
public:
    DeviceTiling(const std::string& bytes, int64_t device_index) : size_(bytes.size()), device_(device_index) {
        if (bytes.empty()) throw std::invalid_argument("the tiling data is empty");
        const c10::DeviceGuard guard(npu_device(device_index));  // aclrtMalloc allocates on the current device
        check_acl(aclrtMalloc(&data_, size_, ACL_MEM_MALLOC_HUGE_FIRST),
                  "aclrtMalloc of " + std::to_string(size_) + " tiling bytes");
        aclError copied = aclrtMemcpy(data_, size_, bytes.data(), size_, ACL_MEMCPY_HOST_TO_DEVICE);
        if (copied != ACL_SUCCESS) {
            AclError error = acl_error(copied, "aclrtMemcpy of the tiling data to the device");
            aclrtFree(data_);  // nothing was launched with it
            throw error;
        }
    }
    DeviceTiling(const DeviceTiling&) = delete;
    DeviceTiling& operator=(const DeviceTiling&) = delete;

    // aclrtFree frees at once, without waiting for the device (ACL docs, aclrtFree), and a kernel
    // submitted earlier may still read the bytes: free after the device is idle. When this thread has
    // no context on the tiling's device (torch_npu's release thread, or after torch_npu shut ACL down
    // at exit), the few bytes are left allocated: freeing them could hand memory a running kernel
    // still reads to another allocation.
    ~DeviceTiling() {
        int32_t current = -1;
        if (aclrtGetDevice(&current) != ACL_SUCCESS || current != device_) return;
        if (aclrtSynchronizeDevice() != ACL_SUCCESS) return;
        aclrtFree(data_);
    }

    void* data() const { return data_; }
    size_t size() const { return size_; }
    int64_t device_index() const { return device_; }

private:
    void* data_ = nullptr;
    size_t size_ = 0;
    int64_t device_ = -1;
};

// Everything one queued launch needs. The storages keep the tensors' memory alive until the launch
// has been submitted; after that torch_npu's caching allocator orders reuse on the stream. Storages
// rather than tensors, so that the queue's release thread never drops the last reference to a
// tensor owned by a Python object.
struct LaunchState {
    std::shared_ptr<const KernelLibrary> library;
    std::shared_ptr<const DeviceTiling> tiling;
    std::vector<c10::Storage> storages;
    std::vector<void*> args;  // GM_ADDR arguments: inputs, outputs, workspace, tiling
    uint32_t blocks = 0;
    aclrtStream stream = nullptr;
};

void check_tensor(const at::Tensor& t, const std::string& role, const c10::Device& device) {
    if (!t.defined()) throw std::invalid_argument(role + " is an undefined tensor");
    if (t.device().type() != c10::DeviceType::PrivateUse1)
        throw std::invalid_argument(role + " is on " + t.device().str() + "; NPU kernels take tensors on the NPU");
    if (t.device() != device)
        throw std::invalid_argument(role + " is on " + t.device().str() + " but the launch is on " + device.str());
    if (!t.is_contiguous()) throw std::invalid_argument(role + " is not contiguous; pass t.contiguous()");
}

void add_tensor(LaunchState& state, const at::Tensor& t, const std::string& role, const c10::Device& device) {
    check_tensor(t, role, device);
    state.storages.push_back(t.storage());
    state.args.push_back(t.data_ptr());
}

// Called with the GIL released: enqueueing can wait for room in torch_npu's queue, and with the
// queue disabled the kernel is launched here.
void launch(const std::shared_ptr<KernelLibrary>& library, uint32_t block_dim, const std::vector<at::Tensor>& inputs,
            const std::vector<at::Tensor>& outputs, const std::optional<at::Tensor>& workspace,
            const std::shared_ptr<DeviceTiling>& tiling) {
    if (!library || !tiling) throw std::invalid_argument("launch needs a KernelLibrary and a DeviceTiling");
    if (block_dim < 1 || block_dim > kMaxBlocks)
        throw std::invalid_argument("block_dim must be from 1 to " + std::to_string(kMaxBlocks) + ", got " +
                                    std::to_string(block_dim));
    const c10::Device device = npu_device(tiling->device_index());
    auto state = std::make_shared<LaunchState>();
    state->library = library;
    state->tiling = tiling;
    state->blocks = block_dim;
    for (size_t i = 0; i < inputs.size(); ++i) add_tensor(*state, inputs[i], "input " + std::to_string(i), device);
    for (size_t i = 0; i < outputs.size(); ++i) add_tensor(*state, outputs[i], "output " + std::to_string(i), device);
    if (workspace.has_value()) {
        add_tensor(*state, *workspace, "the workspace", device);
    } else {
        state->args.push_back(nullptr);
    }
    state->args.push_back(tiling->data());
    if (state->args.size() != library->gm_args())
        throw std::invalid_argument(library->path() + " takes " + std::to_string(library->gm_args()) +
                                    " GM_ADDR arguments; got " + std::to_string(state->args.size()) +
                                    " (inputs, outputs, workspace, tiling)");
    const c10::DeviceGuard guard(device);  // RunOpApi queues on the current device's current stream
    state->stream = c10_npu::getCurrentNPUStream(device.index()).stream(false);
    at_npu::native::OpCommand::RunOpApi(kOpName, [state]() -> int {
        return state->library->launch(state->blocks, state->stream, state->args.data());
    });
}

}  // namespace

PYBIND11_MODULE(ascendgen_npu_runtime, m) {
    m.doc() = "torch_ascendgen: loads NPU kernel libraries and launches them through torch_npu's task queue";
    m.attr("ABI_VERSION") = kAbiVersion;
    m.attr("OP_NAME") = kOpName;
    py::register_exception<AclError>(m, "AclError", PyExc_RuntimeError);
    py::class_<KernelLibrary, std::shared_ptr<KernelLibrary>>(m, "KernelLibrary")
        .def(py::init<const std::string&>(), py::arg("path"))
        .def_property_readonly("path", &KernelLibrary::path)
        .def_property_readonly("tiling_size", &KernelLibrary::tiling_size)
        .def_property_readonly("gm_args", &KernelLibrary::gm_args)
        .def("tiling", &KernelLibrary::tiling, py::arg("shapes"), py::arg("core_num"));
    py::class_<DeviceTiling, std::shared_ptr<DeviceTiling>>(m, "DeviceTiling")
        .def(py::init<const std::string&, int64_t>(), py::arg("data"), py::arg("device_index"),
             py::call_guard<py::gil_scoped_release>())
        .def_property_readonly("size", &DeviceTiling::size)
        .def_property_readonly("device_index", &DeviceTiling::device_index)
        .def_property_readonly("address", [](const DeviceTiling& t) { return reinterpret_cast<uintptr_t>(t.data()); });
    m.def("launch", &launch, py::arg("library"), py::arg("block_dim"), py::arg("inputs"), py::arg("outputs"),
          py::arg("workspace"), py::arg("tiling"), py::call_guard<py::gil_scoped_release>());
}
