// gert::RuntimeAttrs and gert::ContinuousVector (clean-room, from the documented host API): an op's attribute
// values, indexed in the order the OpDef declares its Attr()s. Reading one as a type other than its declared
// kind is reported (naming the attribute and the type to use), never read as other bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "register/host_error.h"

namespace gert {

class ContinuousVector {
public:
    size_t GetSize() const { return size_; }
    size_t GetCapacity() const { return size_; }
    const void* GetData() const { return data_; }

    // The simulator's driver points it at the attribute's storage.
    void Bind(const void* data, size_t size) {
        data_ = data;
        size_ = size;
    }

private:
    const void* data_ = nullptr;
    size_t size_ = 0;
};

// Kinds as OpAttrDef declares them.
enum class AttrKind { Bool, Int, Float, Str, ListInt, ListFloat, ListBool };

inline const char* attr_kind_name(AttrKind kind) {
    static const char* const names[] = {"Bool", "Int", "Float", "String", "ListInt", "ListFloat", "ListBool"};
    return names[int(kind)];
}

struct AttrValue {
    std::string name;
    AttrKind kind = AttrKind::Int;
    bool b = false;
    int64_t i = 0;
    float f = 0.0f;
    std::string s;
    std::vector<int64_t> ints;
    std::vector<float> floats;
    std::vector<uint8_t> bools;  // bool elements, one byte each
    ContinuousVector list;

    void bind_list() {
        if (kind == AttrKind::ListInt) list.Bind(ints.data(), ints.size());
        if (kind == AttrKind::ListFloat) list.Bind(floats.data(), floats.size());
        if (kind == AttrKind::ListBool) list.Bind(bools.data(), bools.size());
    }
};

class RuntimeAttrs {
public:
    explicit RuntimeAttrs(const std::vector<AttrValue>* values = nullptr) : values_(values) {}

    size_t GetAttrNum() const { return values_ ? values_->size() : 0; }

    template <typename T>
    const T* GetAttrPointer(size_t index) const {
        const AttrValue* v = at(index, "GetAttrPointer");
        if constexpr (std::is_same_v<T, bool>) {
            if (v->kind == AttrKind::Bool) return &v->b;
        } else if constexpr (std::is_same_v<T, int64_t>) {
            if (v->kind == AttrKind::Int) return &v->i;
        } else if constexpr (std::is_same_v<T, float>) {
            if (v->kind == AttrKind::Float) return &v->f;
        } else if constexpr (std::is_same_v<T, char>) {
            if (v->kind == AttrKind::Str) return v->s.c_str();
        } else if constexpr (std::is_same_v<T, ContinuousVector>) {
            if (v->kind == AttrKind::ListInt || v->kind == AttrKind::ListFloat || v->kind == AttrKind::ListBool)
                return &v->list;
        }
        ascendgen_host::host_fail("GetAttrs()->GetAttrPointer<T>(" + std::to_string(index) + "): attribute '" +
                                  v->name + "' is declared " + attr_kind_name(v->kind) + "; read it as " +
                                  pointer_type(v->kind) + " (GetAttrPointer<" + pointer_type(v->kind) + ">)");
    }

    const int64_t* GetInt(size_t index) const { return GetAttrPointer<int64_t>(index); }
    const float* GetFloat(size_t index) const { return GetAttrPointer<float>(index); }
    const bool* GetBool(size_t index) const { return GetAttrPointer<bool>(index); }
    const char* GetStr(size_t index) const { return GetAttrPointer<char>(index); }
    const ContinuousVector* GetListInt(size_t index) const { return GetAttrPointer<ContinuousVector>(index); }

private:
    const AttrValue* at(size_t index, const char* api) const {
        if (values_ == nullptr || index >= values_->size())
            ascendgen_host::host_fail(std::string("GetAttrs()->") + api + "(" + std::to_string(index) +
                                      "): the op declares " + std::to_string(GetAttrNum()) +
                                      " attributes (indexed in the order of its Attr() calls)");
        return &(*values_)[index];
    }

    static const char* pointer_type(AttrKind kind) {
        switch (kind) {
            case AttrKind::Bool: return "bool";
            case AttrKind::Int: return "int64_t";
            case AttrKind::Float: return "float";
            case AttrKind::Str: return "char";
            default: return "gert::ContinuousVector";
        }
    }

    const std::vector<AttrValue>* values_;
};

}  // namespace gert
