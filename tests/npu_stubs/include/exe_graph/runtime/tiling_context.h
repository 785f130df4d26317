// STUB for tests (tests/sim/test_npu_op_project.py): gert::Shape, StorageShape, TilingData, ContinuousVector,
// RuntimeAttrs and TilingContext with only what the NPU op-host driver and a stand-in op_host call. Not CANN's
// header: storage here is plain std::vector; the real classes live in CANN's libraries.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "graph/types.h"

namespace gert {

class Shape {
public:
    Shape& AppendDim(int64_t dim) { dims_.push_back(dim); return *this; }
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t i) const { return dims_.at(i); }
    int64_t GetShapeSize() const { int64_t n = 1; for (int64_t d : dims_) n *= d; return n; }

private:
    std::vector<int64_t> dims_;
};

class StorageShape {
public:
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }
    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }

private:
    Shape origin_, storage_;
};

// Laid out at the head of the buffer CreateCap returns: capacity, size, then the bytes.
class TilingData {
public:
    static std::unique_ptr<uint8_t[]> CreateCap(size_t capacity) {
        std::unique_ptr<uint8_t[]> holder(new uint8_t[sizeof(TilingData) + capacity]());
        auto* data = reinterpret_cast<TilingData*>(holder.get());
        data->capacity_ = capacity;
        data->size_ = 0;
        return holder;
    }
    void* GetData() { return reinterpret_cast<uint8_t*>(this) + sizeof(TilingData); }
    const void* GetData() const { return reinterpret_cast<const uint8_t*>(this) + sizeof(TilingData); }
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return size_; }
    void SetDataSize(size_t size) { size_ = size; }

private:
    size_t capacity_;
    size_t size_;
};

class ContinuousVector {
public:
    template <typename T>
    static std::unique_ptr<uint8_t[]> Create(size_t capacity) {
        std::unique_ptr<uint8_t[]> holder(new uint8_t[sizeof(ContinuousVector) + capacity * sizeof(T)]());
        reinterpret_cast<ContinuousVector*>(holder.get())->capacity_ = capacity;
        return holder;
    }
    size_t GetCapacity() const { return capacity_; }
    size_t GetSize() const { return size_; }
    void SetSize(size_t size) { size_ = size; }
    const void* GetData() const { return reinterpret_cast<const uint8_t*>(this) + sizeof(ContinuousVector); }
    void* MutableData() { return reinterpret_cast<uint8_t*>(this) + sizeof(ContinuousVector); }

private:
    size_t capacity_ = 0;
    size_t size_ = 0;
};

struct StubAttr {
    std::string name;
    int64_t i = 0;
    float f = 0;
    bool b = false;
    std::string s;
    std::vector<int64_t> ints;
    std::vector<float> floats;
    std::vector<bool> bools;
};

class RuntimeAttrs {
public:
    template <typename T>
    const T* GetAttrPointer(size_t i) const;
    const char* GetStr(size_t i) const { return i < attrs.size() ? attrs[i].s.c_str() : nullptr; }
    size_t GetAttrNum() const { return attrs.size(); }
    std::vector<StubAttr> attrs;
};
template <> inline const int64_t* RuntimeAttrs::GetAttrPointer<int64_t>(size_t i) const { return &attrs.at(i).i; }
template <> inline const float* RuntimeAttrs::GetAttrPointer<float>(size_t i) const { return &attrs.at(i).f; }
template <> inline const bool* RuntimeAttrs::GetAttrPointer<bool>(size_t i) const { return &attrs.at(i).b; }

struct StubTensor {
    ge::DataType dtype;
    StorageShape shape;
};

class TilingContext {
public:
    const StorageShape* GetInputShape(size_t i) const { return i < inputs.size() ? &inputs[i].shape : nullptr; }
    const StorageShape* GetOutputShape(size_t i) const { return i < outputs.size() ? &outputs[i].shape : nullptr; }
    ge::DataType StubInputDataType(size_t i) const { return inputs.at(i).dtype; }
    const RuntimeAttrs* GetAttrs() const { return &attrs; }
    ge::graphStatus SetBlockDim(uint32_t dim) { block_dim = dim; return ge::GRAPH_SUCCESS; }
    uint32_t GetBlockDim() const { return block_dim; }
    ge::graphStatus SetTilingKey(uint64_t key) { tiling_key = key; return ge::GRAPH_SUCCESS; }
    uint64_t GetTilingKey() const { return tiling_key; }
    TilingData* GetRawTilingData() { return tiling; }
    const TilingData* GetRawTilingData() const { return tiling; }
    size_t* GetWorkspaceSizes(size_t count) {
        workspaces->SetSize(count);
        return static_cast<size_t*>(workspaces->MutableData());
    }
    void* GetPlatformInfo() const { return platform; }

    std::vector<StubTensor> inputs, outputs;
    RuntimeAttrs attrs;
    uint32_t block_dim = 0;
    uint64_t tiling_key = 0;
    TilingData* tiling = nullptr;
    ContinuousVector* workspaces = nullptr;
    void* platform = nullptr;
};

}  // namespace gert
