// The torch extension shim's implementation (ascendc_sim_torch.h) and the driver a direct-launch submission's
// library is called through (torch_ascendgen/targets/sim/direct_launch.py): the child passes its CPU tensors and
// scalars, the driver copies the tensors into simulated device memory, calls the function the submission's
// PYBIND11_MODULE defined by that name, synchronises every stream, and keeps host copies of the returned tensors
// for the child to take. The call runs as a sample's main does (host/sim_host/runtime.cpp ascendc_sample_run): the
// simulated SoC, the run report, exit() ending the call, host access to device memory reported.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../sim_host/runtime.h"
#include "ascendc_sim_torch.h"

extern "C" int ascendc_sample_run(int argc, char** argv, const SimSocProfile* soc, const char* report_path);

// Defined by PYBIND11_MODULE in the submission; weak, so that a submission without one is told so.
const char* ascendc_sim_pybind_module_name() __attribute__((weak));
void ascendc_sim_pybind_module_init(::pybind11::module_& module) __attribute__((weak));

namespace c10 {

size_t elementSize(ScalarType type) {
    switch (type) {
        case ScalarType::Byte: case ScalarType::Char: case ScalarType::Bool: return 1;
        case ScalarType::Short: case ScalarType::Half: case ScalarType::BFloat16: return 2;
        case ScalarType::Int: case ScalarType::Float: return 4;
        case ScalarType::Long: case ScalarType::Double: return 8;
        default: return 0;
    }
}

const char* toString(ScalarType type) {
    switch (type) {
        case ScalarType::Byte: return "Byte";
        case ScalarType::Char: return "Char";
        case ScalarType::Short: return "Short";
        case ScalarType::Int: return "Int";
        case ScalarType::Long: return "Long";
        case ScalarType::Half: return "Half";
        case ScalarType::Float: return "Float";
        case ScalarType::Double: return "Double";
        case ScalarType::Bool: return "Bool";
        case ScalarType::BFloat16: return "BFloat16";
        default: return "Undefined";
    }
}

std::ostream& operator<<(std::ostream& out, ScalarType type) { return out << toString(type); }
std::ostream& operator<<(std::ostream& out, TypeMeta type) { return out << toString(type.type); }

std::ostream& operator<<(std::ostream& out, IntArrayRef sizes) {
    out << "[";
    for (size_t i = 0; i < sizes.size(); ++i) out << (i ? ", " : "") << sizes[i];
    return out << "]";
}

}  // namespace c10

namespace {

using ascendc_sim_torch::Value;

struct Failure {
    std::string kind;  // host_exception, host_argument, host_error
    std::string file;
    int line = 0;
    std::string message;
};

struct OutputCopy {
    c10::ScalarType dtype;
    std::vector<int64_t> sizes;
    std::vector<uint8_t> bytes;
};

struct Call {
    std::string function;
    std::vector<Value> args;
    bool finished = false;  // main returned (not ended by exit(), a longjmp past it)
    Failure failure;
    std::vector<OutputCopy> outputs;
};

Call g_call;
std::map<std::string, std::pair<std::string, ascendc_sim_torch::Function>> g_functions;  // name -> (signature, fn)
std::vector<std::shared_ptr<at::StorageImpl>> g_storages;  // device memory, freed at the end of the call
std::vector<std::unique_ptr<uint8_t[]>> g_host_blocks;      // CPU tensors' memory, freed with it
aclrtStream g_stream = nullptr;
std::string g_function_list;
std::string g_failure_text;

bool valid_dtype(c10::ScalarType type) { return c10::elementSize(type) != 0; }

std::shared_ptr<at::StorageImpl> allocate_storage(size_t nbytes, bool on_device, const ascendc_sim_host::Site& site) {
    auto storage = std::make_shared<at::StorageImpl>();
    storage->nbytes = nbytes;
    storage->on_device = on_device;
    if (!on_device) {
        g_host_blocks.emplace_back(new uint8_t[std::max<size_t>(nbytes, 1)]);
        storage->data = g_host_blocks.back().get();
        return storage;
    }
    // aclrtMalloc refuses 0 bytes; an empty tensor still gets a pointer, as torch_npu's do.
    if (aclrtMalloc(&storage->data, std::max<size_t>(nbytes, 1), ACL_MEM_MALLOC_HUGE_FIRST, site) != ACL_SUCCESS)
        throw c10::Error(site.file, site.line, "device memory allocation of " + std::to_string(nbytes) +
                                                   " bytes failed (see the host API error above)");
    g_storages.push_back(storage);
    return storage;
}

int64_t element_count(c10::IntArrayRef sizes, const ascendc_sim_host::Site& site) {
    int64_t count = 1;
    for (int64_t size : sizes) {
        if (size < 0)
            throw c10::Error(site.file, site.line, ::c10::detail::concat("negative dimension ", size, " in sizes ",
                                                                         sizes));
        count *= size;
    }
    return count;
}

void list_functions() {
    g_function_list.clear();
    for (const auto& [name, entry] : g_functions) g_function_list += name + entry.first + "\n";
}

bool define_module() {
    g_functions.clear();
    if (ascendc_sim_pybind_module_init == nullptr) {
        g_call.failure = {"host_error", "", 0, "no source defines PYBIND11_MODULE(<module>, m): add the pybind "
                          "source that exposes the operators with m.def(\"name\", &function)"};
        return false;
    }
    pybind11::module_ module;
    ascendc_sim_pybind_module_init(module);
    list_functions();
    return true;
}

// The argument's host tensor copied into fresh device memory, as a tensor on the NPU is.
at::Tensor device_copy(const at::Tensor& host) {
    at::Tensor device = at::empty(host.sizes(), host.options().device(at::Device()), {"<driver>", 0});
    if (device.nbytes() != 0)
        aclrtMemcpy(device.data_ptr(), device.nbytes(), host.data_ptr(), device.nbytes(), ACL_MEMCPY_HOST_TO_DEVICE,
                    {"<driver>", 0});
    return device;
}

void call_function() {
    auto found = g_functions.find(g_call.function);
    if (found == g_functions.end()) {
        g_call.failure = {"host_argument", "", 0, "the module defines no function " + g_call.function +
                          " (m.def); it defines: " + (g_function_list.empty() ? std::string("none\n")
                                                                               : g_function_list)};
        return;
    }
    try {
        std::vector<at::Tensor> results = found->second.second(g_call.args);
        aclrtSynchronizeStream(g_stream);
        aclrtSynchronizeDevice();
        for (size_t i = 0; i < results.size(); ++i) {
            const at::Tensor& result = results[i];
            if (!result.defined())
                throw std::runtime_error("output " + std::to_string(i) + " is an undefined tensor (at::Tensor())");
            if (result.is_cpu())
                throw std::runtime_error("output " + std::to_string(i) + " is a CPU tensor: allocate outputs on the "
                                         "NPU (x.options(), or .device(x.device()))");
            OutputCopy copy{result.scalar_type(), result.sizes().vec(), std::vector<uint8_t>(result.nbytes())};
            if (!copy.bytes.empty())
                aclrtMemcpy(copy.bytes.data(), copy.bytes.size(), result.data_ptr(), copy.bytes.size(),
                            ACL_MEMCPY_DEVICE_TO_HOST, {"<driver>", 0});
            g_call.outputs.push_back(std::move(copy));
        }
    } catch (const c10::Error& error) {
        g_call.failure = {"host_exception", error.file(), error.line(), error.what()};
    } catch (const ascendc_sim_torch::ArgumentError& error) {
        g_call.failure = {"host_argument", "", 0, g_call.function + found->second.first + ": " + error.what()};
    } catch (const std::exception& error) {
        g_call.failure = {"host_exception", "", 0, std::string("an exception escaped the function: ") + error.what()};
    } catch (...) {
        g_call.failure = {"host_exception", "", 0, "an exception of a non-standard type escaped the function"};
    }
}

void release_storages() {
    for (const auto& storage : g_storages) aclrtFree(storage->data, {"<driver>", 0});
    g_storages.clear();
    g_host_blocks.clear();
}

}  // namespace

namespace at {

Tensor::Tensor(std::shared_ptr<StorageImpl> storage, std::vector<int64_t> sizes, ScalarType dtype)
    : storage_(std::move(storage)), sizes_(std::move(sizes)), strides_(sizes_.size()), dtype_(dtype) {
    int64_t step = 1;
    for (size_t i = sizes_.size(); i-- > 0;) {
        strides_[i] = step;
        step *= std::max<int64_t>(sizes_[i], 1);
    }
}

int64_t Tensor::numel() const {
    int64_t count = 1;
    for (int64_t size : sizes_) count *= size;
    return count;
}

bool Tensor::is_floating_point() const {
    return dtype_ == kHalf || dtype_ == kFloat || dtype_ == kDouble || dtype_ == kBFloat16;
}

size_t Tensor::wrap(int64_t dim) const {
    int64_t rank = this->dim();
    if (dim < -rank || dim >= rank || rank == 0)
        throw c10::Error(__FILE__, __LINE__, ::c10::detail::concat("Dimension out of range (expected to be in range "
                                                                   "of [", -rank, ", ", rank - 1, "], but got ", dim,
                                                                   ")"));
    return size_t(dim < 0 ? dim + rank : dim);
}

void Tensor::check_type(ScalarType wanted, const char* api) const {
    if (wanted != dtype_)
        throw c10::Error(__FILE__, __LINE__, ::c10::detail::concat(api, ": expected scalar type ", wanted,
                                                                   " but found ", dtype_));
}

Tensor Tensor::view(IntArrayRef sizes) const {
    std::vector<int64_t> shape = sizes.vec();
    int64_t known = 1;
    int inferred = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1 && inferred < 0) inferred = int(i);
        else known *= shape[i];
    }
    if (inferred >= 0 && known > 0 && numel() % known == 0) shape[size_t(inferred)] = numel() / known;
    int64_t count = 1;
    for (int64_t size : shape) count *= size;
    if (count != numel() || std::any_of(shape.begin(), shape.end(), [](int64_t s) { return s < 0; }))
        throw c10::Error(__FILE__, __LINE__, ::c10::detail::concat("shape '", sizes, "' is invalid for input of size ",
                                                                   numel()));
    return Tensor(storage_, shape, dtype_);
}

Tensor empty(IntArrayRef sizes, TensorOptions options, Site site) {
    if (!valid_dtype(options.scalar_type()))
        throw c10::Error(site.file, site.line, "at::empty: the dtype is not one the simulator has");
    int64_t count = element_count(sizes, site);
    bool on_device = options.has_device() && !options.device().is_cpu();
    return Tensor(allocate_storage(size_t(count) * c10::elementSize(options.scalar_type()), on_device, site),
                  sizes.vec(), options.scalar_type());
}

namespace {
// The options of a *_like call: the tensor's dtype and device, unless `options` name their own.
TensorOptions like_options(const Tensor& like, TensorOptions options) {
    return options.dtype(options.has_dtype() ? options.scalar_type() : like.scalar_type())
        .device(options.has_device() ? options.device() : like.device());
}
}  // namespace

Tensor empty_like(const Tensor& like, Site site) { return empty(like.sizes(), like.options(), site); }

Tensor empty_like(const Tensor& like, TensorOptions options, Site site) {
    return empty(like.sizes(), like_options(like, options), site);
}

Tensor zeros(IntArrayRef sizes, TensorOptions options, Site site) {
    Tensor tensor = empty(sizes, options, site);
    if (tensor.nbytes() == 0) return tensor;
    if (tensor.is_cpu()) std::memset(tensor.data_ptr(), 0, tensor.nbytes());
    else aclrtMemset(tensor.data_ptr(), tensor.nbytes(), 0, tensor.nbytes(), site);
    return tensor;
}

Tensor zeros_like(const Tensor& like, Site site) { return zeros(like.sizes(), like.options(), site); }

Tensor zeros_like(const Tensor& like, TensorOptions options, Site site) {
    return zeros(like.sizes(), like_options(like, options), site);
}

Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options) {
    auto storage = std::make_shared<StorageImpl>();
    storage->data = data;
    storage->on_device = options.has_device() && !options.device().is_cpu();
    Tensor tensor(storage, sizes.vec(), options.scalar_type());
    storage->nbytes = tensor.nbytes();
    return tensor;
}

Tensor Tensor::to(Device device, Site site) const {
    if (device.is_cpu() == is_cpu()) return *this;
    Tensor copy = empty(sizes(), options().device(device), site);
    copy.copy_(*this, false, site);
    return copy;
}

Tensor Tensor::to(ScalarType dtype, Site site) const {
    if (dtype != dtype_)
        throw c10::Error(site.file, site.line, ::c10::detail::concat(".to(", dtype, ") of a ", dtype_, " tensor: dtype "
                                                                     "conversion on the host is not simulated; cast "
                                                                     "in the kernel (AscendC::Cast)"));
    return *this;
}

Tensor Tensor::to(TensorOptions options, Site site) const {
    Tensor moved = options.has_device() ? to(options.device(), site) : *this;
    return options.has_dtype() ? moved.to(options.scalar_type(), site) : moved;
}

// As torch_npu's: a copy that involves the NPU is queued on the current stream, in order with the kernels there,
// and waited for unless non_blocking.
Tensor& Tensor::copy_(const Tensor& source, bool non_blocking, Site site) {
    if (source.scalar_type() != dtype_ || source.numel() != numel())
        throw c10::Error(site.file, site.line, ::c10::detail::concat("copy_ from a ", source.scalar_type(), " tensor ",
                                                                     source.sizes(), " into a ", dtype_, " tensor ",
                                                                     sizes(), ": the simulator copies tensors of one "
                                                                     "dtype and element count"));
    if (nbytes() == 0) return *this;
    if (is_cpu() && source.is_cpu()) {
        std::memmove(data_ptr(), source.data_ptr(), nbytes());
        return *this;
    }
    aclrtMemcpyKind kind = is_cpu() ? ACL_MEMCPY_DEVICE_TO_HOST
                           : source.is_cpu() ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_DEVICE;
    aclrtMemcpyAsync(data_ptr(), nbytes(), source.data_ptr(), nbytes(), kind, g_stream, site);
    if (!non_blocking) aclrtSynchronizeStream(g_stream, site);
    return *this;
}

}  // namespace at

namespace c10_npu {
NPUStream getCurrentNPUStream(int device_index) {
    (void)device_index;
    return NPUStream(g_stream);
}
}  // namespace c10_npu

namespace ascendc_sim_torch {

const char* kind_name(Value::Kind kind) {
    switch (kind) {
        case Value::Tensor: return "Tensor";
        case Value::Int: return "int";
        case Value::Float: return "float";
        case Value::Bool: return "bool";
        case Value::IntList: return "list of int";
    }
    return "value";
}

void define(const std::string& name, const std::string& signature, Function function) {
    g_functions[name] = {signature, std::move(function)};
}

void warn(const char* file, int line, const std::string& message) {
    std::fprintf(stderr, "%s:%d: warning: %s\n", file, line, message.c_str());
}

}  // namespace ascendc_sim_torch

// The call, run as the sample's main (ascendc_sample_run): exit() in the host code ends here.
int main(int, char**) {
    aclrtSetDevice(0);
    aclrtCreateStream(&g_stream);
    if (define_module()) {
        for (Value& arg : g_call.args)
            if (arg.kind == Value::Tensor) arg.tensor = device_copy(arg.tensor);
        call_function();
    }
    aclrtSynchronizeDevice();
    release_storages();
    aclrtDestroyStream(g_stream);
    g_stream = nullptr;
    g_call.finished = true;
    return 0;
}

// ---- the C interface the child calls (ctypes) ------------------------------------------------------------

#define ASCENDC_DIRECT_EXPORT extern "C" __attribute__((visibility("default")))

struct AscendcDirectArg {  // direct_launch.py _Arg
    int32_t kind;          // Value::Kind
    int32_t dtype;         // a tensor's c10::ScalarType
    int32_t ndim;          // a tensor's rank, or a list's length
    int32_t reserved;
    int64_t integer;
    double number;
    const int64_t* sizes;  // a tensor's sizes, or a list's items
    void* data;            // a tensor's contiguous host memory
};

struct AscendcDirectOutput {  // direct_launch.py _Output
    int32_t dtype;
    int32_t ndim;
    const int64_t* sizes;
    const void* data;
    uint64_t nbytes;
};

// Calls `function` with `args` on the simulated SoC, the run report written to `report_path`. 0: it returned and
// its outputs wait (ascendc_direct_output); 1: it failed (ascendc_direct_failure); 2: exit() ended it (the status
// is in *exit_status).
ASCENDC_DIRECT_EXPORT int ascendc_direct_run(const char* function, const AscendcDirectArg* args, int32_t count,
                                             const SimSocProfile* soc, const char* report_path,
                                             int32_t* exit_status) {
    g_call = Call{};
    g_call.function = function;
    for (int32_t i = 0; i < count; ++i) {
        const AscendcDirectArg& given = args[i];
        Value value;
        value.kind = Value::Kind(given.kind);
        value.integer = given.integer;
        value.number = given.number;
        if (value.kind == Value::IntList) value.list.assign(given.sizes, given.sizes + given.ndim);
        if (value.kind == Value::Tensor) {  // the host memory, viewed until main copies it to the device
            auto host = std::make_shared<at::StorageImpl>();
            host->data = given.data;
            host->on_device = false;
            std::vector<int64_t> sizes(given.sizes, given.sizes + given.ndim);
            value.tensor = at::Tensor(host, sizes, c10::ScalarType(given.dtype));
            host->nbytes = value.tensor.nbytes();
        }
        g_call.args.push_back(std::move(value));
    }
    char name[] = "direct_launch";
    char* argv[] = {name, nullptr};
    *exit_status = ascendc_sample_run(1, argv, soc, report_path);
    if (!g_call.finished) {
        g_storages.clear();
        g_stream = nullptr;
        return 2;
    }
    return g_call.failure.kind.empty() ? 0 : 1;
}

// "kind\tfile\tline\tmessage" of the last call's failure.
ASCENDC_DIRECT_EXPORT const char* ascendc_direct_failure() {
    const Failure& f = g_call.failure;
    g_failure_text = f.kind + "\t" + f.file + "\t" + std::to_string(f.line) + "\t" + f.message;
    return g_failure_text.c_str();
}

// The functions the module defines, one "name(parameter types)" a line (after a call).
ASCENDC_DIRECT_EXPORT const char* ascendc_direct_functions() { return g_function_list.c_str(); }

ASCENDC_DIRECT_EXPORT int32_t ascendc_direct_output_count() { return int32_t(g_call.outputs.size()); }

ASCENDC_DIRECT_EXPORT int ascendc_direct_output(int32_t index, AscendcDirectOutput* out) {
    if (index < 0 || size_t(index) >= g_call.outputs.size()) return 1;
    const OutputCopy& copy = g_call.outputs[size_t(index)];
    *out = AscendcDirectOutput{int32_t(copy.dtype), int32_t(copy.sizes.size()), copy.sizes.data(), copy.bytes.data(),
                               uint64_t(copy.bytes.size())};
    return 0;
}
