// GlobalTensor (GM, the launcher's tensors) and LocalTensor (a view of one core's UB).
#pragma once
#include "core.h"

namespace AscendC {

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM, TSCM,
    C2PIPE2GM, C2PIPE2LOCAL, MAX,
};
using QuePosition = TPosition;
template <typename T>
class LocalTensor;
}  // namespace AscendC

namespace ascendc_sim {
// Static tensor programming (static_tensor.h): the tensor at UB bytes [addr, addr + tileSize * sizeof(T)).
template <typename T>
AscendC::LocalTensor<T> static_tensor_at(AscendC::TPosition pos, uint32_t addr, uint32_t tileSize, Loc loc);
}  // namespace ascendc_sim

namespace AscendC {

constexpr int32_t K_MAX_DIM = 8;

enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };

// The shape of a LocalTensor or GlobalTensor, as far as the kernel records it (ShapeInfo.md): only
// DumpTensor reads it; no instruction looks at it.
struct ShapeInfo {
    ShapeInfo() = default;
    ShapeInfo(uint8_t inputShapeDim, const uint32_t inputShape[], uint8_t inputOriginalShapeDim,
              const uint32_t inputOriginalShape[], DataFormat inputFormat)
        : shapeDim(clamped(inputShapeDim)), originalShapeDim(clamped(inputOriginalShapeDim)), dataFormat(inputFormat) {
        for (int i = 0; i < shapeDim; ++i) shape[i] = inputShape[i];
        for (int i = 0; i < originalShapeDim; ++i) originalShape[i] = inputOriginalShape[i];
        too_many_dims = inputShapeDim > K_MAX_DIM || inputOriginalShapeDim > K_MAX_DIM;
    }
    ShapeInfo(uint8_t inputShapeDim, const uint32_t inputShape[], DataFormat inputFormat)
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, inputFormat) {}
    ShapeInfo(uint8_t inputShapeDim, const uint32_t inputShape[])
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, DataFormat::ND) {}

    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[K_MAX_DIM] = {};
    uint32_t originalShape[K_MAX_DIM] = {};
    DataFormat dataFormat = DataFormat::ND;
    bool too_many_dims = false;  // simulator: reported by the API that reads the shape

private:
    static uint8_t clamped(uint8_t dims) { return dims > K_MAX_DIM ? uint8_t(K_MAX_DIM) : dims; }
};

inline int GetShapeSize(const ShapeInfo& shapeInfo) {
    int size = 1;
    for (int i = 0; i < shapeInfo.shapeDim; ++i) size *= int(shapeInfo.shape[i]);
    return size;
}

template <typename T>
class LocalTensor {
public:
    using PrimType = T;

    LocalTensor() = default;
    LocalTensor(T* data, uint32_t size, TPosition position, ascendc_sim::BufferTiming* timing, const void* owner)
        : data_(data), size_(size), position_(position), timing_(timing), owner_(owner) {}
    // Static tensor programming (LocalTensor构造函数.md): the tensor at a UB address, for LocalMemAllocator-style code.
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize, ascendc_sim::Loc loc = ascendc_sim::Loc::here())
        : LocalTensor(ascendc_sim::static_tensor_at<T>(pos, addr, tileSize, loc)) {}

    // A view starting `offset` elements in; an offset past the end gives an empty view, which the
    // next instruction that uses it reports with its line.
    // int4b_t: `size_` counts bytes (two elements each) and an offset must be even; an odd one (inside a byte) gives
    // an unallocated view, which the next instruction reports.
    LocalTensor operator[](uint32_t offset) const {
        LocalTensor view = *this;
        uint32_t units = offset / uint32_t(ascendc_sim::elems_per_unit<T>);
        bool inside_byte = ascendc_sim::is_int4_v<T> && offset % 2 != 0;
        view.data_ = inside_byte ? nullptr : data_ + units;
        view.size_ = units <= size_ && !inside_byte ? size_ - units : 0;
        return view;
    }

    // Scalar UB access runs on the S pipe: it must be synchronised with the MTE/V pipes (V_S, S_V ...).
    T GetValue(uint32_t index, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) const {
        ascendc_sim::CoreState& c = check_index(index, "LocalTensor::GetValue", loc);
        ascendc_sim::note_read(c, timing_, ascendc_sim::kPipeS);
        return data_[index];
    }
    void SetValue(uint32_t index, T value, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) const {
        ascendc_sim::CoreState& c = check_index(index, "LocalTensor::SetValue", loc);
        ascendc_sim::note_write(c, timing_, ascendc_sim::kPipeS);
        data_[index] = value;
    }
    T& operator()(uint32_t index, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) const {
        ascendc_sim::CoreState& c = check_index(index, "LocalTensor::operator()", loc);
        ascendc_sim::note_read(c, timing_, ascendc_sim::kPipeS);  // read or write: checked as the lenient read
        return data_[index];
    }

    template <typename U>
    LocalTensor<U> ReinterpretCast() const {
        return LocalTensor<U>(reinterpret_cast<U*>(data_), static_cast<uint32_t>(uint64_t(size_) * sizeof(T) / sizeof(U)),
                              position_, timing_, owner_);
    }

    uint32_t GetSize() const { return uint32_t(size_ * ascendc_sim::elems_per_unit<T>); }
    void SetSize(uint32_t size) { size_ = uint32_t(size / ascendc_sim::elems_per_unit<T>); }
    uint32_t GetLength() const { return size_ * sizeof(T); }
    uint64_t GetPhyAddr() const { return ascendc_sim::ub_visible(data_); }
    uint64_t GetPhyAddr(uint32_t offset) const {
        return ascendc_sim::ub_visible(data_ + offset / ascendc_sim::elems_per_unit<T>);
    }
    TPosition GetPosition() const { return position_; }
    void SetUserTag(int32_t tag) { user_tag_ = tag; }
    int32_t GetUserTag() const { return user_tag_; }
    void SetShapeInfo(const ShapeInfo& shapeInfo) { shape_info_ = shapeInfo; }
    ShapeInfo GetShapeInfo() const { return shape_info_; }

    // Simulator internals.
    T* GetPhyAddrPtr() const { return data_; }
    ascendc_sim::BufferTiming* timing() const { return timing_; }
    const void* owner() const { return owner_; }

private:
    ascendc_sim::CoreState& check_index(uint32_t index, const char* api, ascendc_sim::Loc loc) const {
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        if (ascendc_sim::is_int4_v<T>)
            ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                              "%s on a LocalTensor of int4b_t is not simulated (two elements share a byte). "
                              "ReinterpretCast the tensor to int8_t and read or write the byte.",
                              api);
        if (data_ == nullptr)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "%s on an empty LocalTensor (never allocated). Get the tensor from a queue's "
                              "AllocTensor/DeQue or a TBuf's Get first.",
                              api);
        if (index >= size_)
            ascendc_sim::fail(ascendc_sim::Diag::LocalOverrun, loc,
                              "%s(%u) is past the end of a LocalTensor of %u elements of %s. Keep the index below "
                              "the tensor's size, or give its buffer more bytes in InitBuffer.",
                              api, index, size_, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>));
        c.report->op_instrs[static_cast<int>(ascendc_sim::OpId::ScalarUB)] += 1;
        ascendc_sim::charge_scalar_ub(c, timing_);
        return c;
    }

    T* data_ = nullptr;
    uint32_t size_ = 0;
    TPosition position_ = TPosition::VECCALC;
    ascendc_sim::BufferTiming* timing_ = nullptr;
    const void* owner_ = nullptr;
    int32_t user_tag_ = 0;
    ShapeInfo shape_info_;
};

template <typename T>
class GlobalTensor {
public:
    using PrimType = T;

    // int4b_t: `size_` counts bytes (two elements each); an odd offset (inside a byte) gives a null view, which the
    // copy that uses it reports.
    void SetGlobalBuffer(__gm__ T* buffer, uint64_t size) {
        data_ = buffer;
        size_ = size / ascendc_sim::elems_per_unit<T>;
        home_ = ascendc_sim::gm_home(buffer);
    }
    void SetGlobalBuffer(__gm__ T* buffer) { SetGlobalBuffer(buffer, 0); }

    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor view = *this;
        uint64_t units = offset / ascendc_sim::elems_per_unit<T>;
        view.data_ = ascendc_sim::is_int4_v<T> && offset % 2 != 0 ? nullptr : data_ + units;
        view.size_ = units <= size_ ? size_ - units : 0;
        return view;
    }

    T GetValue(uint64_t offset, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) const {
        T value;
        std::memcpy(&value, scalar_access(offset, "GlobalTensor::GetValue", loc), sizeof(T));
        ascendc_sim::t_core->report->gm_scalar_reads += 1;
        return value;
    }
    void SetValue(uint64_t offset, T value, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) const {
        uint8_t* at = scalar_access(offset, "GlobalTensor::SetValue", loc);
        ascendc_sim::CoreState& c = *ascendc_sim::t_core;
        c.report->gm_scalar_writes += 1;
        ascendc_sim::record_gm_write(c, data_ + offset, sizeof(T), loc, true);
        std::memcpy(at, &value, sizeof(T));
    }

    // operator()(offset) (GlobalTensor operator().md): the element, as a reference the S pipe reads and writes. A
    // proxy, so that a read is GetValue's and an assignment SetValue's (checked, charged, race-tracked).
    class ElementRef {
    public:
        ElementRef(const GlobalTensor& tensor, uint64_t offset, ascendc_sim::Loc loc)
            : tensor_(tensor), offset_(offset), loc_(loc) {}
        operator T() const { return tensor_.GetValue(offset_, loc_); }
        const ElementRef& operator=(T value) const {
            tensor_.SetValue(offset_, value, loc_);
            return *this;
        }

    private:
        const GlobalTensor& tensor_;
        uint64_t offset_;
        ascendc_sim::Loc loc_;
    };
    ElementRef operator()(uint64_t offset, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) const {
        return ElementRef(*this, offset, loc);
    }

    uint64_t GetSize() const { return size_ * ascendc_sim::elems_per_unit<T>; }
    __gm__ T* GetPhyAddr() const { return data_; }
    const ascendc_sim::GmHome& sim_home() const { return home_; }
    __gm__ T* GetPhyAddr(uint64_t offset) const { return data_ + offset / ascendc_sim::elems_per_unit<T>; }
    template <typename Mode>
    void SetL2CacheHint(Mode) {}
    void SetShapeInfo(const ShapeInfo& shapeInfo) { shape_info_ = shapeInfo; }
    ShapeInfo GetShapeInfo() const { return shape_info_; }

private:
    // Where the element's bytes are, once checked and charged to the scalar pipe.
    uint8_t* scalar_access(uint64_t offset, const char* api, ascendc_sim::Loc loc) const {
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        if (ascendc_sim::is_int4_v<T>)
            ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                              "%s on a GlobalTensor of int4b_t is not simulated (two elements share a byte). Read or "
                              "write the byte through a GlobalTensor<int8_t> over the same memory.",
                              api);
        uint8_t* at = ascendc_sim::check_gm(data_ + offset, sizeof(T), api, loc, home_);
        ascendc_sim::schedule(c, ascendc_sim::kPipeS, ascendc_sim::CostModel::scalar_gm_ns(c.soc()), {}, nullptr);
        return at;
    }

    T* data_ = nullptr;
    uint64_t size_ = 0;
    ascendc_sim::GmHome home_;
    ShapeInfo shape_info_;
};

}  // namespace AscendC
