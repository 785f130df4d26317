// The driver an operator project's host library is built with (torch_ascendgen/targets/sim/op_host.py): it
// instantiates the OP_ADD-registered OpDef, describes it (inputs, outputs, attributes, dtype/format
// combinations) or runs its host code for one call (InferShape, InferDataType, TilingFunc) and answers in a
// line-based text protocol. It runs in a sandboxed child only: the op's host code is untrusted.
#include <cstdio>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "register/op_def_registry.h"

namespace ascendgen_host {
namespace {

std::string join_ints(const std::vector<int64_t>& values) {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
    return out.empty() ? "-" : out;
}

template <typename E>
std::vector<int64_t> as_ints(const std::vector<E>& values) {
    return std::vector<int64_t>(values.begin(), values.end());
}

std::string one_line(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

std::string hex(const void* data, size_t size) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    const auto* bytes = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < size; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 15];
    }
    return out.empty() ? "-" : out;
}

std::string unhex(const std::string& text) {
    std::string out;
    if (text == "-") return out;
    for (size_t i = 0; i + 1 < text.size(); i += 2) out += char(std::stoi(text.substr(i, 2), nullptr, 16));
    return out;
}

struct Request {
    std::string mode, op, soc_family;
    fe::PlatFormInfos platform;
    std::vector<std::vector<TensorArg>> ir_inputs;  // per OpDef input, its instances
    std::vector<TensorArg> outputs;
    std::vector<std::pair<size_t, gert::AttrValue>> attrs;  // the values the caller gave
};

gert::Shape read_shape(std::istringstream& in) {
    int rank = 0;
    in >> rank;
    gert::Shape shape;
    for (int d = 0; d < rank; ++d) {
        int64_t v = 0;
        in >> v;
        shape.AppendDim(v);
    }
    return shape;
}

TensorArg read_tensor(std::istringstream& in) {
    TensorArg t;
    int dtype = 0, format = 0;
    in >> dtype >> format;
    t.desc.SetDataType(ge::DataType(dtype));
    t.desc.SetFormat(ge::Format(format));
    t.shape = gert::StorageShape(read_shape(in));
    t.sync();
    return t;
}

gert::AttrValue read_attr(std::istringstream& in) {
    gert::AttrValue v;
    int kind = 0;
    in >> kind;
    v.kind = gert::AttrKind(kind);
    size_t n = 0;
    std::string word;
    switch (v.kind) {
        case gert::AttrKind::Bool: in >> n; v.b = n != 0; break;
        case gert::AttrKind::Int: in >> v.i; break;
        case gert::AttrKind::Float: in >> word; v.f = std::stof(word); break;
        case gert::AttrKind::Str: in >> word; v.s = unhex(word); break;
        case gert::AttrKind::ListInt: in >> n; v.ints.resize(n); for (auto& x : v.ints) in >> x; break;
        case gert::AttrKind::ListFloat:
            in >> n;
            v.floats.resize(n);
            for (auto& x : v.floats) { in >> word; x = std::stof(word); }
            break;
        case gert::AttrKind::ListBool:
            in >> n;
            v.bools.resize(n);
            for (auto& x : v.bools) { int b = 0; in >> b; x = uint8_t(b != 0); }
            break;
    }
    return v;
}

Request parse(const std::string& text) {
    Request r;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream in(line);
        std::string key;
        in >> key;
        if (key == "mode") in >> r.mode;
        else if (key == "op") in >> r.op;
        else if (key == "soc") in >> r.platform.soc_name >> r.soc_family >> r.platform.arch >> r.platform.vector_cores >>
                                   r.platform.cube_cores >> r.platform.ub_bytes >> r.platform.l1_bytes >>
                                   r.platform.l0a_bytes >> r.platform.l0b_bytes >> r.platform.l0c_bytes;
        else if (key == "input") {  // input <OpDef index> <present> <dtype> <format> <rank> <dims...>
            size_t ir = 0;
            int present = 0;
            in >> ir >> present;
            if (r.ir_inputs.size() <= ir) r.ir_inputs.resize(ir + 1);
            if (present) r.ir_inputs[ir].push_back(read_tensor(in));
        } else if (key == "values") {  // values <OpDef index> <index within> <hex bytes>: a ValueDepend input
            size_t ir = 0, relative = 0;
            std::string bytes;
            in >> ir >> relative >> bytes;
            if (ir < r.ir_inputs.size() && relative < r.ir_inputs[ir].size()) {
                std::string raw = unhex(bytes);
                r.ir_inputs[ir][relative].values.assign(raw.begin(), raw.end());
            }
        } else if (key == "output") r.outputs.push_back(read_tensor(in));
        else if (key == "attr") {
            size_t index = 0;
            in >> index;
            r.attrs.emplace_back(index, read_attr(in));
        }
    }
    return r;
}

std::unique_ptr<ops::OpDef> instantiate(const std::string& op) {
    const auto& registry = op_registry();
    if (registry.empty()) host_fail("the op_host source registers no OpDef: end it with OP_ADD(<OpType>)");
    for (const auto& [name, factory] : registry)
        if (op == "-" || op.empty() || name == op) {
            if ((op == "-" || op.empty()) && registry.size() > 1)
                host_fail("the op_host source registers several OpDefs; name the one to run (op_type=)");
            return factory(name.c_str());
        }
    host_fail("the op_host source registers no OpDef named " + op);
}

// The parameter lists in force on the simulated SoC: its AddConfig's, when that config declares any.
const ops::OpParamList& params(const ops::OpDef& def, const std::string& family, bool inputs) {
    auto found = def.aicore().configs().find(family);
    if (found != def.aicore().configs().end()) {
        const ops::OpParamList& own = inputs ? found->second.inputs() : found->second.outputs();
        if (!own.all().empty()) return own;
    }
    return inputs ? def.inputs() : def.outputs();
}

void describe_params(std::ostringstream& out, const char* what, const ops::OpParamList& list) {
    for (const auto& p : list.all())
        out << what << ' ' << p.name() << ' ' << int(p.type()) << ' ' << join_ints(as_ints(p.dtypes())) << ' '
            << join_ints(as_ints(p.formats())) << ' ' << int(p.dtype_list()) << ' ' << int(p.format_list()) << ' '
            << int(p.value_depend()) << ' ' << (p.follow().empty() ? "-" : p.follow()) << '\n';
}

std::string describe(const ops::OpDef& def, const std::string& family) {
    std::ostringstream out;
    out << "ok\nop " << def.type() << '\n';
    describe_params(out, "input", params(def, family, true));
    describe_params(out, "output", params(def, family, false));
    for (const auto& a : def.attrs())
        out << "attr " << a.value().name << ' ' << (a.typed() ? int(a.value().kind) : -1) << ' ' << int(a.required())
            << ' ' << int(a.has_default()) << '\n';
    for (const auto& [soc, config] : def.aicore().configs()) out << "config " << soc << '\n';
    out << "functions " << int(bool(def.aicore().tiling())) << ' ' << int(bool(def.infer_shape())) << ' '
        << int(bool(def.infer_dtype())) << '\n';
    return out.str();
}

void fill_attrs(const ops::OpDef& def, const Request& r, OpCall& call) {
    for (const auto& a : def.attrs()) call.attrs.push_back(a.value());
    for (const auto& [index, value] : r.attrs) {
        if (index >= call.attrs.size()) host_fail("attribute index " + std::to_string(index) + " out of range");
        std::string name = call.attrs[index].name;
        call.attrs[index] = value;
        call.attrs[index].name = name;
    }
    for (size_t i = 0; i < def.attrs().size(); ++i) {
        const auto& a = def.attrs()[i];
        bool given = false;
        for (const auto& entry : r.attrs) given = given || entry.first == i;
        if (!given && !a.has_default())
            host_fail("attribute '" + a.value().name + "' has no default value (declare one, e.g. .Float(1.0), or "
                      "pass " + a.value().name + "=)");
    }
    for (auto& a : call.attrs) a.bind_list();
}

std::string run(const ops::OpDef& def, const Request& r) {
    OpCall call;
    call.op_type = def.type();
    call.platform = r.platform;
    call.ir_inputs = r.ir_inputs;
    call.outputs = r.outputs;
    const auto& inputs = params(def, r.soc_family, true).all();
    const auto& outputs = params(def, r.soc_family, false).all();
    call.ir_inputs.resize(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
        for (auto& t : call.ir_inputs[i]) t.name = inputs[i].name();
    for (size_t i = 0; i < call.outputs.size() && i < outputs.size(); ++i) call.outputs[i].name = outputs[i].name();
    call.index_instances();
    fill_attrs(def, r, call);
    platform_ascendc::current_platform() = &call.platform;

    std::ostringstream out;
    out << "ok\n";
    if (def.infer_shape()) {
        gert::InferShapeContext context(&call);
        ge::graphStatus status = def.infer_shape()(&context);
        if (status != ge::GRAPH_SUCCESS) return "error InferShape returned failure (status " + std::to_string(status) + ")\n";
        for (auto& o : call.outputs) {
            o.shape.MutableStorageShape() = o.shape.GetOriginShape();
            o.sync();
        }
    }
    if (def.infer_dtype()) {
        gert::InferDataTypeContext context(&call);
        ge::graphStatus status = def.infer_dtype()(&context);
        if (status != ge::GRAPH_SUCCESS)
            return "error InferDataType returned failure (status " + std::to_string(status) + ")\n";
    }
    for (size_t i = 0; i < call.outputs.size(); ++i) {
        const gert::Shape& s = call.outputs[i].shape.GetOriginShape();
        std::vector<int64_t> dims;
        for (size_t d = 0; d < s.GetDimNum(); ++d) dims.push_back(s.GetDim(d));
        out << "output " << i << ' ' << int(call.outputs[i].desc.GetDataType()) << ' ' << s.GetDimNum() << ' '
            << join_ints(dims) << '\n';
    }
    if (!def.aicore().tiling())
        return "error the OpDef sets no tiling function: add this->AICore().SetTiling(optiling::TilingFunc)\n";
    gert::TilingContext context(&call);
    ge::graphStatus status = def.aicore().tiling()(&context);
    std::vector<int64_t> workspaces(call.workspaces.begin(), call.workspaces.end());
    out << "status " << status << "\nblock_dim " << call.block_dim << "\ntiling_key " << call.tiling_key
        << "\ntiling_size " << call.tiling_size << "\ntiling_capacity " << call.tiling.size() << "\ntiling "
        << hex(call.tiling.data(), call.tiling_size) << "\nworkspaces " << join_ints(workspaces)
        << "\nschedule_mode " << call.schedule_mode << '\n';
    return out.str();
}

std::string answer(const char* request) {
    try {
        Request r = parse(request);
        auto def = instantiate(r.op);
        return r.mode == "describe" ? describe(*def, r.soc_family) : run(*def, r);
    } catch (const HostError& e) {
        return "error " + one_line(e.what()) + "\n";
    } catch (const std::exception& e) {
        return "error the op's host code threw " + one_line(e.what()) + "\n";
    } catch (...) {
        return "error the op's host code threw a non-standard exception\n";
    }
}

}  // namespace
}  // namespace ascendgen_host

extern "C" __attribute__((visibility("default"))) const char* ascendgen_op_host(const char* request) {
    static std::string response;
    response = ascendgen_host::answer(request);
    return response.c_str();
}
