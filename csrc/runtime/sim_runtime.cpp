// The runtime module: loads simulator kernel libraries and launches them through the launch ABI.
// Built once per machine and toolchain (torch_ascendgen/runtime.py); it has no torch headers, so
// it builds in seconds. Launches release the GIL.
#include <dlfcn.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
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

template <typename Fn>
Fn symbol(void* handle, const char* name, const std::string& path) {
    void* address = dlsym(handle, name);
    if (address == nullptr)
        throw std::runtime_error(path + " is not a simulator kernel library: it has no " + name);
    return reinterpret_cast<Fn>(address);
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
    py::dict run(uint32_t block_dim, const py::dict& soc_dict, const std::vector<std::string>& values,
                 const std::vector<std::tuple<uint64_t, uint64_t, int32_t>>& region_list, bool counters) {
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
        for (const auto& [base, bytes, index] : region_list) regions.push_back(SimRegion{base, bytes, index, 1});
        std::vector<SimCoreReport> cores(block_dim);
        SimLaunchRequest request{block_dim, &soc, pointers.data(), regions.data(), uint32_t(regions.size())};
        SimLaunchResult result{};
        result.cores = cores.data();
        {
            py::gil_scoped_release release;
            run_(&request, &result);
        }
        return to_dict(result, cores, counters);
    }

private:
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
        static const char* const pipes[ASCENDC_SIM_PIPES] = {"MTE2", "V", "MTE3", "S"};
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
             py::arg("counters") = true);
}
