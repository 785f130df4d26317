// The runtime module: loads simulator kernel libraries and launches them through the launch ABI.
// Built once per machine and toolchain (torch_ascendgen/runtime.py); it has no torch headers, so
// it builds in seconds. Launches release the GIL.
//
// Checked launches (the search's child and the serving worker run model-written kernels this way):
// the kernel is handed GM addresses in memory nobody can access (PROT_NONE, with guard gaps between
// the buffers), while the simulator's API reaches the bytes through each region's alias, the
// tensor's own memory (core.h check_gm). So any raw-pointer access by kernel code, in bounds or not,
// faults, and the fault handler names the argument, the offset and the code before the process
// dies: the simulator's bounds, race and cost checks see GM only through its API, so GM access
// around them is refused. Each core's UB gets an inaccessible shadow the same way (LocalTensor::
// GetPhyAddr). The reservation is address space only and is reused from launch to launch.
#include <dlfcn.h>
#include <link.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "../ascendc_sim/sim/launch_abi.h"

namespace py = pybind11;

namespace {

using AbiVersionFn = int (*)();
using NameFn = const char* (*)();
using ArgsFn = int (*)(const SimArgInfo**);
using OpCountFn = int (*)();
using OpNameFn = const char* (*)(int);
using RunFn = int (*)(const SimLaunchRequest*, SimLaunchResult*);
using TilingSizeFn = uint32_t (*)();
using TilingFn = uint32_t (*)(uint32_t, int32_t, const int32_t*, const int64_t*, void*, uint64_t*);
using DebugOutputFn = uint64_t (*)(char*, uint64_t);

// The library keeps at most 64 KB of debug text per launch (sim/debug.h): one buffer holds it all.
constexpr uint64_t kDebugBufferBytes = (64u << 10) + 1;

template <typename Fn>
Fn symbol(void* handle, const char* name, const std::string& path) {
    void* address = dlsym(handle, name);
    if (address == nullptr)
        throw std::runtime_error(path + " is not a simulator kernel library: it has no " + name);
    return reinterpret_cast<Fn>(address);
}

// ---- checked launches ------------------------------------------------------------------------------

constexpr uint64_t kGuardBytes = 64 << 10;  // inaccessible gap before, between and after the buffers
constexpr int kMaxWindows = 64;

uint64_t page_round(uint64_t bytes) {
    uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    return (bytes + page - 1) / page * page;
}

struct Window {
    uint64_t lo;
    uint64_t bytes;
    int32_t arg;
    char label[48];
};

// What the fault handler reads: written under g_checked_mutex while `active` is 0, then published.
struct FaultMap {
    std::atomic<int> active{0};
    uint64_t lo = 0, hi = 0;  // the whole reservation
    Window windows[kMaxWindows];
    int n = 0;
    uint64_t ub_lo = 0, ub_stride = 0, ub_bytes = 0;
    uint64_t lib_base = 0, lib_end = 0;
    char lib_path[512] = {};
    char kernel[128] = {};
};

FaultMap g_fault;
std::mutex g_checked_mutex;  // one checked launch at a time: one reservation, one fault map
std::atomic<int> g_reporting{0};
struct sigaction g_previous[2];

// Async-signal-safe text building: the handler may use neither stdio nor the heap.
struct Text {
    char data[2048];
    size_t size = 0;
    Text& operator<<(const char* s) {
        while (*s && size + 1 < sizeof data) data[size++] = *s++;
        return *this;
    }
    Text& dec(uint64_t v) {
        char digits[24];
        int n = 0;
        do digits[n++] = char('0' + v % 10); while ((v /= 10) != 0);
        while (n > 0 && size + 1 < sizeof data) data[size++] = digits[--n];
        return *this;
    }
    Text& hex(uint64_t v) {
        *this << "0x";
        char digits[24];
        int n = 0;
        do digits[n++] = "0123456789abcdef"[v % 16]; while ((v /= 16) != 0);
        while (n > 0 && size + 1 < sizeof data) data[size++] = digits[--n];
        return *this;
    }
    void write_to(int fd) const {
        size_t done = 0;
        while (done < size) {
            ssize_t n = ::write(fd, data + done, size - done);
            if (n <= 0) return;
            done += size_t(n);
        }
    }
};

// 1: the faulting access was a write, 0: a read, -1: the CPU does not say (or we cannot read it).
int access_kind(const void* context) {
#if defined(__x86_64__)
    const auto* uc = static_cast<const ucontext_t*>(context);
    return (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;  // page-fault error code, bit 1: write
#else
    (void)context;
    return -1;
#endif
}

uint64_t fault_pc(const void* context) {
    const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
    return uint64_t(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    return uint64_t(uc->uc_mcontext.pc);
#else
    (void)uc;
    return 0;
#endif
}

// Where in the reservation `address` is, in the kernel's terms.
void describe_place(Text& t, uint64_t address) {
    const FaultMap& m = g_fault;
    if (m.ub_stride != 0 && address >= m.ub_lo) {
        uint64_t slot = (address - m.ub_lo) / m.ub_stride, offset = (address - m.ub_lo) % m.ub_stride;
        t << "UB through a raw pointer (an address from LocalTensor::GetPhyAddr): byte ";
        t.dec(offset) << (offset >= m.ub_bytes ? " (past the end of UB)" : "") << " of a core's UB (core slot ";
        t.dec(slot) << ")";
        return;
    }
    const Window* best = nullptr;
    uint64_t best_distance = ~uint64_t(0);
    for (int i = 0; i < m.n; ++i) {
        const Window& w = m.windows[i];
        uint64_t distance = address < w.lo ? w.lo - address : address >= w.lo + w.bytes ? address - (w.lo + w.bytes) + 1 : 0;
        if (distance < best_distance) best = &w, best_distance = distance;
    }
    t << "GM through a raw pointer: ";
    if (best == nullptr) {
        t << "an address in the checked launch's guard memory";
        return;
    }
    if (address < best->lo) {
        t.dec(best->lo - address) << " bytes before the start of kernel argument ";
        t.dec(uint64_t(best->arg)) << best->label << ", which has ";
        t.dec(best->bytes) << " bytes";
        return;
    }
    t << "byte ";
    t.dec(address - best->lo) << " of kernel argument ";
    t.dec(uint64_t(best->arg)) << best->label << ", which has ";
    t.dec(best->bytes) << (address >= best->lo + best->bytes ? " bytes: past its end" : " bytes: in bounds");
}

void report_fault(uint64_t address, const void* context) {
    const FaultMap& m = g_fault;
    bool ub = m.ub_stride != 0 && address >= m.ub_lo;
    int kind = access_kind(context);
    uint64_t pc = fault_pc(context);
    Text t;
    t << "\nascendgen: kernel " << m.kernel << (kind == 1 ? " wrote to " : kind == 0 ? " read from " : " accessed ");
    describe_place(t, address);
    t << " (address ";
    t.hex(address) << "). ";
    if (ub)
        t << "In a checked launch the UB addresses a kernel is given cannot be dereferenced: the cost model sees UB "
             "only through the API, so scalar work must use LocalTensor::GetValue/SetValue (charged on the scalar "
             "pipe) or vector instructions.\n";
    else
        t << "In a checked launch every raw GM access is refused, in bounds or not: the simulator, its cost model "
             "and its race checks see GM only through GlobalTensor/DataCopy: use DataCopy/DataCopyPad, or "
             "GlobalTensor::GetValue/SetValue for scalars.\n";
    if (pc >= m.lib_base && pc < m.lib_end) {
        t << "ascendgen-fault-pc: ";
        t.hex(pc - m.lib_base) << " in " << m.lib_path << "\n";
    } else {
        t << "ascendgen: the faulting instruction (";
        t.hex(pc) << ") is outside the kernel library: in a library function the kernel called (memcpy?)\n";
    }
    t.write_to(2);
}

void on_fault(int sig, siginfo_t* info, void* context) {
    uint64_t address = reinterpret_cast<uint64_t>(info->si_addr);
    bool ours = g_fault.active.load() != 0 && address >= g_fault.lo && address < g_fault.hi;
    if (ours && g_reporting.exchange(1) == 0) {
        report_fault(address, context);
    } else if (ours) {
        struct timespec wait = {1, 0};  // another thread is writing the report; the process dies after it
        nanosleep(&wait, nullptr);
    }
    // Returning re-runs the access: it faults again, now under the default action (the process dies)
    // or, for a fault that is not a checked launch's, under whatever handler was there before.
    struct sigaction fallback = {};
    fallback.sa_handler = SIG_DFL;
    sigaction(sig, ours ? &fallback : &g_previous[sig == SIGSEGV ? 0 : 1], nullptr);
}

void install_fault_handler() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction action = {};
        action.sa_sigaction = on_fault;
        action.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        sigaction(SIGSEGV, &action, &g_previous[0]);
        sigaction(SIGBUS, &action, &g_previous[1]);
    });
}

// Inaccessible address space for the kernel's view of GM and UB, kept and grown between launches.
uint64_t reserve(uint64_t bytes) {
    static void* base = nullptr;
    static uint64_t size = 0;
    if (bytes > size) {
        if (base != nullptr) munmap(base, size);
        uint64_t want = (bytes + (16u << 20) - 1) / (16u << 20) * (16u << 20);
        base = mmap(nullptr, want, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base == MAP_FAILED) {
            base = nullptr;
            size = 0;
            throw std::runtime_error("a checked launch could not reserve " + std::to_string(want) +
                                     " bytes of address space for the kernel's view of its buffers");
        }
        size = want;
    }
    return reinterpret_cast<uint64_t>(base);
}

// The library's loaded extent, so that the fault handler can tell a PC in the kernel from one elsewhere.
struct Extent {
    uint64_t base = 0, end = 0;
    std::string path;
};

Extent library_extent(void* symbol_in_library) {
    Dl_info info{};
    Extent extent;
    if (dladdr(symbol_in_library, &info) == 0 || info.dli_fbase == nullptr) return extent;
    extent.base = reinterpret_cast<uint64_t>(info.dli_fbase);
    extent.path = info.dli_fname ? info.dli_fname : "";
    dl_iterate_phdr(
        [](struct dl_phdr_info* object, size_t, void* data) {
            auto* e = static_cast<Extent*>(data);
            if (object->dlpi_addr != e->base) return 0;
            for (int i = 0; i < object->dlpi_phnum; ++i)
                if (object->dlpi_phdr[i].p_type == PT_LOAD)
                    e->end = std::max<uint64_t>(e->end, e->base + object->dlpi_phdr[i].p_vaddr + object->dlpi_phdr[i].p_memsz);
            return 1;
        },
        &extent);
    return extent;
}

SimSocProfile soc_from_dict(const py::dict& soc) {
    SimSocProfile profile{};
    std::snprintf(profile.name, sizeof profile.name, "%s", soc["name"].cast<std::string>().c_str());
    profile.arch = soc["arch"].cast<int32_t>();
    profile.ub_bytes = soc["ub_bytes"].cast<uint32_t>();
    profile.vector_cores = soc["vector_cores"].cast<uint32_t>();
    profile.has_datacopy_pad = soc["has_datacopy_pad"].cast<uint32_t>();
    profile.clock_ghz = soc["clock_ghz"].cast<double>();
    profile.hbm_bytes_per_ns = soc["hbm_bytes_per_ns"].cast<double>();
    profile.core_gm_bytes_per_ns = soc["core_gm_bytes_per_ns"].cast<double>();
    profile.cube_cores = soc["cube_cores"].cast<uint32_t>();
    profile.l1_bytes = soc["l1_bytes"].cast<uint32_t>();
    profile.l0a_bytes = soc["l0a_bytes"].cast<uint32_t>();
    profile.l0b_bytes = soc["l0b_bytes"].cast<uint32_t>();
    profile.l0c_bytes = soc["l0c_bytes"].cast<uint32_t>();
    profile.bt_bytes = soc["bt_bytes"].cast<uint32_t>();
    profile.fb_bytes = soc["fb_bytes"].cast<uint32_t>();
    return profile;
}

class KernelLibrary {
public:
    explicit KernelLibrary(const std::string& path) : path_(path) {
        handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle_ == nullptr) throw std::runtime_error(std::string("cannot load kernel library: ") + dlerror());
        int version = symbol<AbiVersionFn>(handle_, "ascendc_sim_abi_version", path)();
        if (version != ASCENDC_SIM_ABI_VERSION)
            throw std::runtime_error(path + " was built for simulator ABI " + std::to_string(version) + ", not " +
                                     std::to_string(ASCENDC_SIM_ABI_VERSION) + "; rebuild it");
        name_ = symbol<NameFn>(handle_, "ascendc_sim_kernel_name", path)();
        const SimArgInfo* infos = nullptr;
        int count = symbol<ArgsFn>(handle_, "ascendc_sim_kernel_args", path)(&infos);
        args_.assign(infos, infos + count);
        OpNameFn op_name = symbol<OpNameFn>(handle_, "ascendc_sim_op_name", path);
        int ops = symbol<OpCountFn>(handle_, "ascendc_sim_op_count", path)();
        for (int i = 0; i < ops; ++i) op_names_.emplace_back(op_name(i));
        run_ = symbol<RunFn>(handle_, "ascendc_sim_run", path);
        tiling_size_ = reinterpret_cast<TilingSizeFn>(dlsym(handle_, "ascendc_sim_tiling_size"));
        tiling_ = reinterpret_cast<TilingFn>(dlsym(handle_, "ascendc_sim_tiling"));
        debug_output_ = reinterpret_cast<DebugOutputFn>(dlsym(handle_, "ascendc_sim_debug_output"));  // absent: older
        extent_ = library_extent(reinterpret_cast<void*>(run_));
    }
    // Libraries stay loaded for the life of the process: a kernel may be launched again at any time.

    const std::string& name() const { return name_; }
    py::list args() const {
        py::list out;
        for (const SimArgInfo& a : args_) out.append(py::make_tuple(a.kind, a.size));
        return out;
    }

    bool has_tiling() const { return tiling_ != nullptr; }

    // The kernel contract's host tiling for these shapes: (tiling bytes, block count, workspace bytes).
    py::tuple tiling(uint32_t core_num, const std::vector<std::vector<int64_t>>& shapes) const {
        if (tiling_ == nullptr) throw std::runtime_error(path_ + " exports no ascendgen_tiling function");
        std::vector<int32_t> ranks;
        std::vector<int64_t> dims;
        for (const auto& shape : shapes) {
            ranks.push_back(int32_t(shape.size()));
            dims.insert(dims.end(), shape.begin(), shape.end());
        }
        std::string bytes(tiling_size_(), '\0');
        uint64_t workspace = 0;
        uint32_t blocks = tiling_(core_num, int32_t(shapes.size()), ranks.data(), dims.data(), bytes.data(), &workspace);
        return py::make_tuple(py::bytes(bytes), blocks, workspace);
    }

    // values: one bytes object per kernel parameter holding the value to pass (an address for a pointer).
    // regions: (address, bytes, argument index) for every GM buffer the kernel may touch.
    // checked: hand the kernel inaccessible addresses (see the top of this file); labels name the
    // arguments in a fault report ("input 0"). block_order_seed: 0 runs blocks in order.
    py::dict run(uint32_t block_dim, const py::dict& soc_dict, const std::vector<std::string>& values,
                 const std::vector<std::tuple<uint64_t, uint64_t, int32_t>>& region_list, bool counters,
                 bool checked, uint64_t block_order_seed, const std::vector<std::string>& labels, bool auto_sync) {
        if (values.size() != args_.size())
            throw std::invalid_argument(name_ + " takes " + std::to_string(args_.size()) + " arguments, got " +
                                        std::to_string(values.size()));
        for (size_t i = 0; i < values.size(); ++i)
            if (values[i].size() != size_t(args_[i].size))
                throw std::invalid_argument("argument " + std::to_string(i) + " has " + std::to_string(values[i].size()) +
                                            " bytes; the kernel parameter has " + std::to_string(args_[i].size));
        SimSocProfile soc = soc_from_dict(soc_dict);
        std::vector<std::vector<uint64_t>> storage;  // 8-byte aligned copies of the values
        std::vector<void*> pointers;
        for (const std::string& v : values) {
            storage.emplace_back((v.size() + 7) / 8 + 1, 0);
            std::memcpy(storage.back().data(), v.data(), v.size());
        }
        for (auto& s : storage) pointers.push_back(s.data());
        std::vector<SimRegion> regions;
        for (const auto& [base, bytes, index] : region_list) regions.push_back(SimRegion{base, bytes, index, 1, 0});
        std::vector<SimCoreReport> cores(block_dim);
        SimLaunchRequest request{block_dim, &soc, pointers.data(), regions.data(), uint32_t(regions.size()),
                                 block_order_seed, 0, 0, uint32_t(auto_sync)};
        SimLaunchResult result{};
        result.cores = cores.data();
        std::string debug_text;
        {
            py::gil_scoped_release release;
            if (checked) {
                std::lock_guard<std::mutex> one_at_a_time(g_checked_mutex);
                hide_buffers(request, regions, storage, labels);
                install_fault_handler();
                g_fault.active.store(1);
                run_(&request, &result);
                g_fault.active.store(0);
            } else {
                run_(&request, &result);
            }
            debug_text = take_debug_text();
        }
        py::dict out = to_dict(result, cores, counters);
        PyObject* text = PyUnicode_DecodeUTF8(debug_text.data(), Py_ssize_t(debug_text.size()), "replace");
        if (text == nullptr) throw py::error_already_set();
        out["debug_text"] = py::reinterpret_steal<py::str>(text);
        return out;
    }

private:
    // The debug text (printf, DumpTensor, assert) the library collected since the last take, which clears it:
    // taken after every launch, so that each launch reports only its own. Two launches of one library running
    // at once share the library's one buffer.
    std::string take_debug_text() const {
        if (debug_output_ == nullptr || debug_output_(nullptr, 0) == 0) return {};  // the usual launch: no text
        std::string text(kDebugBufferBytes, '\0');
        uint64_t length = debug_output_(text.data(), text.size());
        text.resize(std::min<uint64_t>(length, text.size() - 1));
        if (length >= kDebugBufferBytes) text += "\n[debug output truncated: more than 65536 bytes in one launch]\n";
        return text;
    }

    // Moves the kernel's view of every region (and of each resident core's UB) into the inaccessible
    // reservation, and fills the fault map. Under g_checked_mutex, no checked launch running.
    void hide_buffers(SimLaunchRequest& request, std::vector<SimRegion>& regions,
                      std::vector<std::vector<uint64_t>>& storage, const std::vector<std::string>& labels) const {
        if (regions.size() > size_t(kMaxWindows))
            throw std::invalid_argument("a checked launch takes at most " + std::to_string(kMaxWindows) + " GM buffers");
        // A mixed launch (kernel_type.h) runs two vector cores per block: room for every vector core of the SoC.
        uint32_t resident = std::max<uint32_t>(1, request.soc->vector_cores);
        uint64_t ub_stride = page_round(request.soc->ub_bytes) + kGuardBytes;
        uint64_t total = kGuardBytes;
        for (const SimRegion& r : regions) total += page_round(r.bytes) + kGuardBytes;
        total += uint64_t(resident) * ub_stride;
        uint64_t at = reserve(total) + kGuardBytes;
        FaultMap& m = g_fault;
        m.lo = at - kGuardBytes;
        m.hi = m.lo + total;
        m.n = 0;
        for (SimRegion& r : regions) {
            r.alias = r.base;
            r.base = at;
            if (r.arg_index >= 0 && size_t(r.arg_index) < storage.size()) storage[r.arg_index][0] = at;
            Window& w = m.windows[m.n++];
            w.lo = at;
            w.bytes = r.bytes;
            w.arg = r.arg_index;
            std::string label = size_t(r.arg_index) < labels.size() ? labels[r.arg_index] : "";
            std::snprintf(w.label, sizeof w.label, "%s%s%s", label.empty() ? "" : " (", label.c_str(),
                          label.empty() ? "" : ")");
            at += page_round(r.bytes) + kGuardBytes;
        }
        request.ub_shadow = at;
        request.ub_shadow_stride = ub_stride;
        m.ub_lo = at;
        m.ub_stride = ub_stride;
        m.ub_bytes = request.soc->ub_bytes;
        m.lib_base = extent_.base;
        m.lib_end = extent_.end;
        std::snprintf(m.lib_path, sizeof m.lib_path, "%s", extent_.path.c_str());
        std::snprintf(m.kernel, sizeof m.kernel, "%s", name_.c_str());
    }

    // counters: also each core's counters (a dict per core); the run path of a kernel op needs none.
    py::dict to_dict(const SimLaunchResult& result, const std::vector<SimCoreReport>& cores, bool counters) const {
        py::dict out;
        out["status"] = result.status;
        if (result.status == 1) {
            py::dict diag;
            diag["kind"] = std::string(result.diag.kind);
            diag["message"] = std::string(result.diag.message);
            diag["file"] = std::string(result.diag.file);
            diag["line"] = result.diag.line;
            diag["block"] = result.diag.block;
            out["diagnostic"] = diag;
        }
        out["est_ns"] = result.est_ns;
        out["est_launch_ns"] = result.est_launch_ns;
        out["est_hbm_ns"] = result.est_hbm_ns;
        py::list per_core;
        static const char* const pipes[ASCENDC_SIM_PIPES] = {"MTE2", "V", "MTE3", "S", "MTE1", "M", "FIX"};
        for (const SimCoreReport& c : cores) {
            if (!counters) break;
            py::dict d;
            d["gm_to_ub_bytes"] = c.gm_to_ub_bytes;
            d["ub_to_gm_bytes"] = c.ub_to_gm_bytes;
            d["ub_to_ub_bytes"] = c.ub_to_ub_bytes;
            d["gm_scalar_reads"] = c.gm_scalar_reads;
            d["gm_scalar_writes"] = c.gm_scalar_writes;
            d["data_copies"] = c.data_copies;
            py::dict ops;
            for (size_t i = 0; i < op_names_.size(); ++i)
                if (c.op_instrs[i] != 0) ops[py::str(op_names_[i])] = py::make_tuple(c.op_instrs[i], c.op_repeats[i]);
            d["vector_ops"] = ops;
            py::dict busy;
            for (int p = 0; p < ASCENDC_SIM_PIPES; ++p) busy[pipes[p]] = c.pipe_busy_ns[p];
            d["pipe_busy_ns"] = busy;
            d["est_ns"] = c.est_ns;
            per_core.append(d);
        }
        out["cores"] = per_core;
        return out;
    }

    std::string path_;
    void* handle_ = nullptr;
    std::string name_;
    std::vector<SimArgInfo> args_;
    std::vector<std::string> op_names_;
    RunFn run_ = nullptr;
    TilingSizeFn tiling_size_ = nullptr;
    TilingFn tiling_ = nullptr;
    DebugOutputFn debug_output_ = nullptr;
    Extent extent_;
};

}  // namespace

PYBIND11_MODULE(ascendgen_sim_runtime, m) {
    m.doc() = "torch_ascendgen: loads and launches AscendC simulator kernel libraries";
    m.attr("ABI_VERSION") = ASCENDC_SIM_ABI_VERSION;
    py::class_<KernelLibrary>(m, "KernelLibrary")
        .def(py::init<const std::string&>())
        .def_property_readonly("name", &KernelLibrary::name)
        .def_property_readonly("args", &KernelLibrary::args)
        .def_property_readonly("has_tiling", &KernelLibrary::has_tiling)
        .def("tiling", &KernelLibrary::tiling)
        .def("run", &KernelLibrary::run, py::arg("block_dim"), py::arg("soc"), py::arg("values"), py::arg("regions"),
             py::arg("counters") = true, py::arg("checked") = false, py::arg("block_order_seed") = 0,
             py::arg("labels") = std::vector<std::string>{}, py::arg("auto_sync") = false);
}
