// A clean-room stand-in for the small part of the PyTorch C++ extension API (ATen tensors, TORCH_CHECK,
// pybind11's module definition) and of torch_npu (the current NPU stream) that a direct-launch kernel submission's
// pybind source uses: it computes the tiling on the host, allocates its outputs with torch and launches its
// kernels on the current stream. Written from PyTorch's public C++ documentation (pytorch.org/cppdocs: at::Tensor,
// TensorOptions, the factory functions) and pybind11's (pybind11.readthedocs.io: PYBIND11_MODULE, module_::def).
//
// An NPU tensor is a view of simulated device memory (aclrtMalloc, host/acl/acl.h): the host code may pass its
// data_ptr() to a kernel, never dereference it (it faults, as on the NPU). A CPU tensor (TensorOptions' default
// device, as in torch, or at::from_blob) is host memory, which no kernel can reach; .to(device) and copy_ move
// data between the two. Tensors are contiguous; views (view/reshape) share the storage. Storage lives until the end of the call (the driver, torch_ext/driver.cpp,
// frees it once every stream is synchronised), as torch_npu's caching allocator keeps memory a queued kernel uses.
// What is declared here is implemented; anything else is a compile error naming it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "acl/acl.h"

namespace c10 {

// The numbering of c10::ScalarType, which torch.dtype follows.
enum class ScalarType : int8_t {
    Byte = 0, Char = 1, Short = 2, Int = 3, Long = 4, Half = 5, Float = 6, Double = 7, Bool = 11, BFloat16 = 15,
    Undefined = -1,
};

size_t elementSize(ScalarType type);
const char* toString(ScalarType type);

struct Half { uint16_t x; };
struct BFloat16 { uint16_t x; };

enum class DeviceType : int8_t { CPU = 0, PrivateUse1 = 20 };

struct Device {
    DeviceType type_ = DeviceType::PrivateUse1;
    int8_t index_ = 0;
    Device() = default;  // the NPU
    Device(DeviceType type, int index = 0) : type_(type), index_(int8_t(index)) {}  // NOLINT: implicit, as torch's
    DeviceType type() const { return type_; }
    int8_t index() const { return index_; }
    bool is_cpu() const { return type_ == DeviceType::CPU; }
    bool operator==(const Device& other) const { return type_ == other.type_ && index_ == other.index_; }
    bool operator!=(const Device& other) const { return !(*this == other); }
};

// Tensor::dtype(): compares equal to the ScalarType it stands for.
struct TypeMeta {
    ScalarType type = ScalarType::Undefined;
    ScalarType toScalarType() const { return type; }
    size_t itemsize() const { return elementSize(type); }
    const char* name() const { return toString(type); }
};
inline bool operator==(TypeMeta a, TypeMeta b) { return a.type == b.type; }
inline bool operator!=(TypeMeta a, TypeMeta b) { return a.type != b.type; }
inline bool operator==(TypeMeta a, ScalarType b) { return a.type == b; }
inline bool operator!=(TypeMeta a, ScalarType b) { return a.type != b; }
inline bool operator==(ScalarType a, TypeMeta b) { return a == b.type; }
inline bool operator!=(ScalarType a, TypeMeta b) { return a != b.type; }
std::ostream& operator<<(std::ostream& out, ScalarType type);
std::ostream& operator<<(std::ostream& out, TypeMeta type);

// A failed TORCH_CHECK: the host code's file and line, and its message.
class Error : public std::runtime_error {
public:
    Error(const char* file, int line, const std::string& message)
        : std::runtime_error(message), file_(file), line_(line) {}
    const char* file() const { return file_; }
    int line() const { return line_; }

private:
    const char* file_;
    int line_;
};

namespace detail {
template <typename... A>
std::string concat(const A&... parts) {
    std::ostringstream out;
    (void)(out << ... << parts);
    return out.str();
}
}  // namespace detail

// A non-owning list of sizes (the IntArrayRef torch takes and returns).
class IntArrayRef {
public:
    IntArrayRef() = default;
    IntArrayRef(const int64_t* data, size_t length) : data_(data), length_(length) {}
    IntArrayRef(const std::vector<int64_t>& values) : data_(values.data()), length_(values.size()) {}  // NOLINT
    IntArrayRef(std::initializer_list<int64_t> values) : data_(values.begin()), length_(values.size()) {}  // NOLINT
    IntArrayRef(const int64_t& value) : data_(&value), length_(1) {}  // NOLINT: one size, as torch's
    const int64_t* begin() const { return data_; }
    const int64_t* end() const { return data_ + length_; }
    const int64_t* data() const { return data_; }
    size_t size() const { return length_; }
    bool empty() const { return length_ == 0; }
    int64_t operator[](size_t index) const { return data_[index]; }
    int64_t front() const { return data_[0]; }
    int64_t back() const { return data_[length_ - 1]; }
    std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }
    bool equals(IntArrayRef other) const { return vec() == other.vec(); }
    bool operator==(IntArrayRef other) const { return equals(other); }
    bool operator!=(IntArrayRef other) const { return !equals(other); }

private:
    const int64_t* data_ = nullptr;
    size_t length_ = 0;
};
std::ostream& operator<<(std::ostream& out, IntArrayRef sizes);

}  // namespace c10

#define TORCH_CHECK(cond, ...)                                                                                \
    do {                                                                                                      \
        if (!(cond))                                                                                          \
            throw ::c10::Error(__FILE__, __LINE__,                                                            \
                               ::c10::detail::concat("Expected " #cond " to be true, but got false. ", ##__VA_ARGS__)); \
    } while (0)
#define TORCH_INTERNAL_ASSERT(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ASSERT(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ERROR(...) throw ::c10::Error(__FILE__, __LINE__, ::c10::detail::concat(__VA_ARGS__))
#define TORCH_WARN(...) ::ascendc_sim_torch::warn(__FILE__, __LINE__, ::c10::detail::concat(__VA_ARGS__))

namespace ascendc_sim_torch {
void warn(const char* file, int line, const std::string& message);
}

namespace at {

using c10::BFloat16;
using c10::Device;
using c10::DeviceType;
using c10::Half;
using c10::IntArrayRef;
using c10::ScalarType;
using c10::TypeMeta;

constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kUInt8 = kByte, kInt8 = kChar, kInt16 = kShort, kInt32 = kInt, kInt64 = kLong;
constexpr ScalarType kFloat16 = kHalf, kFloat32 = kFloat, kFloat64 = kDouble;
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kPrivateUse1 = DeviceType::PrivateUse1;

class TensorOptions {
public:
    TensorOptions() = default;
    TensorOptions(ScalarType dtype) : dtype_(dtype), has_dtype_(true) {}  // NOLINT: implicit, as torch's
    TensorOptions(TypeMeta dtype) : TensorOptions(dtype.type) {}  // NOLINT
    TensorOptions(Device device) : device_(device), has_device_(true) {}  // NOLINT
    TensorOptions(DeviceType device) : device_(device), has_device_(true) {}  // NOLINT
    TensorOptions dtype(ScalarType dtype) const {
        TensorOptions o = *this;
        o.dtype_ = dtype;
        o.has_dtype_ = true;
        return o;
    }
    TensorOptions dtype(TypeMeta dtype) const { return this->dtype(dtype.type); }
    TensorOptions device(Device device) const {
        TensorOptions o = *this;
        o.device_ = device;
        o.has_device_ = true;
        return o;
    }
    TensorOptions device(DeviceType type, int index = 0) const { return device(Device(type, index)); }
    TensorOptions requires_grad(bool) const { return *this; }
    TypeMeta dtype() const { return TypeMeta{dtype_}; }
    Device device() const { return device_; }
    bool has_device() const { return has_device_; }
    bool has_dtype() const { return has_dtype_; }
    ScalarType scalar_type() const { return dtype_; }

private:
    ScalarType dtype_ = ScalarType::Float;  // torch's default dtype
    Device device_{DeviceType::CPU};  // torch's default: a factory call needs .device(x.device()) for the NPU
    bool has_device_ = false;  // *_like functions take the tensor's device and dtype when the options name none
    bool has_dtype_ = false;
};

inline TensorOptions dtype(ScalarType type) { return TensorOptions(type); }
inline TensorOptions device(Device device) { return TensorOptions(device); }

struct StorageImpl {
    void* data = nullptr;
    size_t nbytes = 0;
    bool on_device = true;
};

class Storage {
public:
    explicit Storage(std::shared_ptr<StorageImpl> impl) : impl_(std::move(impl)) {}
    const void* data() const { return impl_->data; }
    void* mutable_data() const { return impl_->data; }
    size_t nbytes() const { return impl_->nbytes; }

private:
    std::shared_ptr<StorageImpl> impl_;
};

template <typename T>
constexpr ScalarType scalar_type_of();

using ascendc_sim_host::Site;

class Tensor {
public:
    Tensor() = default;
    Tensor(std::shared_ptr<StorageImpl> storage, std::vector<int64_t> sizes, ScalarType dtype);

    bool defined() const { return storage_ != nullptr; }
    IntArrayRef sizes() const { return sizes_; }
    IntArrayRef strides() const { return strides_; }
    int64_t size(int64_t dim) const { return sizes_[wrap(dim)]; }
    int64_t stride(int64_t dim) const { return strides_[wrap(dim)]; }
    int64_t dim() const { return int64_t(sizes_.size()); }
    int64_t ndimension() const { return dim(); }
    int64_t numel() const;
    ScalarType scalar_type() const { return dtype_; }
    TypeMeta dtype() const { return TypeMeta{dtype_}; }
    TensorOptions options() const { return TensorOptions(dtype_).device(device()); }
    Device device() const { return storage_ && !storage_->on_device ? Device(DeviceType::CPU) : Device(); }
    bool is_cpu() const { return device().is_cpu(); }
    bool is_floating_point() const;
    size_t element_size() const { return c10::elementSize(dtype_); }
    size_t itemsize() const { return element_size(); }
    size_t nbytes() const { return size_t(numel()) * element_size(); }
    int64_t storage_offset() const { return 0; }
    Storage storage() const { return Storage(storage_); }
    bool is_contiguous() const { return true; }
    Tensor contiguous() const { return *this; }

    // Device memory: pass it to a kernel; the host reading or writing it faults, as on the NPU.
    void* data_ptr() const { return storage_ ? storage_->data : nullptr; }
    void* mutable_data_ptr() const { return data_ptr(); }
    const void* const_data_ptr() const { return data_ptr(); }
    template <typename T>
    T* data_ptr() const {
        check_type(scalar_type_of<T>(), "data_ptr");
        return static_cast<T*>(data_ptr());
    }
    template <typename T>
    T* mutable_data_ptr() const { return data_ptr<T>(); }
    template <typename T>
    const T* const_data_ptr() const { return data_ptr<T>(); }

    Tensor view(IntArrayRef sizes) const;
    // A copy on `device` (this tensor when it is there already); a dtype change is not simulated (an error).
    Tensor to(Device device, Site site = Site::here()) const;
    Tensor to(DeviceType device, Site site = Site::here()) const { return to(Device(device), site); }
    Tensor to(ScalarType dtype, Site site = Site::here()) const;
    Tensor to(TensorOptions options, Site site = Site::here()) const;
    Tensor cpu(Site site = Site::here()) const { return to(Device(DeviceType::CPU), site); }
    // Copies `source` (same dtype and element count) into this tensor, between host and device as they lie.
    Tensor& copy_(const Tensor& source, bool non_blocking = false, Site site = Site::here());
    Tensor reshape(IntArrayRef sizes) const { return view(sizes); }
    Tensor flatten() const { return view({-1}); }

private:
    size_t wrap(int64_t dim) const;
    void check_type(ScalarType wanted, const char* api) const;

    std::shared_ptr<StorageImpl> storage_;
    std::vector<int64_t> sizes_;
    std::vector<int64_t> strides_;
    ScalarType dtype_ = ScalarType::Undefined;
};

template <> constexpr ScalarType scalar_type_of<uint8_t>() { return kByte; }
template <> constexpr ScalarType scalar_type_of<int8_t>() { return kChar; }
template <> constexpr ScalarType scalar_type_of<int16_t>() { return kShort; }
template <> constexpr ScalarType scalar_type_of<int32_t>() { return kInt; }
template <> constexpr ScalarType scalar_type_of<int64_t>() { return kLong; }
template <> constexpr ScalarType scalar_type_of<Half>() { return kHalf; }
template <> constexpr ScalarType scalar_type_of<float>() { return kFloat; }
template <> constexpr ScalarType scalar_type_of<double>() { return kDouble; }
template <> constexpr ScalarType scalar_type_of<bool>() { return kBool; }
template <> constexpr ScalarType scalar_type_of<BFloat16>() { return kBFloat16; }

// Fresh device memory is not initialised (empty), or zeroed (zeros): as torch_npu's.
Tensor empty(IntArrayRef sizes, TensorOptions options = {}, Site site = Site::here());
Tensor empty_like(const Tensor& like, Site site = Site::here());
Tensor empty_like(const Tensor& like, TensorOptions options, Site site = Site::here());
Tensor zeros(IntArrayRef sizes, TensorOptions options = {}, Site site = Site::here());
Tensor zeros_like(const Tensor& like, Site site = Site::here());
Tensor zeros_like(const Tensor& like, TensorOptions options, Site site = Site::here());
// A CPU tensor viewing host memory the caller owns.
Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options = {});

}  // namespace at

namespace torch {
using namespace at;  // torch::Tensor, torch::empty, torch::kFloat32, ...
}

namespace c10_npu {

// torch_npu's current stream: the stream the driver synchronises once the call returns.
class NPUStream {
public:
    explicit NPUStream(aclrtStream stream) : stream_(stream) {}
    aclrtStream stream() const { return stream_; }
    aclrtStream stream(bool need_empty) const {
        (void)need_empty;
        return stream_;
    }
    operator aclrtStream() const { return stream_; }  // NOLINT

private:
    aclrtStream stream_;
};

NPUStream getCurrentNPUStream(int device_index = -1);

}  // namespace c10_npu

// ---- pybind11: the module's functions, recorded in a table the driver calls by name ------------------------

namespace ascendc_sim_torch {

// One argument of a call, as the driver received it from Python.
struct Value {
    enum Kind { Tensor = 0, Int = 1, Float = 2, Bool = 3, IntList = 4 } kind = Int;
    at::Tensor tensor;
    int64_t integer = 0;
    double number = 0.0;
    std::vector<int64_t> list;
};

// A call whose arguments do not fit the function's parameters (the message says which).
class ArgumentError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

const char* kind_name(Value::Kind kind);

template <typename T, typename = void>
struct Parameter {
    static_assert(sizeof(T) == 0, "a pybind function parameter of this type is not simulated: use at::Tensor, an "
                                  "integer, a floating-point number, bool or std::vector<int64_t>");
};

template <>
struct Parameter<at::Tensor> {
    static constexpr const char* name = "Tensor";
    static const at::Tensor& from(const Value& value, size_t index) {
        check(value, Value::Tensor, index);
        return value.tensor;
    }
    static void check(const Value& value, Value::Kind want, size_t index) {
        if (value.kind != want)
            throw ArgumentError("argument " + std::to_string(index) + " is " + kind_name(value.kind) +
                                ", where the function takes " + kind_name(want));
    }
};

template <typename T>
struct Parameter<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
    static constexpr const char* name = "int";
    static T from(const Value& value, size_t index) {
        Parameter<at::Tensor>::check(value, Value::Int, index);
        return T(value.integer);
    }
};

template <typename T>
struct Parameter<T, std::enable_if_t<std::is_floating_point_v<T>>> {
    static constexpr const char* name = "float";
    static T from(const Value& value, size_t index) {
        if (value.kind == Value::Int) return T(value.integer);  // pybind11 converts an int to a float parameter
        Parameter<at::Tensor>::check(value, Value::Float, index);
        return T(value.number);
    }
};

template <>
struct Parameter<bool> {
    static constexpr const char* name = "bool";
    static bool from(const Value& value, size_t index) {
        Parameter<at::Tensor>::check(value, Value::Bool, index);
        return value.integer != 0;
    }
};

template <>
struct Parameter<std::vector<int64_t>> {
    static constexpr const char* name = "list of int";
    static const std::vector<int64_t>& from(const Value& value, size_t index) {
        Parameter<at::Tensor>::check(value, Value::IntList, index);
        return value.list;
    }
};

template <>
struct Parameter<c10::IntArrayRef> {
    static constexpr const char* name = "list of int";
    static c10::IntArrayRef from(const Value& value, size_t index) {
        return Parameter<std::vector<int64_t>>::from(value, index);
    }
};

template <typename R>
struct Returned {
    static_assert(sizeof(R) == 0, "a pybind function returning this type is not simulated: return at::Tensor, a "
                                  "std::tuple of them, a std::vector<at::Tensor> or void");
};
template <>
struct Returned<at::Tensor> {
    static std::vector<at::Tensor> list(const at::Tensor& value) { return {value}; }
};
template <>
struct Returned<std::vector<at::Tensor>> {
    static std::vector<at::Tensor> list(const std::vector<at::Tensor>& value) { return value; }
};
template <typename... T>
struct Returned<std::tuple<T...>> {
    static_assert((std::is_same_v<T, at::Tensor> && ...), "a returned std::tuple must hold at::Tensor only");
    static std::vector<at::Tensor> list(const std::tuple<T...>& value) {
        return std::apply([](const auto&... items) { return std::vector<at::Tensor>{items...}; }, value);
    }
};

using Function = std::function<std::vector<at::Tensor>(const std::vector<Value>&)>;

template <typename R, typename... A, typename F, size_t... I>
std::vector<at::Tensor> invoke(F& function, const std::vector<Value>& args, std::index_sequence<I...>) {
    if (args.size() != sizeof...(A))
        throw ArgumentError("it takes " + std::to_string(sizeof...(A)) + " argument(s), the call passes " +
                            std::to_string(args.size()));
    if constexpr (std::is_void_v<R>) {
        function(Parameter<std::decay_t<A>>::from(args[I], I)...);
        return {};
    } else {
        return Returned<std::decay_t<R>>::list(function(Parameter<std::decay_t<A>>::from(args[I], I)...));
    }
}

template <typename R, typename... A, typename F>
Function wrap(F function, R (*)(A...)) {
    return [function](const std::vector<Value>& args) mutable {
        return invoke<R, A...>(function, args, std::index_sequence_for<A...>{});
    };
}

template <typename... A>
std::string signature() {
    std::string text;
    ((text += (text.empty() ? "" : ", ") + std::string(Parameter<std::decay_t<A>>::name)), ...);
    return "(" + text + ")";
}

template <typename T>
struct CallOperator;
template <typename C, typename R, typename... A>
struct CallOperator<R (C::*)(A...) const> {
    using Pointer = R (*)(A...);
};
template <typename C, typename R, typename... A>
struct CallOperator<R (C::*)(A...)> {
    using Pointer = R (*)(A...);
};

void define(const std::string& name, const std::string& signature, Function function);

template <typename R, typename... A>
void define_function(const char* name, R (*function)(A...)) {
    define(name, signature<A...>(), wrap(function, static_cast<R (*)(A...)>(nullptr)));
}

template <typename F, typename R, typename... A>
void define_callable_as(const char* name, F function, R (*)(A...)) {
    define(name, signature<A...>(), wrap(function, static_cast<R (*)(A...)>(nullptr)));
}

template <typename F>
void define_callable(const char* name, F function) {
    using Pointer = typename CallOperator<decltype(&F::operator())>::Pointer;
    define_callable_as(name, function, static_cast<Pointer>(nullptr));
}

}  // namespace ascendc_sim_torch

namespace pybind11 {

// py::arg("x") and py::arg("eps") = 1e-5: names and defaults are for Python callers; the driver passes every
// argument by position.
struct arg {
    explicit arg(const char* name) : name(name) {}
    template <typename T>
    arg& operator=(T&&) { return *this; }
    const char* name;
};

class module_ {
public:
    template <typename R, typename... A, typename... Extra>
    module_& def(const char* name, R (*function)(A...), const Extra&...) {
        ascendc_sim_torch::define_function(name, function);
        return *this;
    }
    template <typename F, typename... Extra,
              typename = std::enable_if_t<!std::is_pointer_v<std::decay_t<F>>>>
    module_& def(const char* name, F&& function, const Extra&...) {
        ascendc_sim_torch::define_callable(name, std::decay_t<F>(std::forward<F>(function)));
        return *this;
    }
    std::string& doc() { return doc_; }

private:
    std::string doc_;
};
using module = module_;

}  // namespace pybind11

// The module's definition: called by the driver (torch_ext/driver.cpp) before each call; nothing runs at load.
#define ASCENDC_SIM_TORCH_STRING_(x) #x
#define ASCENDC_SIM_TORCH_STRING(x) ASCENDC_SIM_TORCH_STRING_(x)
#define PYBIND11_MODULE(name, variable)                                                      \
    const char* ascendc_sim_pybind_module_name() { return ASCENDC_SIM_TORCH_STRING(name); } \
    void ascendc_sim_pybind_module_init(::pybind11::module_& variable)
const char* ascendc_sim_pybind_module_name();
void ascendc_sim_pybind_module_init(::pybind11::module_& module);
