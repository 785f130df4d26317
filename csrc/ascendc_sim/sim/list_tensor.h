// ListTensorDesc and TensorDesc (kernel_operator_list_tensor_intf.h; clean-room from the ListTensorDesc and
// TensorDesc pages): a GM block of 64-bit words describing a list of tensors. Word 0 is the byte offset of the
// data-pointer array; then, per tensor, one word with its dim count in the low 32 bits and its index in the
// high 32, followed by that many shape words; then one data pointer per tensor. Every word is read through
// GlobalTensor<uint64_t> (GM bounds checked, charged as scalar reads); a malformed list, a length/shapeSize that
// does not match it, or an index past it is reported, never read past.
#pragma once
#include <cstdint>

#include "core.h"
#include "tensor.h"

namespace AscendC {

class ListTensorDesc;

template <class T>
class TensorDesc {
public:
    TensorDesc() = default;
    ~TensorDesc() = default;

    void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
    uint64_t GetDim() const { return dim_; }
    uint64_t GetIndex() const { return index_; }
    uint64_t GetShape(uint32_t offset, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) const {
        if (shape_ == nullptr || offset >= dim_)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "TensorDesc::GetShape(%u): the desc holds %llu dims%s", offset,
                              (unsigned long long)dim_, shape_ ? "" : " (call SetShapeAddr, then ListTensorDesc::GetDesc)");
        return shape_[offset];
    }
    T* GetDataPtr() const { return data_; }
    GlobalTensor<T> GetDataObj() const {
        GlobalTensor<T> tensor;
        tensor.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(data_), elements_);
        return tensor;
    }

private:
    friend class ListTensorDesc;
    uint64_t* shape_ = nullptr;
    uint64_t dim_ = 0;
    uint64_t index_ = 0;
    T* data_ = nullptr;
    uint64_t elements_ = 0;
};

class ListTensorDesc {
public:
    static constexpr uint32_t kUnchecked = 0xffffffff;

    ListTensorDesc() = default;
    ListTensorDesc(__gm__ void* data, uint32_t length = kUnchecked, uint32_t shapeSize = kUnchecked,
                   ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        Init(data, length, shapeSize, loc);
    }

    void Init(__gm__ void* data, uint32_t length = kUnchecked, uint32_t shapeSize = kUnchecked,
              ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        words_.SetGlobalBuffer(reinterpret_cast<__gm__ uint64_t*>(data));
        uint64_t ptr_offset = words_.GetValue(0, loc);
        if (ptr_offset < 8 || ptr_offset % 8 != 0)
            bad(loc, "ListTensorDesc: word 0 (the byte offset of the data pointers) is %llu; it must be a multiple of 8, "
                "at least 8", (unsigned long long)ptr_offset);
        ptr_word_ = ptr_offset / 8;
        count_ = 0;
        for (uint64_t word = 1; word < ptr_word_; ++count_) word += 1 + (words_.GetValue(word, loc) & 0xffffffffu);
        if (descriptor(count_, loc) != ptr_word_)
            bad(loc, "ListTensorDesc: the shape descriptors run past the data pointers at byte %llu",
                (unsigned long long)ptr_offset);
        if (shapeSize != kUnchecked && shapeSize != count_)
            bad(loc, "ListTensorDesc: shapeSize is %u but the list describes %u tensors", shapeSize, count_);
        if (length != kUnchecked && uint64_t(length) != ptr_offset + 8ull * count_)
            bad(loc, "ListTensorDesc: length is %u bytes but the list takes %llu", length,
                (unsigned long long)(ptr_offset + 8ull * count_));
    }

    template <class T>
    void GetDesc(TensorDesc<T>& desc, uint32_t index, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        check(index, "GetDesc", loc);
        if (desc.shape_ == nullptr) bad(loc, "ListTensorDesc::GetDesc: call desc.SetShapeAddr(buffer) first");
        uint64_t word = descriptor(index, loc);
        uint64_t head = words_.GetValue(word, loc);
        desc.dim_ = head & 0xffffffffu;
        desc.index_ = head >> 32;
        desc.elements_ = 1;
        for (uint64_t d = 0; d < desc.dim_; ++d) {
            desc.shape_[d] = words_.GetValue(word + 1 + d, loc);
            desc.elements_ *= desc.shape_[d];
        }
        desc.data_ = GetDataPtr<T>(index, loc);
    }

    template <class T>
    T* GetDataPtr(uint32_t index, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        check(index, "GetDataPtr", loc);
        return reinterpret_cast<T*>(words_.GetValue(ptr_word_ + index, loc));
    }

    uint32_t GetSize() const { return count_; }

private:
    // The word index of tensor `index`'s descriptor (index == count: where the data pointers start).
    uint64_t descriptor(uint32_t index, ascendc_sim::Loc loc) const {
        uint64_t word = 1;
        for (uint32_t i = 0; i < index; ++i) word += 1 + (words_.GetValue(word, loc) & 0xffffffffu);
        return word;
    }

    void check(uint32_t index, const char* api, ascendc_sim::Loc loc) const {
        if (words_.GetPhyAddr() == nullptr) bad(loc, "ListTensorDesc::%s before Init", api);
        if (index >= count_) bad(loc, "ListTensorDesc::%s(%u): the list holds %u tensors", api, index, count_);
    }

    template <typename... Args>
    [[noreturn]] static void bad(ascendc_sim::Loc loc, const char* format, Args... args) {
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc, format, args...);
    }

    GlobalTensor<uint64_t> words_;
    uint64_t ptr_word_ = 0;
    uint32_t count_ = 0;
};

}  // namespace AscendC
