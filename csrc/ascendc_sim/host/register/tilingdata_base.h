// The TilingData definition macros of an operator project's op_host/<op>_tiling.h (clean-room, from the
// documented "TilingData结构定义" and "TilingData结构注册" pages). They expand to one plain struct with the
// fields in declaration order, natural alignment, and the documented set_<field>/get_<field>/SaveToBuffer/
// GetDataSize members. The same header is compiled into the host code (TilingFunc fills the struct) and into
// the kernel (GET_TILING_DATA reads it back), so both sides agree on the layout by construction; CANN
// generates the kernel-side struct from the same macros.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "host_error.h"

namespace ascendgen_tiling {

template <typename T>
constexpr bool field_type_ok = std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
                               std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t> ||
                               std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> ||
                               std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t> || std::is_same_v<T, float>;

inline void save(const void* data, size_t size, void* buffer, size_t capacity, const char* name) {
    if (buffer == nullptr)
        ascendgen_host::host_fail(std::string(name) + "::SaveToBuffer: the buffer is null; pass "
                                  "context->GetRawTilingData()->GetData()");
    if (size > capacity)
        ascendgen_host::host_fail(std::string(name) + "::SaveToBuffer: the TilingData is " + std::to_string(size) +
                                  " bytes, the buffer holds " + std::to_string(capacity) + "; make it smaller");
    std::memcpy(buffer, data, size);
}

}  // namespace ascendgen_tiling

#define BEGIN_TILING_DATA_DEF(class_name)                                                              \
    struct class_name {                                                                                \
        void SaveToBuffer(void* buffer, size_t capacity) const {                                       \
            ::ascendgen_tiling::save(this, sizeof(*this), buffer, capacity, #class_name);             \
        }                                                                                              \
        size_t GetDataSize() const { return sizeof(*this); }                                           \
        void SetDataPtr(void*) {}

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                                   \
    static_assert(::ascendgen_tiling::field_type_ok<data_type>,                                        \
                  "TILING_DATA_FIELD_DEF(" #data_type ", " #field_name "): fields are int8_t, uint8_t, "  \
                  "int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t or float");                   \
    data_type field_name{};                                                                            \
    void set_##field_name(data_type value) { field_name = value; }                                     \
    data_type get_##field_name() const { return field_name; }

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                      \
    static_assert(::ascendgen_tiling::field_type_ok<arr_type>,                                         \
                  "TILING_DATA_FIELD_DEF_ARR(" #arr_type ", ...): elements are int8_t, uint8_t, int16_t, " \
                  "uint16_t, int32_t, uint32_t, int64_t, uint64_t or float");                            \
    arr_type field_name[arr_size]{};                                                                   \
    void set_##field_name(const arr_type* values) { std::memcpy(field_name, values, sizeof(field_name)); } \
    const arr_type* get_##field_name() const { return field_name; }

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                          \
    struct_type field_name{};                                                                          \
    void set_##field_name(const struct_type& value) { field_name = value; }                            \
    const struct_type& get_##field_name() const { return field_name; }

#define END_TILING_DATA_DEF }

// Registers class_name as op_type's tiling struct: GET_TILING_DATA in op_type's kernel reads a class_name.
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) \
    struct ascendgen_registered_tiling_##op_type {      \
        using type = class_name;                        \
    };
