// TPipe, TQue, TBuf and the synchronisation primitives: flags, barriers, SyncAll, atomics.
#pragma once
#include "local_memory.h"

enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_V2, PIPE_FIX };
enum event_t : int32_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

namespace AscendC {

using TEventID = int8_t;

enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
    MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S,
    MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX,
};

namespace sim_detail {

// The pipes an event connects, in the cost model's pipe indices (cube pipes fold into scalar).
struct EventPipes {
    int from;
    int to;
};

inline EventPipes event_pipes(HardEvent event) {
    using namespace ascendc_sim;
    switch (event) {
        case HardEvent::MTE2_V: return {kPipeMte2, kPipeV};
        case HardEvent::V_MTE2: return {kPipeV, kPipeMte2};
        case HardEvent::MTE3_V: return {kPipeMte3, kPipeV};
        case HardEvent::V_MTE3: return {kPipeV, kPipeMte3};
        case HardEvent::V_V: return {kPipeV, kPipeV};
        case HardEvent::MTE3_MTE2: return {kPipeMte3, kPipeMte2};
        case HardEvent::MTE2_MTE3: return {kPipeMte2, kPipeMte3};
        case HardEvent::S_V: return {kPipeS, kPipeV};
        case HardEvent::V_S: return {kPipeV, kPipeS};
        case HardEvent::S_MTE2: return {kPipeS, kPipeMte2};
        case HardEvent::MTE2_S: return {kPipeMte2, kPipeS};
        case HardEvent::S_MTE3: return {kPipeS, kPipeMte3};
        case HardEvent::MTE3_S: return {kPipeMte3, kPipeS};
        case HardEvent::MTE2_MTE1: return {kPipeMte2, kPipeMte1};
        case HardEvent::MTE1_MTE2: return {kPipeMte1, kPipeMte2};
        case HardEvent::MTE1_M: return {kPipeMte1, kPipeM};
        case HardEvent::M_MTE1: return {kPipeM, kPipeMte1};
        case HardEvent::MTE2_M: return {kPipeMte2, kPipeM};
        case HardEvent::M_MTE2: return {kPipeM, kPipeMte2};
        case HardEvent::M_FIX: return {kPipeM, kPipeFix};
        case HardEvent::FIX_M: return {kPipeFix, kPipeM};
        case HardEvent::MTE2_FIX: return {kPipeMte2, kPipeFix};
        case HardEvent::FIX_MTE2: return {kPipeFix, kPipeMte2};
        case HardEvent::MTE1_FIX: return {kPipeMte1, kPipeFix};
        case HardEvent::FIX_MTE1: return {kPipeFix, kPipeMte1};
        case HardEvent::FIX_FIX: return {kPipeFix, kPipeFix};
        case HardEvent::FIX_S: return {kPipeFix, kPipeS};
        case HardEvent::M_S: return {kPipeM, kPipeS};
        case HardEvent::FIX_MTE3: return {kPipeFix, kPipeMte3};
        case HardEvent::MTE3_MTE1: return {kPipeMte3, kPipeMte1};
        case HardEvent::MTE1_MTE3: return {kPipeMte1, kPipeMte3};
        case HardEvent::MTE1_V: return {kPipeMte1, kPipeV};
        case HardEvent::V_MTE1: return {kPipeV, kPipeMte1};
        case HardEvent::M_V: return {kPipeM, kPipeV};
        case HardEvent::V_M: return {kPipeV, kPipeM};
        default: return {kPipeS, kPipeS};
    }
}

inline void check_event_id(int32_t id, const char* api, ascendc_sim::Loc loc) {
    if (id < 0 || id >= ascendc_sim::kEventIds)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "%s: event id %d is outside 0..7. Get the id from GetTPipePtr()->FetchEventID(event) or "
                          "AllocEventID<event>() instead of choosing one.",
                          api, id);
}

// The pipes a queue joins: what writes a tensor before EnQue and what reads it after DeQue. Vector positions: VECIN
// MTE2 -> V, VECOUT V -> MTE3, VECCALC V -> V. Cube positions, following the data flow of the TQue page and the
// matmul kernel-launch samples (GM -MTE2-> A1/B1 -MTE1-> A2/B2 -M-> CO1 -FIX-> GM): A1, B1, C1, TSCM MTE2 -> MTE1;
// A2, B2 MTE1 -> M; CO1 M -> FIX. Assumptions where the pages are silent: C2 (bias table) MTE1 -> M,
// C2PIPE2GM (Fixpipe buffer) FIX -> FIX, CO2 (UB on 310P) V -> MTE3.
constexpr int producer_pipe(TPosition p) {
    using namespace ascendc_sim;
    switch (p) {
        case TPosition::VECIN: case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM:
            return kPipeMte2;
        case TPosition::A2: case TPosition::B2: case TPosition::C2:
            return kPipeMte1;
        case TPosition::CO1:
            return kPipeM;
        case TPosition::C2PIPE2GM:
            return kPipeFix;
        default:
            return kPipeV;
    }
}
constexpr int consumer_pipe(TPosition p) {
    using namespace ascendc_sim;
    switch (p) {
        case TPosition::VECOUT: case TPosition::CO2:
            return kPipeMte3;
        case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM:
            return kPipeMte1;
        case TPosition::A2: case TPosition::B2: case TPosition::C2:
            return kPipeM;
        case TPosition::CO1: case TPosition::C2PIPE2GM:
            return kPipeFix;
        default:
            return kPipeV;
    }
}

// Records which unit a buffer position belongs to, for kernels that declare no kernel type (kernel_type.h): the
// vector positions (the Unified Buffer) mark vector code, the cube positions cube code.
template <TPosition pos>
inline void record_unit() {
    if constexpr (pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::VECCALC) {
        ASCENDC_SIM_VECTOR_API();
    } else if constexpr (pos != TPosition::GM) {
        ASCENDC_SIM_CUBE_API();
    }
}

// Every queue buffer and TBuf of a kernel counts against 64 (InitBuffer.md).
inline void count_buffers(ascendc_sim::CoreState& c, uint32_t num, ascendc_sim::Loc loc) {
    if (c.buffers + num > 64)
        ascendc_sim::fail(ascendc_sim::Diag::TooManyBuffers, loc,
                          "InitBuffer makes %u buffers in this kernel (queue buffers plus TBufs); at most 64 are "
                          "possible. Put several temporaries in one TBuf and take them with GetWithOffset or "
                          "LocalTensor offsets.",
                          c.buffers + num);
    c.buffers += num;
}

}  // namespace sim_detail

class TPipe;

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
public:
    static constexpr int kMaxBuffers = 64;

    TQueBind() = default;
    TQueBind(const TQueBind&) = delete;
    TQueBind& operator=(const TQueBind&) = delete;
    ~TQueBind() {
        if (ascendc_sim::t_core == nullptr) return;
        for (uint32_t i = 0; i < num_; ++i)
            if (slots_[i].state != Free) {
                ascendc_sim::t_core->defer(
                    ascendc_sim::Diag::QueueTensorLeak, slots_[i].alloc_loc,
                    std::string("the tensor allocated by this AllocTensor is still held when the kernel ends (") +
                        (slots_[i].state == Queued ? "EnQue'd but never DeQue'd" :
                         slots_[i].state == Dequeued ? "DeQue'd but never freed" : "never EnQue'd or freed") +
                        "); on the NPU its buffer and event stay taken. Every AllocTensor needs EnQue, DeQue and "
                        "FreeTensor on every path, including the last tile and early exits.");
                return;
            }
    }

    template <typename T>
    LocalTensor<T> AllocTensor(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init("AllocTensor", loc);
        for (uint32_t k = 0; k < num_; ++k) {
            uint32_t i = (next_alloc_ + k) % num_;
            if (slots_[i].state == Free) {
                hold_event(loc);
                next_alloc_ = (i + 1) % num_;
                slots_[i].state = Allocated;
                slots_[i].alloc_loc = loc;
                slots_[i].timing.synced();  // AllocTensor waits until the buffer's last user is done
                return tensor<T>(i);
            }
        }
        ascendc_sim::fail(ascendc_sim::Diag::QueueAllocExhausted, loc,
                          "AllocTensor on a queue with %u buffer(s), all of which are allocated and not yet "
                          "freed (the last one at line %d); on the NPU this waits forever. FreeTensor each tensor "
                          "after its last use (CopyOut frees the output, Compute frees the input), or InitBuffer "
                          "more buffers.",
                          num_, slots_[(next_alloc_ + num_ - 1) % num_].alloc_loc.line);
    }
    template <typename T>
    void AllocTensor(LocalTensor<T>& tensor, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        tensor = AllocTensor<T>(loc);
    }

    template <typename T>
    bool EnQue(const LocalTensor<T>& tensor, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init("EnQue", loc);
        uint32_t i = slot_of(tensor, "EnQue", loc);
        if (slots_[i].state == Free || slots_[i].state == Queued)
            ascendc_sim::fail(ascendc_sim::Diag::QueueForeignTensor, loc,
                              "EnQue of a tensor that is %s. EnQue each tensor from this queue's AllocTensor (or "
                              "DeQue) exactly once, and not after FreeTensor.",
                              slots_[i].state == Free ? "already freed" : "already in the queue");
        if (depth > 0 && queued_ >= uint32_t(depth))
            ascendc_sim::fail(ascendc_sim::Diag::QueueDepthExceeded, loc,
                              "EnQue would put %u tensors in a queue of depth %d without a DeQue in between. "
                              "DeQue before the next EnQue, or declare the TQue with depth %u (its second "
                              "template argument; the buffer count is InitBuffer's, not the depth).",
                              queued_ + 1, depth, queued_ + 1);
        if (ascendc_sim::t_core != nullptr)
            slots_[i].enqueued = ascendc_sim::signal_clock(*ascendc_sim::t_core, sim_detail::producer_pipe(src));
        slots_[i].state = Queued;
        fifo_[(head_ + queued_) % kMaxBuffers] = i;
        ++queued_;
        return true;
    }

    template <typename T>
    LocalTensor<T> DeQue(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init("DeQue", loc);
        if (queued_ == 0)
            ascendc_sim::fail(ascendc_sim::Diag::QueueEmptyDeque, loc,
                              "DeQue on an empty queue; on the NPU this waits forever. Every DeQue needs an "
                              "earlier EnQue on the same queue (check the CopyIn/Compute/CopyOut order and loop "
                              "counts).");
        uint32_t i = fifo_[head_];
        head_ = (head_ + 1) % kMaxBuffers;
        --queued_;
        slots_[i].state = Dequeued;
        // The queue's event: the consumer pipe waits for everything the producer pipe did before EnQue.
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        ascendc_sim::wait_clock(c, sim_detail::consumer_pipe(dst), slots_[i].enqueued);
        slots_[i].timing.synced();
        return tensor<T>(i);
    }
    template <typename T>
    void DeQue(LocalTensor<T>& tensor, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        tensor = DeQue<T>(loc);
    }
    template <TPosition srcUserPos, TPosition dstUserPos, typename T>
    bool EnQue(const LocalTensor<T>& tensor, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        return EnQue<T>(tensor, loc);
    }
    template <TPosition srcUserPos, TPosition dstUserPos, typename T>
    LocalTensor<T> DeQue(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        return DeQue<T>(loc);
    }

    template <typename T>
    void FreeTensor(const LocalTensor<T>& tensor, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init("FreeTensor", loc);
        uint32_t i = slot_of(tensor, "FreeTensor", loc);
        if (slots_[i].state == Free)
            ascendc_sim::fail(ascendc_sim::Diag::QueueForeignTensor, loc,
                              "FreeTensor of a tensor that is already free (freed twice). Free each tensor from "
                              "AllocTensor/DeQue exactly once, after its last use.");
        if (slots_[i].state == Queued)
            ascendc_sim::fail(ascendc_sim::Diag::QueueForeignTensor, loc,
                              "FreeTensor of a tensor that is still in the queue (EnQue'd, not yet DeQue'd). DeQue "
                              "it and use it first, then FreeTensor the tensor DeQue returned.");
        slots_[i].state = Free;
        if (ascendc_sim::t_core != nullptr) {
            uint32_t& held = ascendc_sim::t_core->queue_held[static_cast<int>(src)];
            held -= held > 0 ? 1 : 0;
        }
    }

    bool VacantInQue() const { return queued_ < uint32_t(depth > 0 ? depth : kMaxBuffers); }
    bool HasTensorInQue() const { return queued_ > 0; }
    int32_t GetTensorCountInQue() const { return int32_t(queued_); }
    bool HasIdleBuffer() const {
        for (uint32_t i = 0; i < num_; ++i)
            if (slots_[i].state == Free) return true;
        return false;
    }
    // Event IDs are taken by allocated tensors (hold_event) and given back by FreeTensor, so there is nothing
    // left to give back here; kept so that kernels written for the older per-buffer rule compile.
    void FreeAllEvent() {}

    // Simulator internals, used by TPipe.
    void sim_init(uint8_t* base, uint32_t num, uint32_t len) {
        base_ = base;
        num_ = num;
        len_ = len;
        for (uint32_t i = 0; i < num; ++i) slots_[i] = Slot{};
        head_ = queued_ = next_alloc_ = 0;
    }
    static constexpr TPosition position() { return src; }
    // Where the buffers are: the local end of the queue (TQueBind<GM, VECIN>: VECIN).
    static constexpr TPosition buffer_position() { return src == TPosition::GM ? dst : src; }

private:
    // Every allocated tensor holds one of the TPosition's 8 event IDs until FreeTensor (AllocTensor.md: at most 8
    // tensors allocated one after another on all queues of one TPosition, on Atlas A2/A3 and 310P). Older pages
    // counted InitBuffer's buffers instead (TQue简介.md, CANN 8.0); kernels in production rely on the newer rule.
    void hold_event(ascendc_sim::Loc loc) {
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        uint32_t& held = c.queue_held[static_cast<int>(src)];
        if (held >= uint32_t(ascendc_sim::kEventIds))
            ascendc_sim::fail(ascendc_sim::Diag::TooManyBuffers, loc,
                              "AllocTensor while %u tensors of queues at this TPosition are allocated and not yet "
                              "freed; each holds one of the 8 hardware event IDs, so at most 8 are possible. Free "
                              "tensors after their last use before allocating more, or use a TBuf for scratch memory.",
                              held);
        ++held;
    }

    enum State : uint8_t { Free, Allocated, Queued, Dequeued };
    struct Slot {
        State state = Free;
        ascendc_sim::BufferTiming timing;
        ascendc_sim::Loc alloc_loc;
        ascendc_sim::PipeClock enqueued;
    };

    void require_init(const char* api, ascendc_sim::Loc loc) const {
        if (base_ == nullptr)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "%s on a queue that has no buffers: call pipe.InitBuffer(queue, num, bytes) first",
                              api);
    }

    template <typename T>
    LocalTensor<T> tensor(uint32_t i) {
        return LocalTensor<T>(reinterpret_cast<T*>(base_ + uint64_t(i) * len_), len_ / sizeof(T), src,
                              &slots_[i].timing, this);
    }

    template <typename T>
    uint32_t slot_of(const LocalTensor<T>& tensor, const char* api, ascendc_sim::Loc loc) const {
        const uint8_t* p = reinterpret_cast<const uint8_t*>(tensor.GetPhyAddrPtr());
        if (tensor.owner() != this || p < base_ || p >= base_ + uint64_t(num_) * len_ || (p - base_) % len_ != 0)
            ascendc_sim::fail(ascendc_sim::Diag::QueueForeignTensor, loc,
                              "%s of a tensor that did not come from this queue's AllocTensor/DeQue (%s). Call "
                              "%s on the queue the tensor came from, with the tensor it handed out.",
                              api,
                              tensor.GetPhyAddrPtr() == nullptr ? "an empty LocalTensor"
                              : tensor.owner() != this          ? "it belongs to another queue or a TBuf"
                                                                : "an offset view of one",
                              api);
        return uint32_t((p - base_) / len_);
    }

    uint8_t* base_ = nullptr;
    uint32_t num_ = 0;
    uint32_t len_ = 0;
    Slot slots_[kMaxBuffers];
    uint32_t fifo_[kMaxBuffers] = {};
    uint32_t head_ = 0;
    uint32_t queued_ = 0;
    uint32_t next_alloc_ = 0;
};

template <TPosition pos, int32_t depth = 1, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
public:
    TBuf() = default;
    TBuf(const TBuf&) = delete;
    TBuf& operator=(const TBuf&) = delete;

    template <typename T>
    LocalTensor<T> Get(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init(loc);
        return LocalTensor<T>(reinterpret_cast<T*>(base_), len_ / sizeof(T), pos, &timing_, this);
    }
    template <typename T>
    LocalTensor<T> Get(uint32_t count, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        return GetWithOffset<T>(count, 0, loc);
    }
    template <typename T>
    LocalTensor<T> GetWithOffset(uint32_t count, uint32_t byte_offset, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        require_init(loc);
        if (uint64_t(byte_offset) + uint64_t(count) * sizeof(T) > len_)
            ascendc_sim::fail(ascendc_sim::Diag::LocalOverrun, loc,
                              "TBuf::Get%s asks for %u elements of %s at byte offset %u, %llu bytes in all, but the "
                              "TBuf has %u bytes. Give the TBuf more bytes in InitBuffer or ask for fewer elements.",
                              byte_offset ? "WithOffset" : "", count, ascendc_sim::dtype_name(ascendc_sim::dtype_of<T>),
                              byte_offset, (unsigned long long)(byte_offset + uint64_t(count) * sizeof(T)), len_);
        if (byte_offset % ascendc_sim::kBlockBytes != 0)
            ascendc_sim::fail(ascendc_sim::Diag::UbMisaligned, loc,
                              "TBuf::GetWithOffset byte offset %u is not a multiple of 32 bytes. Round each "
                              "temporary's size up to 32 bytes when laying them out in the TBuf.",
                              byte_offset);
        return LocalTensor<T>(reinterpret_cast<T*>(base_ + byte_offset), count, pos, &timing_, this);
    }

    void sim_init(uint8_t* base, uint32_t len) {
        base_ = base;
        len_ = len;
        timing_ = ascendc_sim::BufferTiming{};
    }

private:
    void require_init(ascendc_sim::Loc loc) const {
        if (base_ == nullptr)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "TBuf::Get on a TBuf with no memory: call pipe.InitBuffer(buf, bytes) first");
    }

    uint8_t* base_ = nullptr;
    uint32_t len_ = 0;
    ascendc_sim::BufferTiming timing_;
};

class TPipe {
public:
    // Only one TPipe may exist at a time (TPipe构造函数.md: two at once hang the core).
    TPipe(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        if (ascendc_sim::t_core != nullptr) {
            if (ascendc_sim::t_core->current_pipe != nullptr)
                ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                                  "a second TPipe is created while another one is alive; on the NPU two TPipes at "
                                  "once hang the core. Create one TPipe in the kernel entry and pass a pointer to "
                                  "it, or call Destroy() on the first before creating the next.");
            ub_start_ = ascendc_sim::t_core->ub_used;
            std::copy(std::begin(ascendc_sim::t_core->local_used), std::end(ascendc_sim::t_core->local_used),
                      local_start_);
            ascendc_sim::t_core->current_pipe = this;
        }
    }
    ~TPipe() { Destroy(); }
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;

    template <class Queue>
    bool InitBuffer(Queue& queue, uint32_t num, uint32_t len, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        if (num == 0 || num > 255)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "InitBuffer with num = %u: num is a uint8_t buffer count from 1 to 8 (1: single, 2: "
                              "double buffering). Make each buffer larger instead of asking for more of them.",
                              num);
        constexpr TPosition pos = Queue::buffer_position();
        sim_detail::record_unit<pos>();
        sim_detail::count_buffers(c, num, loc);
        uint32_t padded = ascendc_sim::aligned_buffer_bytes(pos, len);
        uint8_t* base = ascendc_sim::carve_local(pos, padded * num, "a queue", loc);
        queue.sim_init(base, num, padded);
        return true;
    }

    template <TPosition pos>
    bool InitBuffer(TBuf<pos>& buf, uint32_t len, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        sim_detail::record_unit<pos>();
        sim_detail::count_buffers(ascendc_sim::core(loc), 1, loc);
        uint32_t padded = ascendc_sim::aligned_buffer_bytes(pos, len);
        buf.sim_init(ascendc_sim::carve_local(pos, padded, "a TBuf", loc), padded);
        return true;
    }

    // Gives back all UB, buffers and event IDs of this pipe, for a new round of InitBuffer (Reset.md).
    void Reset() {
        if (ascendc_sim::t_core != nullptr && ascendc_sim::t_core->current_pipe == this) {
            release();
            for (auto& row : allocated_)
                for (bool& a : row) a = false;
        }
    }
    void Destroy() {
        if (ascendc_sim::t_core != nullptr && ascendc_sim::t_core->current_pipe == this) {
            release();
            ascendc_sim::t_core->current_pipe = nullptr;
        }
    }

    TEventID FetchEventID(HardEvent event, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        ascendc_sim::CoreState& c = ascendc_sim::core(loc);
        int kind = static_cast<int>(event);
        for (int id = 0; id < ascendc_sim::kEventIds; ++id)
            if (c.flag_pending[kind][id] == 0 && !allocated_[kind][id]) return TEventID(id);
        return 0;
    }
    template <HardEvent event>
    TEventID FetchEventID(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        return FetchEventID(event, loc);
    }
    template <HardEvent event>
    TEventID AllocEventID(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
        int kind = static_cast<int>(event);
        for (int id = 0; id < ascendc_sim::kEventIds; ++id)
            if (!allocated_[kind][id]) {
                allocated_[kind][id] = true;
                return TEventID(id);
            }
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "AllocEventID: all 8 event IDs of this HardEvent are allocated. ReleaseEventID each id "
                          "as soon as its WaitFlag is done (or use FetchEventID for short-lived ids).");
    }
    template <HardEvent event>
    void ReleaseEventID(TEventID id) {
        allocated_[static_cast<int>(event)][id & 7] = false;
    }

private:
    void release() {
        ascendc_sim::CoreState& c = *ascendc_sim::t_core;
        c.ub_used = ub_start_;
        std::copy(std::begin(local_start_), std::end(local_start_), c.local_used);
        c.buffers = 0;
        for (uint32_t& n : c.queue_held) n = 0;
    }

    uint32_t ub_start_ = 0;
    uint32_t local_start_[ascendc_sim::kLocalMemories] = {};
    bool allocated_[ascendc_sim::kEventKinds][ascendc_sim::kEventIds] = {};
};


// On a vector core of a mixed launch (kernel_type.h): block * sub-blocks + sub-block, in [0, 2 * blockDim) for 1:2;
// on a cube core the block, in [0, blockDim) (GetBlockIdx page, atlasascendc_api_07_0185).
inline int64_t GetBlockIdx(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (c.cube) return c.block_idx;
    return int64_t(c.block_idx) * c.launch->shape.sub_blocks + c.sub_block;
}
inline int64_t GetBlockNum(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    return ascendc_sim::core(loc).launch->block_dim;
}
// 0 on a cube core (assumption: the pages describe the vector cores' index only).
inline int64_t GetSubBlockIdx(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) { return ascendc_sim::core(loc).sub_block; }
// On AIC 1 in every type with cube cores (GetTaskRatio.md, table 1); on AIV the vector cores per block.
inline int64_t GetTaskRatio(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    const ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    return c.cube ? 1 : c.launch->shape.sub_blocks;
}
inline int64_t GetTaskRation(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) { return GetTaskRatio(loc); }

template <HardEvent event>
void SetFlag(int32_t id, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    sim_detail::check_event_id(id, "SetFlag", loc);
    int kind = static_cast<int>(event);
    if (c.flag_pending[kind][id] != 0)
        ascendc_sim::fail(ascendc_sim::Diag::UnpairedFlag, loc,
                          "SetFlag on event id %d, which was already set at line %d and not yet waited on: every "
                          "SetFlag needs exactly one WaitFlag with the same HardEvent and id before it is set again",
                          id, c.flag_loc[kind][id].line);
    c.flag_pending[kind][id] = 1;
    c.flag_loc[kind][id] = loc;
    c.flag_clock[kind][id] = ascendc_sim::signal_clock(c, sim_detail::event_pipes(event).from);
    int from = sim_detail::event_pipes(event).from;  // the flag fires when the pipe's work is complete
    c.flag_time[kind][id] = std::max(c.pipe_free[from], c.pipe_done[from]);
}

template <HardEvent event>
void WaitFlag(int32_t id, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    sim_detail::check_event_id(id, "WaitFlag", loc);
    int kind = static_cast<int>(event);
    if (c.flag_pending[kind][id] == 0)
        ascendc_sim::fail(ascendc_sim::Diag::UnpairedFlag, loc,
                          "WaitFlag on event id %d with no SetFlag of the same HardEvent and id before it; on the "
                          "NPU this waits forever. Call SetFlag<same event>(id) first.",
                          id);
    c.flag_pending[kind][id] = 0;
    sim_detail::EventPipes pipes = sim_detail::event_pipes(event);
    ascendc_sim::wait_clock(c, pipes.to, c.flag_clock[kind][id]);
    c.pipe_free[pipes.to] = std::max(c.pipe_free[pipes.to], c.flag_time[kind][id]);
}

template <pipe_t pipe>
void PipeBarrier(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (pipe == PIPE_S)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "PipeBarrier<PIPE_S>: the hardware orders scalar instructions itself and this barrier "
                          "raises a hardware error (PipeBarrier(ISASI).md). Remove it.");
    if (pipe == PIPE_ALL) {
        ascendc_sim::align_pipes(c, ascendc_sim::core_time(c));
        ascendc_sim::sync_all_pipes(c);
    }
}

// SetFlag/WaitFlag between two pipes named by pipe_t (TQueSync.md).
template <pipe_t src, pipe_t dst>
class TQueSync {
public:
    void SetFlag(TEventID id, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) { AscendC::SetFlag<event()>(id, loc); }
    void WaitFlag(TEventID id, ascendc_sim::Loc loc = ascendc_sim::Loc::here()) { AscendC::WaitFlag<event()>(id, loc); }

private:
    static constexpr HardEvent event() {
        constexpr HardEvent table[][4] = {
            // dst:  MTE2              V                  MTE3               S
            {HardEvent::MAX, HardEvent::MTE2_V, HardEvent::MTE2_MTE3, HardEvent::MTE2_S},  // src MTE2
            {HardEvent::V_MTE2, HardEvent::V_V, HardEvent::V_MTE3, HardEvent::V_S},        // src V
            {HardEvent::MTE3_MTE2, HardEvent::MTE3_V, HardEvent::MAX, HardEvent::MTE3_S},  // src MTE3
            {HardEvent::S_MTE2, HardEvent::S_V, HardEvent::S_MTE3, HardEvent::MAX},        // src S
        };
        constexpr int s = index(src), d = index(dst);
        static_assert(s >= 0 && d >= 0, "TQueSync: the simulator models PIPE_S, PIPE_V, PIPE_MTE2 and PIPE_MTE3");
        return table[s][d];
    }
    static constexpr int index(pipe_t p) {
        return p == PIPE_MTE2 ? 0 : p == PIPE_V ? 1 : p == PIPE_MTE3 ? 2 : p == PIPE_S ? 3 : -1;
    }
};

namespace sim_detail {

// The cores one SyncAll waits for: every core (SyncAll<false>), else the vector cores, or the cube cores in a launch
// that has no vector cores (assumption: the SyncAll page describes AIV-only and mixed kernels).
struct SyncGroup {
    int barrier;  // LaunchState::barriers index
    uint32_t members;
    uint32_t finished;
    const char* who;
};

inline SyncGroup sync_group(const ascendc_sim::CoreState& c, bool all_cores, ascendc_sim::Loc loc) {
    using namespace ascendc_sim;
    const LaunchState& l = *c.launch;
    if (all_cores) return {1, l.total_cores(), l.barrier_finished + l.cube_finished, "core"};
    if (l.vector_cores() == 0) return {0, l.cube_cores(), l.cube_finished, "cube core"};
    if (c.cube)
        fail(Diag::WrongCore, loc,
             "SyncAll<true>() (the default) on a cube core of a %s launch: it synchronises the vector cores only "
             "(SyncAll.md). Use SyncAll<false>() on every core (AIC and AIV) to synchronise both, or call SyncAll() "
             "only inside `if ASCEND_IS_AIV`.",
             kernel_type_name(l.shape.type));
    return {0, l.vector_cores(), l.barrier_finished, "vector core"};
}

inline void sync_all(ascendc_sim::Loc loc, bool all_cores = false) {
    using namespace ascendc_sim;
    CoreState& c = core(loc);
    LaunchState& launch = *c.launch;
    if (launch.block_dim > launch.resident_cores)
        fail(Diag::SyncAllDeadlock, loc,
             "SyncAll with blockDim %u on %s, which runs %u blocks of this kernel type at once: blocks beyond that "
             "only start when others finish, so SyncAll waits forever. Launch at most %u blocks.",
             launch.block_dim, c.soc().name, launch.resident_cores, launch.resident_cores);
    std::unique_lock<std::mutex> lock(launch.barrier_mutex);
    const SyncGroup group = sync_group(c, all_cores, loc);
    LaunchState::Barrier& b = launch.barriers[group.barrier];
    auto finished = [&] { return sync_group(c, all_cores, loc).finished; };
    if (launch.abort.load()) throw KernelAborted{};  // a core that failed has ended: its diagnostic is the one
    if (group.finished > 0)
        fail(Diag::SyncAllDeadlock, loc,
             "SyncAll reached after %u %s(s) already finished without calling it; on the NPU this waits "
             "forever. Every block must call SyncAll the same number of times.",
             group.finished, group.who);
    b.time = std::max(b.time, core_time(c));
    merge_clock(b.clock, gm_signal(c));
    uint64_t generation = b.generation;
    if (++b.waiting == group.members) {
        b.waiting = 0;
        b.release_time = b.time;
        b.time = 0.0;
        b.release_clock = std::move(b.clock);
        b.clock.clear();
        ++b.generation;
        launch.barrier_cv.notify_all();
    } else {
        launch.barrier_cv.wait(lock, [&] {
            return b.generation != generation || launch.abort.load() || finished() > 0;
        });
        if (b.generation == generation) {
            if (launch.abort.load()) throw KernelAborted{};
            fail(Diag::SyncAllDeadlock, loc,
                 "SyncAll waits for %u %s(s) that finished without calling it; on the NPU this waits "
                 "forever. Every block must call SyncAll the same number of times.",
                 finished(), group.who);
        }
    }
    align_pipes(c, b.release_time);
    gm_wait(c, b.release_clock);
    sync_all_pipes(c);
    ++c.epoch;
}

}  // namespace sim_detail

// SyncAll<true> synchronises the vector cores, SyncAll<false> the cube and vector cores of a mixed launch (SyncAll.md).
template <bool isAIVOnly = true>
void SyncAll(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    sim_detail::sync_all(loc, !isAIVOnly && ascendc_sim::core(loc).launch->shape.with_cube);
}

// The soft barrier: its workspaces need 32 bytes per core (SyncAll.md); GM is zeroed by the caller.
template <bool isAIVOnly = true>
void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t usedCores = 0,
             ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (c.launch->shape.with_cube)
        ascendc_sim::fail(ascendc_sim::Diag::UnsupportedApi, loc,
                          "the soft SyncAll (with workspaces) is for pure vector kernels only (SyncAll.md); this is a "
                          "%s launch. Use the hard SyncAll() (no arguments).",
                          ascendc_sim::kernel_type_name(c.launch->shape.type));
    uint32_t blocks = c.launch->block_dim;
    if (usedCores < 0 || uint32_t(usedCores) > blocks)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "SyncAll: usedCores is %d but the launch has %u blocks. Pass 0 (all blocks) or at most "
                          "GetBlockNum().",
                          usedCores, blocks);
    if (usedCores != 0 && uint32_t(usedCores) != blocks)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "SyncAll with usedCores = %d of %u blocks is not modelled by the simulator. Synchronise "
                          "all blocks (usedCores = 0).",
                          usedCores, blocks);
    const uint8_t* flags = ascendc_sim::check_gm(gmWorkspace.GetPhyAddr(), uint64_t(blocks) * 32, "SyncAll(gmWorkspace)",
                                                 loc, gmWorkspace.sim_home());
    ascendc_sim::check_operand(ubWorkspace, uint64_t(blocks) * 8, "SyncAll", "ubWorkspace", loc);
    for (uint64_t i = 0; i < uint64_t(blocks) * 32; ++i)
        if (flags[i] != 0)
            ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                              "SyncAll: byte %llu of gmWorkspace is not zero; the soft barrier counts in it and "
                              "returns early or hangs when it does not start at zero. Zero blockDim * 32 bytes on "
                              "the host, or in every block before its first SyncAll.",
                              (unsigned long long)i);
    sim_detail::sync_all(loc);
}

namespace sim_detail {
// SetAtomicAdd.md / SetAtomicMax(ISASI).md: int8_t, int16_t, half, bfloat16_t, int32_t, float on Atlas A2/A3.
constexpr uint32_t kAtomicA2 = ascendc_sim::dtype_bit(ascendc_sim::DType::F32) | ascendc_sim::dtype_bit(ascendc_sim::DType::F16) |
                               ascendc_sim::dtype_bit(ascendc_sim::DType::I16) | ascendc_sim::dtype_bit(ascendc_sim::DType::I32) |
                               ascendc_sim::dtype_bit(ascendc_sim::DType::I8) | ascendc_sim::dtype_bit(ascendc_sim::DType::BF16);
constexpr uint32_t kAtomic310P = ascendc_sim::dtype_bit(ascendc_sim::DType::F32) | ascendc_sim::dtype_bit(ascendc_sim::DType::F16) |
                                 ascendc_sim::dtype_bit(ascendc_sim::DType::I16);
}  // namespace sim_detail

template <typename T>
void SetAtomicAdd(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sim_detail::kAtomicA2, sim_detail::kAtomic310P, "SetAtomicAdd", loc);
    c.atomic_mode = 1;
    c.atomic_dtype = ascendc_sim::dtype_of<T>;
}
template <typename T>
void SetAtomicMax(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sim_detail::kAtomicA2, sim_detail::kAtomic310P, "SetAtomicMax", loc);
    c.atomic_mode = 2;
    c.atomic_dtype = ascendc_sim::dtype_of<T>;
}
template <typename T>
void SetAtomicMin(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    ascendc_sim::check_dtype(ascendc_sim::dtype_of<T>, sim_detail::kAtomicA2, sim_detail::kAtomic310P, "SetAtomicMin", loc);
    c.atomic_mode = 3;
    c.atomic_dtype = ascendc_sim::dtype_of<T>;
}
inline void SetAtomicNone(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) { ascendc_sim::core(loc).atomic_mode = 0; }

}  // namespace AscendC

// Declared at global scope, as in the public headers: kernels call it unqualified (GetTPipePtr.md).
inline AscendC::TPipe* GetTPipePtr(ascendc_sim::Loc loc = ascendc_sim::Loc::here()) {
    ascendc_sim::CoreState& c = ascendc_sim::core(loc);
    if (c.current_pipe == nullptr)
        ascendc_sim::fail(ascendc_sim::Diag::BadArgument, loc,
                          "GetTPipePtr() with no TPipe alive. Create the TPipe (TPipe pipe;) before using it, and "
                          "keep it alive until the kernel ends.");
    return static_cast<AscendC::TPipe*>(c.current_pipe);
}

namespace AscendC {
using ::GetTPipePtr;
}  // namespace AscendC
