// STUB for tests (tests/sim/test_npu_op_project.py): the TilingData macros as plain structs with the documented
// set_<field>/SaveToBuffer/GetDataSize members. Not CANN's header (whose TilingDef serialises field by field).
#pragma once
#include <cstddef>
#include <cstring>

#define BEGIN_TILING_DATA_DEF(class_name) struct class_name { \
    void SaveToBuffer(void* buffer, size_t) const { std::memcpy(buffer, this, sizeof(*this)); } \
    size_t GetDataSize() const { return sizeof(*this); }
#define TILING_DATA_FIELD_DEF(data_type, field_name) data_type field_name{}; \
    void set_##field_name(data_type value) { field_name = value; }
#define END_TILING_DATA_DEF }
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)
