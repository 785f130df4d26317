// The kernel debug APIs: AscendC::printf/PRINTF, DumpTensor, DumpAccChkPoint, assert/ascendc_assert, and the
// ASCENDC_DUMP switch that turns them off (sim/dump_switch.h).
// Their text never reaches the process's stdout: it is collected, each line tagged with its block,
// into one capped buffer that the runtime takes after a launch (ascendc_sim_debug_output). A failed
// assert fails the launch with a diagnostic at the kernel's line, carrying the block's recent output.
#pragma once
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <mutex>
#include <cstring>
#include <string>
#include <type_traits>

#include "core.h"
#include "tensor.h"

// Defined (as 1) only by a kernel built with ASCENDC_DUMP 0 (sim/dump_switch.h); weak, so that its address is null
// everywhere else.
extern "C" __attribute__((weak, visibility("hidden"))) const int ascendc_sim_dump_off;

namespace ascendc_sim {

// printf, DumpTensor, DumpAccChkPoint and the asserts are on unless the kernel set ASCENDC_DUMP to 0.
inline bool dump_on() { return &ascendc_sim_dump_off == nullptr; }

namespace debug_detail {

constexpr size_t kOutputCap = 64 * 1024;  // bytes of debug text kept per launch
constexpr size_t kTailInDiagnostic = 600;  // bytes of a block's output quoted by a failed assert

struct Output {
    std::mutex mutex;
    std::string text;
    bool truncated = false;
};

inline Output& output() {
    static Output instance;
    return instance;
}

// The block's own recent text, for an assert's diagnostic (the shared buffer interleaves blocks). A plain
// buffer: a thread_local std::string would make the library register an imported destructor, which the
// library audit refuses.
inline thread_local char t_block_tail[kTailInDiagnostic + 1];
inline thread_local size_t t_block_tail_size = 0;
inline thread_local const CoreState* t_tail_owner = nullptr;

inline void remember_tail(const CoreState& c, const std::string& line) {
    if (t_tail_owner != &c) {
        t_tail_owner = &c;
        t_block_tail_size = 0;
    }
    const char* text = line.data();
    size_t size = line.size();
    if (size >= kTailInDiagnostic) {  // the line alone fills the tail: keep its end
        text += size - kTailInDiagnostic;
        size = kTailInDiagnostic;
        t_block_tail_size = 0;
    } else if (t_block_tail_size + size > kTailInDiagnostic) {  // drop the oldest bytes
        size_t drop = t_block_tail_size + size - kTailInDiagnostic;
        std::memmove(t_block_tail, t_block_tail + drop, t_block_tail_size - drop);
        t_block_tail_size -= drop;
    }
    std::memcpy(t_block_tail + t_block_tail_size, text, size);
    t_block_tail_size += size;
    t_block_tail[t_block_tail_size] = '\0';
}

inline void emit(const CoreState& c, const std::string& body) {
    std::string core = c.cube                              ? " AIC"
                       : c.launch->shape.sub_blocks > 1 ? " sub-block " + std::to_string(c.sub_block)
                                                         : std::string();
    std::string line = "[block " + std::to_string(c.block_idx) + core + "] " + body;  // a mixed launch's cores apart
    if (line.empty() || line.back() != '\n') line += '\n';
    remember_tail(c, line);
    Output& out = output();
    std::lock_guard<std::mutex> lock(out.mutex);
    if (out.text.size() + line.size() <= kOutputCap) {
        out.text += line;
    } else if (!out.truncated) {
        out.truncated = true;
        out.text += "[debug output truncated: more than 65536 bytes in one launch]\n";
    }
}

// printf arguments as C varargs accept them: half and bfloat16_t print as float (%f), as on the NPU.
template <typename T>
auto vararg(const T& value) {
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t> || std::is_same_v<T, float>)
        return static_cast<double>(static_cast<float>(value));
    else if constexpr (std::is_enum_v<T>)
        return static_cast<long long>(value);
    else if constexpr (std::is_array_v<T>)
        return static_cast<const std::remove_extent_t<T>*>(value);
    else
        return value;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
template <typename... Args>
std::string format(const char* fmt, const Args&... args) {
    if (fmt == nullptr) return "(null format)";
    char text[2048];
    int n = std::snprintf(text, sizeof text, fmt, vararg(args)...);
    if (n < 0) return std::string("(bad format) ") + fmt;
    return std::string(text) + (size_t(n) >= sizeof text ? "...[line truncated]" : "");
}
#pragma GCC diagnostic pop

inline const char* dump_type(DType d) {
    static const char* const names[] = {"DT_FLOAT16", "DT_BF16", "DT_FLOAT", "DT_DOUBLE", "DT_INT8",
                                        "DT_UINT8", "DT_INT16", "DT_UINT16", "DT_INT32", "DT_UINT32",
                                        "DT_INT64", "DT_UINT64", "DT_BOOL",   "DT_INT4"};
    return names[static_cast<int>(d)];
}

template <typename T>
std::string element_text(const T& v) {
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>)
        return format("%g", static_cast<double>(static_cast<float>(v)));
    else if constexpr (std::is_same_v<T, bool>)
        return v ? "1" : "0";
    else if constexpr (std::is_signed_v<T>)
        return std::to_string(static_cast<long long>(v));
    else
        return std::to_string(static_cast<unsigned long long>(v));
}

// Element i of `data` as text (int4b_t: the nibble, order of types.h).
template <typename T>
std::string element_at(const T* data, uint64_t i) {
    if constexpr (is_int4_v<T>) {
        int v = (reinterpret_cast<const uint8_t*>(data)[i / 2] >> (4 * (i % 2))) & 0xF;
        return std::to_string(v >= 8 ? v - 16 : v);
    } else {
        return element_text(data[i]);
    }
}

// The values nested by `shape` (its last dimension innermost, one line per row), the first `count` of them.
template <typename T>
void append_shaped(std::string& text, const T* data, uint32_t count, const AscendC::ShapeInfo& shape, int dim,
                   uint64_t& at) {
    text += "[";
    for (uint32_t i = 0; i < shape.shape[dim] && at < count && text.size() <= kOutputCap; ++i) {
        if (i) text += dim + 1 == shape.shapeDim ? ", " : ",\n";
        if (dim + 1 == shape.shapeDim) text += element_at(data, at++);
        else append_shaped(text, data, count, shape, dim + 1, at);
    }
    text += "]";
}

template <typename T>
void dump(const CoreState& c, const T* data, uint32_t count, uint32_t desc, uint64_t addr, const char* position,
          const AscendC::ShapeInfo* shape = nullptr) {
    std::string text = format("DumpTensor: desc=%u, addr=0x%llx, data_type=%s, position=%s, dump_size=%u", desc,
                              (unsigned long long)addr, dump_type(dtype_of<T>), position, count);
    if (shape != nullptr && shape->shapeDim > 0) {
        text += ", shape=[";
        for (int i = 0; i < shape->shapeDim; ++i) text += (i ? ", " : "") + std::to_string(shape->shape[i]);
        text += "]\n";
        uint64_t at = 0;
        append_shaped(text, data, count, *shape, 0, at);
        return emit(c, text);
    }
    text += "\n[";
    for (uint32_t i = 0; i < count; ++i) {
        if (i) text += ", ";
        text += element_at(data, i);
        if (text.size() > kOutputCap) break;
    }
    emit(c, text + "]");
}

inline void check_shape(const AscendC::ShapeInfo& shape, Loc loc) {
    if (shape.too_many_dims)
        fail(Diag::BadArgument, loc, "DumpTensor with a ShapeInfo of more than %d dimensions; ShapeInfo holds at "
             "most K_MAX_DIM (%d) dimensions", AscendC::K_MAX_DIM, AscendC::K_MAX_DIM);
    for (int i = 0; i < shape.shapeDim; ++i)
        if (shape.shape[i] == 0)
            fail(Diag::BadArgument, loc, "DumpTensor with a ShapeInfo whose dimension %d is 0; give every dimension "
                 "its extent, or dump without a ShapeInfo", i);
}

inline const char* local_position(AscendC::TPosition p) {
    switch (p) {
        case AscendC::TPosition::A1:
        case AscendC::TPosition::B1:
        case AscendC::TPosition::C1:
            return "L1";
        case AscendC::TPosition::CO1:
            return "L0C";
        default:
            return "UB";
    }
}

template <typename T>
void dump_local(const AscendC::LocalTensor<T>& tensor, uint32_t desc, uint32_t offset, uint32_t count, const char* api,
                Loc loc, const AscendC::ShapeInfo* shape = nullptr) {
    if (!dump_on()) return;
    const CoreState& c = core(loc);
    if (tensor.GetPhyAddrPtr() == nullptr)
        fail(Diag::BadArgument, loc, "%s on an empty LocalTensor (never allocated); dump a tensor from a queue's "
             "AllocTensor/DeQue or a TBuf's Get", api);
    if (uint64_t(offset) + count > tensor.GetSize())
        fail(Diag::LocalOverrun, loc,
             "%s dumps elements [%u, %llu) of a LocalTensor of %u elements of %s; keep offset + dumpSize within the "
             "tensor", api, offset, (unsigned long long)offset + count, tensor.GetSize(), dtype_name(dtype_of<T>));
    const uint64_t per = elems_per_unit<T>, bytes = uint64_t(offset) / per * sizeof(T);  // int4b_t: 2 per byte
    if (offset % per != 0 || bytes % 32 != 0)
        fail(Diag::UbMisaligned, loc,
             "%s at an offset of %u elements (%llu bytes): the offset tensor's UB address must be 32-byte aligned; "
             "use an offset that is a multiple of %llu elements", api, offset,
             (unsigned long long)bytes, (unsigned long long)(32 * per / sizeof(T)));
    const T* data = reinterpret_cast<const T*>(reinterpret_cast<const uint8_t*>(tensor.GetPhyAddrPtr()) + bytes);
    dump(c, data, count, desc, tensor.GetPhyAddr(offset), local_position(tensor.GetPosition()), shape);
}

template <typename T>
void dump_global(const AscendC::GlobalTensor<T>& tensor, uint32_t desc, uint64_t offset, uint32_t count,
                 const char* api, Loc loc, const AscendC::ShapeInfo* shape = nullptr) {
    if (!dump_on()) return;
    const CoreState& c = core(loc);
    if (count == 0) return dump(c, static_cast<const T*>(nullptr), 0, desc, 0, "GM", shape);
    if (is_int4_v<T> && offset % 2 != 0)
        fail(Diag::BadArgument, loc, "%s of a GlobalTensor<int4b_t> at an odd element offset (inside a byte)", api);
    const uint64_t span = (uint64_t(count) + elems_per_unit<T> - 1) / elems_per_unit<T> * sizeof(T);
    const uint8_t* bytes = check_gm(tensor.GetPhyAddr(offset), span, api, loc, tensor.sim_home());
    dump(c, reinterpret_cast<const T*>(bytes), count, desc, reinterpret_cast<uint64_t>(tensor.GetPhyAddr(offset)),
         "GM", shape);
}

// The expression's spelling: the macro's argument text up to its first top-level comma.
inline std::string assert_expression(const char* spelled) {
    int depth = 0;
    char quote = 0;
    std::string text;
    for (const char* p = spelled; *p; ++p) {
        if (quote) {
            if (*p == '\\' && p[1]) text += *p++;
            else if (*p == quote) quote = 0;
        } else if (*p == '"' || *p == '\'') {
            quote = *p;
        } else if (*p == '(' || *p == '[' || *p == '{') {
            ++depth;
        } else if (*p == ')' || *p == ']' || *p == '}') {
            --depth;
        } else if (*p == ',' && depth == 0) {
            break;
        }
        text += *p;
    }
    return text;
}

[[noreturn]] inline void assert_report(Loc loc, const char* spelled, const std::string& message) {
    const CoreState& c = core(loc);
    std::string line = "[ASSERT] " + std::string(loc.file) + ":" + std::to_string(loc.line) + ": Assertion `" +
                       assert_expression(spelled) + "'" + (message.empty() ? "" : " " + message);
    while (!line.empty() && line.back() == '\n') line.pop_back();
    emit(c, line);
    std::string tail = t_tail_owner == &c ? std::string(t_block_tail, t_block_tail_size) : std::string();
    fail(Diag::BadArgument, loc,  // a kind of its own needs a case in tests/diag_kernels
         "assert failed in block %u: Assertion `%s'%s%s. The kernel stopped here, as it does on the NPU; fix the "
         "condition or the data that broke it.%s%.700s",
         c.block_idx, assert_expression(spelled).c_str(), message.empty() ? "" : " ", message.c_str(),
         tail.empty() ? "" : "\nprintf: this block's last debug output:\n", tail.c_str());
}

}  // namespace debug_detail

inline void assert_failed(Loc loc, const char* spelled, bool) { debug_detail::assert_report(loc, spelled, ""); }

template <typename... Args>
void assert_failed(Loc loc, const char* spelled, bool, const char* fmt, const Args&... args) {
    debug_detail::assert_report(loc, spelled, debug_detail::format(fmt, args...));
}

// AscendC::printf (reached as a using-declaration, so that the screen keeps refusing the bare C name).
template <typename... Args>
void printf(const char* fmt, const Args&... args) {
    if (!dump_on()) return;
    const CoreState& c = core(Loc{});
    debug_detail::emit(c, debug_detail::format(fmt, args...));
}

}  // namespace ascendc_sim

namespace AscendC {

using ::ascendc_sim::printf;

template <typename T>
void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::debug_detail::dump_local(tensor, desc, 0, dumpSize, "DumpTensor", loc);
}
template <typename T>
void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::debug_detail::dump_global(tensor, desc, 0, dumpSize, "DumpTensor", loc);
}

template <typename T>
void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo& shapeInfo,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    if (!ascendc_sim::dump_on()) return;
    ascendc_sim::debug_detail::check_shape(shapeInfo, loc);
    ascendc_sim::debug_detail::dump_local(tensor, desc, 0, dumpSize, "DumpTensor", loc, &shapeInfo);
}
template <typename T>
void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo& shapeInfo,
                ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    if (!ascendc_sim::dump_on()) return;
    ascendc_sim::debug_detail::check_shape(shapeInfo, loc);
    ascendc_sim::debug_detail::dump_global(tensor, desc, 0, dumpSize, "DumpTensor", loc, &shapeInfo);
}

// PrintTimeStamp.md: on the NPU it prints only in a build with -DASCENDC_TIME_STAMP_ON; the simulator's headers
// are precompiled without the kernel's options, so it always records the line (in the debug text only).
// timeStamp is the block's busiest pipe in the cost model's estimate, in cycles of the SoC's clock.
inline void PrintTimeStamp(uint32_t descId, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (c.soc().arch != 0)
        ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc, "PrintTimeStamp is documented for Atlas A2/A3 only, "
                          "not for %s; remove the call for this SoC", c.soc().name);
    double now = *std::max_element(c.pipe_free, c.pipe_free + ASCENDC_SIM_PIPES);
    auto cycles = static_cast<unsigned long long>(now * c.soc().clock_ghz);
    ascendc_sim::debug_detail::emit(c, ascendc_sim::debug_detail::format(
        "descId is %u, rsv is 0, timeStamp is %llu, pcPtr is 0, entry is 0.", descId, cycles));
}

// Stops the kernel where it is called: the launch fails at this line (Trap.md).
[[noreturn]] inline void Trap(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                      "Trap() called: the kernel stopped here, as it does on the NPU; the launch has failed");
}

template <typename T>
void DumpAccChkPoint(const LocalTensor<T>& tensor, uint32_t index, uint32_t countOff, uint32_t dumpSize,
                     ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::debug_detail::dump_local(tensor, index, countOff, dumpSize, "DumpAccChkPoint", loc);
}
template <typename T>
void DumpAccChkPoint(const GlobalTensor<T>& tensor, uint32_t index, uint32_t countOff, uint32_t dumpSize,
                     ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::debug_detail::dump_global(tensor, index, countOff, dumpSize, "DumpAccChkPoint", loc);
}

}  // namespace AscendC

// Takes the debug text collected since the last call (the runtime calls it after each launch):
// copies up to `size` - 1 bytes and a NUL into `buffer`, clears the buffer and returns the text's length.
// With no buffer it only returns the length, so that a launch that printed nothing costs no copy.
extern "C" inline __attribute__((used, visibility("default"))) uint64_t ascendc_sim_debug_output(char* buffer,
                                                                                               uint64_t size) {
    ascendc_sim::debug_detail::Output& out = ascendc_sim::debug_detail::output();
    std::lock_guard<std::mutex> lock(out.mutex);
    uint64_t length = out.text.size();
    if (buffer == nullptr) return length;
    if (size > 0) std::snprintf(buffer, size, "%s", out.text.c_str());
    out.text.clear();
    out.truncated = false;
    return length;
}

#define PRINTF(...) ::ascendc_sim::printf(__VA_ARGS__)
#define ASCENDC_SIM_ASSERT_CONDITION(condition, ...) (condition)
// With ASCENDC_DUMP 0 the condition is not evaluated (the pages: each assert adds a check that the switch removes).
#define ascendc_assert(...)                                                                        \
    (!::ascendc_sim::dump_on() || static_cast<bool>(ASCENDC_SIM_ASSERT_CONDITION(__VA_ARGS__, 0))  \
         ? (void)0                                                                                 \
         : ::ascendc_sim::assert_failed(::ascendc_sim::Loc::here(), #__VA_ARGS__, __VA_ARGS__))
#undef assert
#define assert(...) ascendc_assert(__VA_ARGS__)
#define ASSERT(...) ascendc_assert(__VA_ARGS__)
