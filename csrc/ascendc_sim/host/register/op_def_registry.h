// OpDef and friends of an operator project's op_host/<op>.cpp (clean-room, from the documented OpDef,
// OpParamDef, OpAttrDef, OpAICoreDef and OpAICoreConfig pages): the op's inputs, outputs and attributes,
// its dtype/format combinations, InferShape/InferDataType and its TilingFunc. OP_ADD registers the class;
// the simulator's driver (ascendgen_op_host.cpp) instantiates it, describes it to Python and runs its host code.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "register/host_error.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope { ALL = 0, TILING = 1 };
enum class FollowType { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3 };

using TilingFunc = std::function<ge::graphStatus(gert::TilingContext*)>;
using InferShapeFunc = std::function<ge::graphStatus(gert::InferShapeContext*)>;
using InferDataTypeFunc = std::function<ge::graphStatus(gert::InferDataTypeContext*)>;

class OpParamDef {
public:
    explicit OpParamDef(const char* name) : name_(name) {}

    OpParamDef& ParamType(Option type) { type_ = type; return *this; }
    OpParamDef& DataType(std::vector<ge::DataType> types) { dtypes_ = std::move(types); dtype_list_ = false; return *this; }
    OpParamDef& DataTypeList(std::vector<ge::DataType> types) { dtypes_ = std::move(types); dtype_list_ = true; return *this; }
    OpParamDef& Format(std::vector<ge::Format> formats) { formats_ = std::move(formats); format_list_ = false; return *this; }
    OpParamDef& FormatList(std::vector<ge::Format> formats) { formats_ = std::move(formats); format_list_ = true; return *this; }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format>) { return *this; }
    OpParamDef& ValueDepend(Option) { value_depend_ = true; return *this; }
    OpParamDef& ValueDepend(Option, DependScope) { value_depend_ = true; return *this; }
    OpParamDef& IgnoreContiguous() { return *this; }
    OpParamDef& AutoContiguous() { return *this; }
    OpParamDef& Scalar() { return *this; }
    OpParamDef& ScalarList() { return *this; }
    OpParamDef& To(ge::DataType) { return *this; }
    OpParamDef& To(const char*) { return *this; }
    OpParamDef& Version(uint32_t) { return *this; }
    OpParamDef& Comment(const char*) { return *this; }
    OpParamDef& OutputShapeDependOnCompute() { return *this; }
    OpParamDef& Follow(const char* name) { follow_ = name; return *this; }
    OpParamDef& Follow(const char* name, FollowType) { follow_ = name; return *this; }

    const std::string& name() const { return name_; }
    Option type() const { return type_; }
    const std::vector<ge::DataType>& dtypes() const { return dtypes_; }
    const std::vector<ge::Format>& formats() const { return formats_; }
    bool dtype_list() const { return dtype_list_; }
    bool format_list() const { return format_list_; }
    bool value_depend() const { return value_depend_; }
    const std::string& follow() const { return follow_; }

private:
    std::string name_;
    Option type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    std::vector<ge::Format> formats_;
    bool dtype_list_ = false;
    bool format_list_ = false;
    bool value_depend_ = false;
    std::string follow_;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char* name) { value_.name = name; }

    OpAttrDef& AttrType(Option type) { required_ = type == REQUIRED; return *this; }
    OpAttrDef& Bool() { return kind(gert::AttrKind::Bool); }
    OpAttrDef& Bool(bool v) { value_.b = v; return kind(gert::AttrKind::Bool, true); }
    OpAttrDef& Int() { return kind(gert::AttrKind::Int); }
    OpAttrDef& Int(int64_t v) { value_.i = v; return kind(gert::AttrKind::Int, true); }
    OpAttrDef& Float() { return kind(gert::AttrKind::Float); }
    OpAttrDef& Float(float v) { value_.f = v; return kind(gert::AttrKind::Float, true); }
    OpAttrDef& String() { return kind(gert::AttrKind::Str); }
    OpAttrDef& String(const char* v) { value_.s = v; return kind(gert::AttrKind::Str, true); }
    OpAttrDef& ListInt() { return kind(gert::AttrKind::ListInt); }
    OpAttrDef& ListInt(std::vector<int64_t> v) { value_.ints = std::move(v); return kind(gert::AttrKind::ListInt, true); }
    OpAttrDef& ListFloat() { return kind(gert::AttrKind::ListFloat); }
    OpAttrDef& ListFloat(std::vector<float> v) { value_.floats = std::move(v); return kind(gert::AttrKind::ListFloat, true); }
    OpAttrDef& ListBool() { return kind(gert::AttrKind::ListBool); }
    OpAttrDef& ListBool(std::vector<bool> v) {
        value_.bools.assign(v.begin(), v.end());
        return kind(gert::AttrKind::ListBool, true);
    }
    OpAttrDef& Version(uint32_t) { return *this; }
    OpAttrDef& Comment(const char*) { return *this; }

    const gert::AttrValue& value() const { return value_; }
    bool required() const { return required_; }
    bool has_default() const { return has_default_; }
    bool typed() const { return typed_; }

private:
    OpAttrDef& kind(gert::AttrKind k, bool with_default = false) {
        value_.kind = k;
        typed_ = true;
        has_default_ = has_default_ || with_default;
        return *this;
    }

    gert::AttrValue value_;
    bool required_ = true;
    bool has_default_ = false;
    bool typed_ = false;
};

// A list of parameters with find-or-add by name, as Input("x") is called once to declare and again to refine.
class OpParamList {
public:
    OpParamDef& get(const char* name) {
        for (auto& p : params_)
            if (p.name() == name) return p;
        params_.emplace_back(name);
        return params_.back();
    }
    const std::vector<OpParamDef>& all() const { return params_; }

private:
    std::vector<OpParamDef> params_;
};

class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char*) {}
    OpParamDef& Input(const char* name) { return inputs_.get(name); }
    OpParamDef& Output(const char* name) { return outputs_.get(name); }
    OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }

    const OpParamList& inputs() const { return inputs_; }
    const OpParamList& outputs() const { return outputs_; }

private:
    OpParamList inputs_;
    OpParamList outputs_;
};

class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(TilingFunc func) { tiling_ = std::move(func); return *this; }
    template <typename F>
    OpAICoreDef& SetOpSelectFormat(F) { return *this; }
    template <typename F>
    OpAICoreDef& SetCheckSupport(F) { return *this; }
    template <typename F>
    OpAICoreDef& SetOpSupportInfo(F) { return *this; }
    template <typename F>
    OpAICoreDef& SetOpSpecInfo(F) { return *this; }
    OpAICoreDef& AddConfig(const char* soc) { return AddConfig(soc, OpAICoreConfig()); }
    OpAICoreDef& AddConfig(const char* soc, const OpAICoreConfig& config) {
        configs_[soc] = config;
        return *this;
    }

    const TilingFunc& tiling() const { return tiling_; }
    const std::map<std::string, OpAICoreConfig>& configs() const { return configs_; }

private:
    TilingFunc tiling_;
    std::map<std::string, OpAICoreConfig> configs_;
};

class OpDef {
public:
    explicit OpDef(const char* type) : type_(type) {}
    virtual ~OpDef() = default;

    OpParamDef& Input(const char* name) { return inputs_.get(name); }
    OpParamDef& Output(const char* name) { return outputs_.get(name); }
    OpAttrDef& Attr(const char* name) {
        for (auto& a : attrs_)
            if (a.value().name == name) return a;
        attrs_.emplace_back(name);
        return attrs_.back();
    }
    OpDef& SetInferShape(InferShapeFunc func) { infer_shape_ = std::move(func); return *this; }
    template <typename F>
    OpDef& SetInferShapeRange(F) { return *this; }
    OpDef& SetInferDataType(InferDataTypeFunc func) { infer_dtype_ = std::move(func); return *this; }
    OpDef& Comment(const char*) { return *this; }
    OpAICoreDef& AICore() { return aicore_; }

    const std::string& type() const { return type_; }
    const OpParamList& inputs() const { return inputs_; }
    const OpParamList& outputs() const { return outputs_; }
    const std::vector<OpAttrDef>& attrs() const { return attrs_; }
    const InferShapeFunc& infer_shape() const { return infer_shape_; }
    const InferDataTypeFunc& infer_dtype() const { return infer_dtype_; }
    const OpAICoreDef& aicore() const { return aicore_; }

private:
    std::string type_;
    OpParamList inputs_;
    OpParamList outputs_;
    std::vector<OpAttrDef> attrs_;
    InferShapeFunc infer_shape_;
    InferDataTypeFunc infer_dtype_;
    OpAICoreDef aicore_;
};

}  // namespace ops

namespace ascendgen_host {

using OpFactory = std::unique_ptr<ops::OpDef> (*)(const char*);

inline std::vector<std::pair<std::string, OpFactory>>& op_registry() {
    static std::vector<std::pair<std::string, OpFactory>> registry;
    return registry;
}

struct OpDefRegistrar {
    OpDefRegistrar(const char* name, OpFactory factory) { op_registry().emplace_back(name, factory); }
};

}  // namespace ascendgen_host

#define OP_ADD(op_name, ...)                                                                          \
    static ::ascendgen_host::OpDefRegistrar ascendgen_op_registrar_##op_name(                        \
        #op_name, [](const char* name) -> std::unique_ptr<::ops::OpDef> { return std::make_unique<op_name>(name); })
