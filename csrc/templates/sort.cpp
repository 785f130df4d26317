// Built-in generator template: torch.sort / torch.argsort and torch.topk along any dimension, on the vector
// unit's sort instructions (Sort32, MrgSort, Extract), in the order torch's CPU kernels give.
//
// Keys. Every element becomes a (float key, uint32 payload) pair. The key is the value (descending) or its
// negation (ascending), so that the hardware's descending sort gives the wanted order; -0.0 is keyed as +0.0
// (torch compares them equal) and NaN as +inf (descending) or -inf (ascending), with a mark in the payload:
// the payload is the element's position (30 bits) with bit 31 set for -0.0 and bit 30 for NaN. The
// hardware is thus never asked to order NaN or signed zeros, on which the pages are silent.
//
// Order among equal keys. Sort32 and MrgSort keep equal scores in input order and MrgSort takes a tie from
// the lower queue first (Sort32.md, MrgSort.md, Sort.md 约束说明), so the result is a stable sort: equal
// values by index, what torch.sort(stable=True) gives. NaN keyed as ±inf can tie with a real ±inf: those
// blocks are rearranged afterwards (FixNan) so that NaN comes first (descending) or last (ascending), as
// torch puts it. torch.sort(stable=False) and torch.topk order equal values as libstdc++'s std::sort,
// std::nth_element and std::partial_sort leave them (torch's CPU kernels call those). Where a row's result
// has no two equal keys in the part that is returned, that order is the stable one; a row that has ties
// there is redone by the scalar unit with the same algorithms on the same comparisons (the Seq functions
// below), so indices always match torch's.
//
// Rows of up to CHUNK elements ("short" rows) are sorted several to a tile: each row padded to rowPad
// elements (a power of two, at least 64) with -inf keys, Sort32 over the tile, then MrgSort levels that
// merge within rows; values come back through Gather from the input tile. Longer rows are sorted CHUNK
// elements at a time; sorts merge the chunks through the workspace (four runs at a time, streamed through
// UB with MrgSort's exhausted-queue suspension), top-k keeps the best k + 1 of the chunks seen in UB.
// Values of long rows are rebuilt from their keys (and NaN payloads read back from the input). bfloat16
// top-k values of NaN are 0x7FC0: torch's bfloat16 topk goes through float (CANONICAL_NAN).
//
// Unstable sorts of long rows go out in the stable order; a row with equal values is then redone in std::sort's
// order by the scalar unit in the workspace (LongStdSort). torch sorts a 1-D integer tensor (not bool) of 32768
// elements and more ascending by a stable radix sort, whatever `stable` says: those keep the stable order.
//
// Along a dim that is not the last (STRIDED, inner > 1 elements after each one of the sorted dim), tiles of rows
// are read as they lie in GM and turned into rows in UB by a Gather (see Tables), and back for the outputs.
//
// Limits (the tiling declines, and torch runs): rows of 2^30 elements and more; long-row top-k of int32 / int64
// (ranks need the row in UB), with k >= LONG_KEEP, or with k * 64 > n (std::nth_element's order) on rows over
// 2 * CHUNK; along a dim that is not the last, rows longer than CHUNK, and tiles of fewer columns of a slab than
// fill a 32-byte block (short tiles of long rows with many elements after the sorted dim).
//
// The regions between "// <<name" and "// >>name" are written by torch_ascendgen's generator; as checked
// in they hold an example — torch.topk(x, 4) of float rows, values and indices — so that this file is a
// complete kernel an editor and a compiler can check.
#include "kernel_operator.h"

using namespace AscendC;

struct TilingData {
    uint32_t rows;          // product of the leading dimensions
    uint32_t cols;          // n, the length of the sorted dimension
    uint32_t rowsPerBlock;
    uint32_t rowPad;        // short rows: n rounded up to a power of two >= 64; long rows: CHUNK
    uint32_t rowsPerTile;   // short rows: CHUNK / rowPad; long rows: 1
    uint32_t chunks;        // long rows: CHUNK-element chunks per row; short rows: 0
    uint32_t k;             // elements of each output row: n (sort) or k (topk)
    uint32_t keep;          // entries of each row's order that are needed: n (sort), min(k + 1, n) (topk)
    uint32_t wsPerBlock;    // bytes of workspace per block (long-row sorts): three areas of n pairs and a table
    uint32_t split;         // long-row top-k: blocks sharing one row (1: a block takes whole rows)
    uint32_t chunksPerPart; // ... and the chunks each of them takes
    uint32_t inner;         // product of the dims after the sorted one (1: rows are contiguous)
    uint32_t outer;         // inner > 1: product of the dims before the sorted one ("slabs" of n * inner)
    uint32_t slabsPerTile;  // inner > 1: whole slabs in a tile (inner <= rowsPerTile), or 0: a tile takes
    uint32_t tilesPerSlab;  // ... rowsPerTile columns of one slab at a time, tilesPerSlab tiles to a slab
    uint32_t tiles;         // inner > 1: tiles in all
    uint32_t tilesPerBlock;
    uint32_t stableTies;    // unstable sorts: equal values stay in index order (torch's radix sort of 1-D integers)
};

constexpr uint32_t ORDER_STABLE = 0;    // torch.sort(stable=True): equal values in index order
constexpr uint32_t ORDER_UNSTABLE = 1;  // torch.sort(stable=False): std::sort's order
constexpr uint32_t ORDER_TOPK = 2;      // torch.topk: std::partial_sort / nth_element's order

// <<config
constexpr uint32_t CHUNK = 2048;        // elements sorted in UB at once (a power of two, 128..2048)
constexpr int32_t BUFFER_NUM = 2;       // input tiles in flight
constexpr uint32_t ORDER = ORDER_TOPK;
constexpr bool DESCENDING = true;       // sort: descending; topk: largest
constexpr uint32_t TOPK = 4;            // topk's k (0 for sorts)
constexpr bool SORTED = true;           // topk's sorted: false leaves std::nth_element's arrangement (k * 64 > n)
constexpr bool VALUES_OUT = true;
constexpr bool INDICES_OUT = true;
constexpr int32_t TRAILING = 0;         // dims after the sorted one
constexpr bool STRIDED = false;         // some of them are not size 1: rows are read and written with a stride
constexpr int32_t SOURCE = 0;           // the input sorted
constexpr bool CANONICAL_NAN = false;   // NaN values come out as 0x7FC0 (torch's bfloat16 topk goes through float)
constexpr uint32_t RADIX_DIGITS = 0;    // int32 / int64: 16-bit digits ranked first (see Ranks); 0: float keys
constexpr bool INTEGER = false;         // In is an integer type (bool as uint8_t)
constexpr bool RADIX_1D = false;        // unstable ascending sort of integers (not bool): torch sorts a 1-D tensor of
                                        // 32768 elements and more by a radix sort (stable)
constexpr float INT_LOW = 0.0f;         // ... and its range (int8, uint8, int16: rebuilt values are clamped to it)
constexpr float INT_HIGH = 0.0f;
using In = float;
// >>config

constexpr uint32_t SLACK = 64;                  // elements past CHUNK in every array (Gather reads one past)
constexpr uint32_t SPAN = CHUNK + SLACK;
constexpr uint32_t MASK_SPAN = (SPAN / 8 + 31) / 32 * 32;  // bytes of one bit mask
constexpr uint32_t LONG_KEEP = 1024;            // long-row top-k keeps at most this many entries
constexpr uint32_t SLOT_BYTES = (32 + 12 * LONG_KEEP + 511) / 512 * 512;  // a block's share of a split row
constexpr uint32_t MAX_SPLIT = 64;              // blocks sharing one row at most
constexpr uint32_t NAN_BIT = 0x40000000u;
constexpr uint32_t NEG_ZERO_BIT = 0x80000000u;
constexpr float POS_INF = __builtin_huge_valf();
constexpr float NEG_INF = -__builtin_huge_valf();
constexpr float NAN_KEY = DESCENDING ? POS_INF : NEG_INF;
constexpr uint32_t IN_SHIFT = sizeof(In) == 8 ? 3 : (sizeof(In) == 4 ? 2 : (sizeof(In) == 2 ? 1 : 0));  // log2
constexpr bool BYTE_IN = sizeof(In) == 1;       // int8, uint8, bool: no Gather of bytes, no Cast to float

// Bytes of a block's run table in the workspace (long-row sorts): 512-byte aligned, so that one block's scalar
// table writes (whole 64-byte cache lines) never touch another block's areas.
__aicore__ inline uint64_t TableBytes(uint64_t chunks) { return (16 * chunks + 511) / 512 * 512; }

// One (key, payload) pair as the scalar unit sees it.
struct Elem {
    float key;
    uint32_t pay;
};

// Where a tile of rows is in GM. Contiguous rows (inner 1): `rows` rows from element `in` of the input and `out`
// of the outputs. inner > 1: `rows` = slabs * inner rows of whole slabs at `in` / `out` (width 0), or `width`
// columns of one slab (rows = width), the first at `in` / `out`.
struct Place {
    uint64_t in;
    uint64_t out;
    uint32_t rows;
    uint32_t width;
};

// torch's comparator on keys: `a` goes before `b`. NaN is the largest value (first when descending, last
// when ascending); otherwise a larger key goes first (keys are negated values when ascending).
__aicore__ inline bool Before(const Elem& a, const Elem& b)
{
    bool nanA = (a.pay & NAN_BIT) != 0;
    bool nanB = (b.pay & NAN_BIT) != 0;
    if (nanA || nanB) return DESCENDING ? (nanA && !nanB) : (nanB && !nanA);
    return a.key > b.key;
}

__aicore__ inline int32_t FloorLog2(int32_t n)
{
    int32_t lg = 0;
    while (n > 1) { n >>= 1; ++lg; }
    return lg;
}

// ---- libstdc++'s sorting algorithms over pairs in UB, on the scalar unit --------------------------------
// torch's CPU sort (stable=False) is std::sort and its topk std::partial_sort or std::nth_element then
// std::sort, over (value, index) pairs compared on the value only; these reproduce the moves of those
// algorithms (introsort: median of three to the front, unguarded Hoare partition, a 16-element insertion
// sort threshold and heapsort below depth 2 * log2(n); introselect likewise with a 3-element threshold),
// so that equal values end where torch's end. Keys and payloads are two arrays in UB (LocalTensor) or, for rows
// longer than a chunk, in the workspace (GlobalTensor).

template <typename Keys, typename Pays>
class SeqOf {
public:
    __aicore__ inline SeqOf(const Keys& keys, const Pays& pays, uint32_t base)
    {
        keys_ = keys;
        pays_ = pays;
        base_ = base;
    }

    __aicore__ inline Elem At(int32_t i) const
    {
        Elem e;
        e.key = keys_.GetValue(base_ + i);
        e.pay = pays_.GetValue(base_ + i);
        return e;
    }

    // Element i for a comparison only: its payload is read only where its key is ±inf (NaN is keyed so; the
    // comparison needs its mark there), which saves the scalar unit one UB read per comparison in a partition.
    __aicore__ inline Elem Peek(int32_t i) const
    {
        Elem e;
        e.key = keys_.GetValue(base_ + i);
        e.pay = e.key == POS_INF || e.key == NEG_INF ? pays_.GetValue(base_ + i) : 0u;
        return e;
    }

    __aicore__ inline void Put(int32_t i, const Elem& e) const
    {
        keys_.SetValue(base_ + i, e.key);
        pays_.SetValue(base_ + i, e.pay);
    }

    __aicore__ inline void Swap(int32_t i, int32_t j) const
    {
        Elem a = At(i);
        Put(i, At(j));
        Put(j, a);
    }

    // Moves the median of a, b, c (by Before) to `result`.
    __aicore__ inline void MedianToFirst(int32_t result, int32_t a, int32_t b, int32_t c) const
    {
        Elem ea = At(a), eb = At(b), ec = At(c);
        int32_t pick;
        if (Before(ea, eb)) {
            pick = Before(eb, ec) ? b : (Before(ea, ec) ? c : a);
        } else {
            pick = Before(ea, ec) ? a : (Before(eb, ec) ? c : b);
        }
        Swap(result, pick);
    }

    // Hoare partition of [first, last) around the element at `pivot` (outside the range); returns the cut.
    __aicore__ inline int32_t Partition(int32_t first, int32_t last, int32_t pivot) const
    {
        Elem p = At(pivot);
        while (true) {
            while (Before(Peek(first), p)) ++first;
            --last;
            while (Before(p, Peek(last))) --last;
            if (!(first < last)) return first;
            Swap(first, last);
            ++first;
        }
    }

    __aicore__ inline int32_t PartitionPivot(int32_t first, int32_t last) const
    {
        int32_t mid = first + (last - first) / 2;
        MedianToFirst(first, first + 1, mid, last - 1);
        return Partition(first + 1, last, first);
    }

    __aicore__ inline void PushHeap(int32_t first, int32_t hole, int32_t top, const Elem& value) const
    {
        int32_t parent = (hole - 1) / 2;
        while (hole > top) {
            Elem up = At(first + parent);
            if (!Before(up, value)) break;
            Put(first + hole, up);
            hole = parent;
            parent = (hole - 1) / 2;
        }
        Put(first + hole, value);
    }

    __aicore__ inline void AdjustHeap(int32_t first, int32_t hole, int32_t len, const Elem& value) const
    {
        int32_t top = hole;
        int32_t child = hole;
        while (child < (len - 1) / 2) {
            child = 2 * (child + 1);
            if (Before(At(first + child), At(first + child - 1))) --child;
            Put(first + hole, At(first + child));
            hole = child;
        }
        if ((len & 1) == 0 && child == (len - 2) / 2) {
            child = 2 * (child + 1);
            Put(first + hole, At(first + child - 1));
            hole = child - 1;
        }
        PushHeap(first, hole, top, value);
    }

    __aicore__ inline void MakeHeap(int32_t first, int32_t last) const
    {
        int32_t len = last - first;
        if (len < 2) return;
        for (int32_t parent = (len - 2) / 2;; --parent) {
            AdjustHeap(first, parent, len, At(first + parent));
            if (parent == 0) return;
        }
    }

    // The heap [first, middle) takes each later element that goes before its top (std::__heap_select).
    __aicore__ inline void HeapSelect(int32_t first, int32_t middle, int32_t last) const
    {
        MakeHeap(first, middle);
        for (int32_t i = middle; i < last; ++i) {
            Elem e = At(i);
            if (Before(e, At(first))) {
                Put(i, At(first));
                AdjustHeap(first, 0, middle - first, e);
            }
        }
    }

    __aicore__ inline void SortHeap(int32_t first, int32_t last) const
    {
        while (last - first > 1) {
            --last;
            Elem e = At(last);
            Put(last, At(first));
            AdjustHeap(first, 0, last - first, e);
        }
    }

    __aicore__ inline void LinearInsert(int32_t last) const
    {
        Elem value = At(last);
        int32_t next = last - 1;
        while (true) {
            Elem e = At(next);
            if (!Before(value, e)) break;
            Put(last, e);
            last = next;
            --next;
        }
        Put(last, value);
    }

    __aicore__ inline void InsertionSort(int32_t first, int32_t last) const
    {
        if (first == last) return;
        for (int32_t i = first + 1; i < last; ++i) {
            Elem e = At(i);
            if (Before(e, At(first))) {
                for (int32_t j = i; j > first; --j) Put(j, At(j - 1));
                Put(first, e);
            } else {
                LinearInsert(i);
            }
        }
    }

    // std::__introsort_loop: leaves [first, last) in blocks of at most 16 elements, each block's elements
    // going before the next block's. Ranges are kept on a stack instead of recursion; they are disjoint,
    // so the order they are worked in does not change the result.
    __aicore__ inline void IntrosortLoop(int32_t first, int32_t last) const
    {
        constexpr int32_t THRESHOLD = 16;
        int32_t stack[3 * 64];
        int32_t top = 0;
        stack[top++] = first;
        stack[top++] = last;
        stack[top++] = 2 * FloorLog2(last - first);
        while (top > 0) {
            int32_t depth = stack[--top];
            last = stack[--top];
            first = stack[--top];
            while (last - first > THRESHOLD) {
                if (depth == 0) {
                    HeapSelect(first, last, last);
                    SortHeap(first, last);
                    break;
                }
                --depth;
                int32_t cut = PartitionPivot(first, last);
                stack[top++] = cut;
                stack[top++] = last;
                stack[top++] = depth;
                last = cut;
            }
        }
    }

    __aicore__ inline void FinalInsertionSort(int32_t first, int32_t last) const
    {
        constexpr int32_t THRESHOLD = 16;
        if (last - first > THRESHOLD) {
            InsertionSort(first, first + THRESHOLD);
            for (int32_t i = first + THRESHOLD; i < last; ++i) LinearInsert(i);
        } else {
            InsertionSort(first, last);
        }
    }

    __aicore__ inline void StdSort(int32_t first, int32_t last) const
    {
        if (last - first < 2) return;
        IntrosortLoop(first, last);
        FinalInsertionSort(first, last);
    }

    // std::nth_element(0, nth, last) (std::__introselect).
    __aicore__ inline void NthElement(int32_t nth, int32_t last) const
    {
        int32_t first = 0;
        if (nth == last) return;
        int32_t depth = 2 * FloorLog2(last - first);
        while (last - first > 3) {
            if (depth == 0) {
                HeapSelect(first, nth + 1, last);
                Swap(first, nth);
                return;
            }
            --depth;
            int32_t cut = PartitionPivot(first, last);
            if (cut <= nth) first = cut; else last = cut;
        }
        InsertionSort(first, last);
    }

    // torch's topk_impl_loop over n elements: the first k in torch's order.
    __aicore__ inline void TopK(int32_t k, int32_t n) const
    {
        if (int64_t(k) * 64 <= n) {
            HeapSelect(0, k, n);
            SortHeap(0, k);
        } else {
            NthElement(k - 1, n);
            if constexpr (SORTED) StdSort(0, k - 1);
        }
    }

private:
    Keys keys_;
    Pays pays_;
    uint32_t base_;
};

using Seq = SeqOf<LocalTensor<float>, LocalTensor<uint32_t>>;

class SortKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR values, GM_ADDR indices, GM_ADDR workspace, const TilingData& t)
    {
        n_ = t.cols;
        rowPad_ = t.rowPad;
        rowsPerTile_ = t.rowsPerTile;
        chunks_ = t.chunks;
        k_ = t.k;
        keep_ = t.keep;
        split_ = t.split;
        chunksPerPart_ = t.chunksPerPart;
        inner_ = t.inner;
        stableTies_ = t.stableTies != 0;
        outer_ = t.outer;
        slabsPerTile_ = t.slabsPerTile;
        if (inner_ > 1) {
            uint32_t firstTile = t.tilesPerBlock * GetBlockIdx();
            firstTile_ = firstTile;
            tileCount_ = firstTile >= t.tiles ? 0 : (t.tiles - firstTile < t.tilesPerBlock ? t.tiles - firstTile
                                                                                            : t.tilesPerBlock);
            tilesPerSlab_ = t.tilesPerSlab;
        }
        uint32_t first = t.rowsPerBlock * GetBlockIdx();
        firstRow_ = first;
        rowCount_ = first >= t.rows ? 0 : (t.rows - first < t.rowsPerBlock ? t.rows - first : t.rowsPerBlock);
        inGm_.SetGlobalBuffer((__gm__ In*)x);
        if (values != nullptr) valGm_.SetGlobalBuffer((__gm__ In*)values);
        if (indices != nullptr) idxGm_.SetGlobalBuffer((__gm__ int64_t*)indices);
        if (split_ > 1) {  // a slot per block: counts, best pairs, NaN payloads
            slotGm_.SetGlobalBuffer((__gm__ uint32_t*)workspace);
            slotPairsGm_.SetGlobalBuffer((__gm__ float*)workspace);
        }
        if (t.wsPerBlock > 0 && split_ <= 1) {  // this block's table (scalar writes: 64-byte cache lines), then areas S, A, B
            GM_ADDR mine = workspace + uint64_t(t.wsPerBlock) * GetBlockIdx();
            tableGm_.SetGlobalBuffer((__gm__ uint32_t*)mine);
            wsGm_.SetGlobalBuffer((__gm__ float*)(mine + TableBytes(chunks_)));
            wsU32Gm_.SetGlobalBuffer((__gm__ uint32_t*)(mine + TableBytes(chunks_)));
        }
        pipe_.InitBuffer(inQ_, BUFFER_NUM, CHUNK * sizeof(In));
        pipe_.InitBuffer(valQ_, 1, CHUNK * sizeof(In));
        pipe_.InitBuffer(idxQ_, 1, CHUNK * sizeof(int64_t));
        pipe_.InitBuffer(work_, (13 * SPAN + 2 * LONG_KEEP) * sizeof(float) + 5 * MASK_SPAN);
        pipe_.InitBuffer(headBuf_, MAX_SPLIT * 32);
        if constexpr (STRIDED) {
            pipe_.InitBuffer(stageBuf_, CHUNK * sizeof(In));
            pipe_.InitBuffer(tableBuf_, 2 * CHUNK * sizeof(uint32_t));
        }
        Carve();
        Constants();
    }

    __aicore__ inline void Process()
    {
        if (split_ > 1) {
            SplitTopK();
            return;
        }
        if (inner_ > 1) {
            StridedRows();
            return;
        }
        if (rowCount_ == 0) return;
        if (chunks_ == 0) {
            ShortRows();
        } else {
            for (uint32_t r = 0; r < rowCount_; ++r) {
                if constexpr (ORDER == ORDER_TOPK) {
                    LongTopK(firstRow_ + r);
                } else if constexpr (RADIX_DIGITS > 0) {
                    LongRadix(firstRow_ + r);
                } else {
                    LongSort(firstRow_ + r);
                }
            }
        }
    }

private:
    // ---- UB layout -------------------------------------------------------------------------------------

    __aicore__ inline void Carve()
    {
        LocalTensor<float> all = work_.Get<float>();
        xf_ = all[0];
        key_ = all[SPAN];
        pay_ = all[2 * SPAN].ReinterpretCast<uint32_t>();
        mark_ = all[3 * SPAN];
        sp_ = all[4 * SPAN].ReinterpretCast<uint32_t>();
        colF_ = all[5 * SPAN];
        pos_ = all[6 * SPAN].ReinterpretCast<int32_t>();
        rowBase_ = all[7 * SPAN].ReinterpretCast<int32_t>();
        pairsA_ = all[8 * SPAN];     // 2 * SPAN floats: SPAN pairs
        pairsB_ = all[10 * SPAN];
        nanList_ = all[12 * SPAN].ReinterpretCast<uint32_t>();  // long-row top-k: NaN payloads
        best_ = all[13 * SPAN];      // 2 * LONG_KEEP floats
        LocalTensor<uint8_t> masks = all[13 * SPAN + 2 * LONG_KEEP].ReinterpretCast<uint8_t>();
        mValid_ = masks[0];
        mPair_ = masks[MASK_SPAN];
        mZero_ = masks[2 * MASK_SPAN];
        mNum_ = masks[3 * MASK_SPAN];
        mTie_ = masks[4 * MASK_SPAN];
    }

    // Per launch: positions, each position's column within its row and its row's first position, and the
    // masks of real (not padding) columns and of columns that have a real right neighbour.
    __aicore__ inline void Constants()
    {
        uint32_t shift = 32 - FloorLog2(int32_t(rowPad_));
        LocalTensor<uint32_t> posU = pos_.ReinterpretCast<uint32_t>();
        LocalTensor<uint32_t> colU = sp_;
        CreateVecIndex(pos_, int32_t(0), SPAN);
        PipeBarrier<PIPE_V>();
        ShiftLeft(colU, posU, shift, SPAN);
        PipeBarrier<PIPE_V>();
        ShiftRight(colU, colU, shift, SPAN);
        PipeBarrier<PIPE_V>();
        Sub(rowBase_, pos_, colU.ReinterpretCast<int32_t>(), SPAN);
        Cast(colF_, colU.ReinterpretCast<int32_t>(), RoundMode::CAST_RINT, SPAN);
        PipeBarrier<PIPE_V>();
        uint32_t realCols = chunks_ == 0 ? n_ : CHUNK;
        CompareScalar(mValid_, colF_, float(realCols), CMPMODE::LT, SPAN);
        CompareScalar(mPair_, colF_, float(realCols) - 1.0f, CMPMODE::LT, SPAN);
        PipeBarrier<PIPE_V>();
        if constexpr (STRIDED) {
            if (inner_ > 1) Tables();
        }
    }

    // ---- rows along a dim that is not the last (inner > 1) ------------------------------------------------
    // A tile's elements come in as they lie in GM: whole slabs (s, j, i) contiguously, or `width` columns of one
    // slab as n strided rows of rowsPerTile elements (j, c) (each a whole number of 32-byte blocks); a Gather
    // through inTable_ turns them into the tile's rows of rowPad (row s * inner + i, or c), and outTable_ turns
    // the sorted rows back (the tile position of each output element, in GM order) for the outputs' copies.
    // Built once per launch by the scalar unit.
    __aicore__ inline void Tables()
    {
        LocalTensor<uint32_t> tables = tableBuf_.Get<uint32_t>();
        inTable_ = tables[0];
        outTable_ = tables[CHUNK];
        uint32_t lg = uint32_t(FloorLog2(int32_t(rowPad_)));
        uint32_t width = rowsPerTile_;
        for (uint32_t p = 0; p < CHUNK; ++p) {
            uint32_t c = p >> lg, j = p & (rowPad_ - 1);
            uint32_t jj = j < n_ ? j : n_ - 1;
            uint32_t at = 0;
            if (slabsPerTile_ > 0) {
                uint32_t slab = c / inner_, i = c % inner_;
                at = slab < slabsPerTile_ ? (slab * n_ + jj) * inner_ + i : 0;
            } else {
                at = jj * width + c;
            }
            inTable_.SetValue(p, at);
        }
        for (uint32_t q = 0; q < CHUNK; ++q) {
            uint32_t p = 0;
            if (slabsPerTile_ > 0) {
                uint32_t slab = q / (k_ * inner_), rest = q % (k_ * inner_);
                uint32_t j = rest / inner_, i = rest % inner_;
                p = slab < slabsPerTile_ ? ((slab * inner_ + i) << lg) + j : 0;
            } else {
                uint32_t j = q / width, c = q % width;
                p = j < k_ ? (c << lg) + j : 0;
            }
            outTable_.SetValue(q, p);
        }
        Sync<HardEvent::S_V>();
    }

    // The block's tiles: whole slabs, or columns of one slab.
    __aicore__ inline void StridedRows()
    {
        for (uint32_t t = firstTile_; t < firstTile_ + tileCount_; ++t) {
            Place place;
            if (slabsPerTile_ > 0) {
                uint32_t slab = t * slabsPerTile_;
                uint32_t slabs = outer_ - slab < slabsPerTile_ ? outer_ - slab : slabsPerTile_;
                place = Place{uint64_t(slab) * n_ * inner_, uint64_t(slab) * k_ * inner_, slabs * inner_, 0};
            } else {
                uint32_t slab = t / tilesPerSlab_;
                uint32_t c0 = (t % tilesPerSlab_) * rowsPerTile_;
                uint32_t width = inner_ - c0 < rowsPerTile_ ? inner_ - c0 : rowsPerTile_;
                place = Place{uint64_t(slab) * n_ * inner_ + c0, uint64_t(slab) * k_ * inner_ + c0, width, width};
            }
            SortTile(place);
        }
    }

    // The stage (elements as they lie in GM) to the tile's rows.
    __aicore__ inline void LoadStrided(const LocalTensor<In>& local, const Place& place)
    {
        LocalTensor<In> stage = stageBuf_.Get<In>();
        Sync<HardEvent::V_MTE2>();
        Sync<HardEvent::S_MTE2>();
        DataCopyPadExtParams<In> pad{false, 0, 0, In(0)};
        if (place.width == 0) {
            DataCopyExtParams params{1, static_cast<uint32_t>(place.rows * n_ * sizeof(In)), 0, 0, 0};
            DataCopyPad(stage, inGm_[place.in], params, pad);
        } else {
            uint32_t used = (place.width * sizeof(In) + 31) / 32;
            DataCopyExtParams params{static_cast<uint16_t>(n_), static_cast<uint32_t>(place.width * sizeof(In)),
                                     static_cast<uint32_t>((inner_ - place.width) * sizeof(In)),
                                     rowsPerTile_ * uint32_t(sizeof(In)) / 32 - used, 0};
            DataCopyPad(stage, inGm_[place.in], params, pad);
        }
        uint32_t count = place.rows * rowPad_;
        if constexpr (BYTE_IN) {  // no Gather of bytes: the scalar unit moves them
            Sync<HardEvent::MTE2_S>();
            for (uint32_t p = 0; p < count; ++p) local.SetValue(p, stage.GetValue(inTable_.GetValue(p)));
            Sync<HardEvent::S_V>();
        } else if constexpr (sizeof(In) == 8) {
            Sync<HardEvent::MTE2_V>();
            GatherWide(local, stage, inTable_, count);
        } else {
            Sync<HardEvent::MTE2_V>();
            LocalTensor<uint32_t> offsets = sp_;
            ShiftLeft(offsets, inTable_, IN_SHIFT, count);
            PipeBarrier<PIPE_V>();
            Gather(local, stage, offsets, 0, count);
        }
        PipeBarrier<PIPE_V>();
    }

    // The extracted keys (mark_) and payloads (sp_) of a tile's sorted rows in the outputs' GM order (outTable_);
    // returns how many output elements the tile has. Uses key_ and pay_.
    __aicore__ inline uint32_t ToOutputOrder(const Place& place, uint32_t count)
    {
        uint32_t all = rowsPerTile_ * rowPad_;
        if (count < all) {  // rows past the tile's: position 0, so that what is gathered by them stays in bounds
            Duplicate(sp_[count], 0u, all - count);
            Duplicate(mark_[count], 0.0f, all - count);
            PipeBarrier<PIPE_V>();
        }
        uint32_t outCount = place.width == 0 ? place.rows * k_ : k_ * rowsPerTile_;
        uint32_t padded = (outCount + 63) / 64 * 64;  // past outCount: tile positions of no output (not copied)
        LocalTensor<uint32_t> offsets = key_.ReinterpretCast<uint32_t>();
        ShiftLeft(offsets, outTable_, uint32_t(2), padded);
        PipeBarrier<PIPE_V>();
        if constexpr (BYTE_IN) {  // values are rebuilt from the keys
            Gather(pay_.ReinterpretCast<float>(), mark_, offsets, 0, padded);
            PipeBarrier<PIPE_V>();
            DataCopy(mark_, pay_.ReinterpretCast<float>(), padded);
            PipeBarrier<PIPE_V>();
        }
        Gather(pay_, sp_, offsets, 0, padded);
        PipeBarrier<PIPE_V>();
        DataCopy(sp_, pay_, padded);
        PipeBarrier<PIPE_V>();
        return outCount;
    }

    // ---- synchronisation outside the queues ---------------------------------------------------------------

    template <HardEvent E>
    __aicore__ inline void Sync()
    {
        event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(E));
        SetFlag<E>(id);
        WaitFlag<E>(id);
    }

    // ---- keys ---------------------------------------------------------------------------------------------

    __aicore__ inline void ToFloat(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t count)
    {
        DataCopy(dst, src, count);
    }

    template <typename T>
    __aicore__ inline void ToFloat(const LocalTensor<float>& dst, const LocalTensor<T>& src, uint32_t count)
    {
        if constexpr (sizeof(T) == 1) {  // bytes reach float through half (exact); mark_ is free here
            LocalTensor<half> wide = mark_.ReinterpretCast<half>();
            Cast(wide, src, RoundMode::CAST_NONE, count);
            PipeBarrier<PIPE_V>();
            Cast(dst, wide, RoundMode::CAST_NONE, count);
        } else if constexpr (RADIX_DIGITS == 0) {
            Cast(dst, src, RoundMode::CAST_NONE, count);
        }  // int32 / int64 keys are ranks (Ranks), never a Cast
    }

    __aicore__ inline void FromFloat(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t count)
    {
        DataCopy(dst, src, count);
    }

    // Values from float keys of the same values (exact: they came from T). Integers: `src` is first clamped to
    // the type's range (padding keys are -inf) and is scratch; bytes go through half, in key_.
    template <typename T>
    __aicore__ inline void FromFloat(const LocalTensor<T>& dst, const LocalTensor<float>& src, uint32_t count)
    {
        if constexpr (INTEGER) {
            Maxs(src, src, INT_LOW, count);
            PipeBarrier<PIPE_V>();
            Mins(src, src, INT_HIGH, count);
            PipeBarrier<PIPE_V>();
        }
        if constexpr (sizeof(T) == 1) {
            LocalTensor<half> narrow = key_.ReinterpretCast<half>();
            Cast(narrow, src, RoundMode::CAST_RINT, count);
            PipeBarrier<PIPE_V>();
            Cast(dst, narrow, RoundMode::CAST_RINT, count);
        } else {
            Cast(dst, src, RoundMode::CAST_RINT, count);
        }
    }

    // key_ and pay_ for `count` elements of `raw` (count a multiple of 64): see the file comment. `valid`
    // marks the real elements (the rest are padding: key -inf, no marks); payloads are positions + payBase.
    __aicore__ inline void BuildKeys(const LocalTensor<In>& raw, uint32_t count, const LocalTensor<uint8_t>& valid,
                                     int32_t payBase)
    {
        ToFloat(xf_, raw, count);
        PipeBarrier<PIPE_V>();
        KeysOfXf(count, valid, payBase);
    }

    // The same from values already in xf_ as float (int32 / int64: their ranks).
    __aicore__ inline void KeysOfXf(uint32_t count, const LocalTensor<uint8_t>& valid, int32_t payBase)
    {
        CompareScalar(mZero_, xf_, 0.0f, CMPMODE::EQ, count);
        Compare(mNum_, xf_, xf_, CMPMODE::EQ, count);
        if constexpr (DESCENDING) {
            Adds(mark_, xf_, 0.0f, count);
        } else {
            Muls(mark_, xf_, -1.0f, count);
            PipeBarrier<PIPE_V>();
            Adds(mark_, mark_, 0.0f, count);
        }
        PipeBarrier<PIPE_V>();
        Select(key_, mNum_, mark_, NAN_KEY, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
        Select(mark_, mZero_, xf_, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);  // -0.0: bits 0x80000000
        PipeBarrier<PIPE_V>();
        Select(key_, valid, key_, NEG_INF, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
        Select(xf_, mNum_, mark_, 2.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);    // NaN: 2.0f = 0x40000000
        PipeBarrier<PIPE_V>();
        Select(mark_, valid, xf_, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
        Adds(pay_.ReinterpretCast<int32_t>(), pos_, payBase, count);
        PipeBarrier<PIPE_V>();
        Or(pay_.ReinterpretCast<uint16_t>(), pay_.ReinterpretCast<uint16_t>(), mark_.ReinterpretCast<uint16_t>(),
           2 * count);
        PipeBarrier<PIPE_V>();
    }

    // ---- sorting within UB ----------------------------------------------------------------------------------

    // Sorts every run of `run` pairs of key_/pay_ in [base, base + count) descending; returns the buffer
    // (pairsA_ or pairsB_, at 2 * base) that holds the result. `run` is a power of two from 64.
    __aicore__ inline LocalTensor<float> SortRuns(uint32_t base, uint32_t count, uint32_t run)
    {
        LocalTensor<float> src = pairsA_[2 * base];
        LocalTensor<float> dst = pairsB_[2 * base];
        Sort32(src, key_[base], pay_[base], int32_t(count / 32));
        for (uint32_t len = 32; len < run;) {
            PipeBarrier<PIPE_V>();
            if (len * 4 <= run) {
                uint16_t lens[4] = {uint16_t(len), uint16_t(len), uint16_t(len), uint16_t(len)};
                MrgSort4Info info(lens, false, 0b1111, uint16_t(count / (4 * len)));
                MrgSort(dst, MrgSortSrcList<float>(src, src[2 * len], src[4 * len], src[6 * len]), info);
                len *= 4;
            } else {
                uint16_t lens[4] = {uint16_t(len), uint16_t(len), 0, 0};
                MrgSort4Info info(lens, false, 0b11, 1);
                for (uint32_t r = 0; r < count; r += run) {
                    MrgSort(dst[2 * r], MrgSortSrcList<float>(src[2 * r], src[2 * (r + len)], src[2 * r], src[2 * r]),
                            info);
                }
                len *= 2;
            }
            LocalTensor<float> done = dst;
            dst = src;
            src = done;
        }
        PipeBarrier<PIPE_V>();
        spare_ = dst;
        return src;
    }

    // The key and payload of pair i of a pairs buffer.
    __aicore__ inline float KeyAt(const LocalTensor<float>& pairs, uint32_t i) { return pairs.GetValue(2 * i); }
    __aicore__ inline uint32_t PayAt(const LocalTensor<float>& pairs, uint32_t i)
    {
        return pairs.ReinterpretCast<uint32_t>().GetValue(2 * i + 1);
    }

    // In a sorted row of `len` real pairs from `base`, NaN (keyed ±inf) and ±inf share one block of equal
    // keys, in index order: NaN entries go first (descending) or last (ascending) in it, each kind keeping
    // index order, as torch orders them. Returns the row's NaN count. Scalar; uses xf_ as scratch.
    __aicore__ inline uint32_t FixNan(const LocalTensor<float>& sorted, uint32_t base, uint32_t len)
    {
        uint32_t lo = 0, hi = 0;
        if constexpr (DESCENDING) {
            while (hi < len && KeyAt(sorted, base + hi) == POS_INF) ++hi;
        } else {
            lo = hi = len;
            while (lo > 0 && KeyAt(sorted, base + lo - 1) == NEG_INF) --lo;
        }
        uint32_t nans = 0;
        for (uint32_t i = lo; i < hi; ++i) nans += (PayAt(sorted, base + i) & NAN_BIT) != 0 ? 1 : 0;
        if (nans == 0 || nans == hi - lo) return nans;
        LocalTensor<uint32_t> scratch = xf_.ReinterpretCast<uint32_t>();
        LocalTensor<uint32_t> bits = sorted.ReinterpretCast<uint32_t>();
        for (uint32_t i = lo; i < hi; ++i) scratch.SetValue(i - lo, PayAt(sorted, base + i));
        uint32_t out = lo;
        for (uint32_t pass = 0; pass < 2; ++pass) {
            bool wantNan = (pass == 0) == DESCENDING;
            for (uint32_t i = 0; i < hi - lo; ++i) {
                uint32_t p = scratch.GetValue(i);
                if (((p & NAN_BIT) != 0) == wantNan) bits.SetValue(2 * (base + out++) + 1, p);
            }
        }
        return nans;
    }

    // Whether torch.topk(sorted=False) leaves its k in std::nth_element's arrangement, not sorted (k * 64 > n):
    // then every row is redone by the scalar unit.
    __aicore__ inline bool Arranged() const
    {
        return !SORTED && uint64_t(k_) * 64 > n_;
    }

    // Whether two of the first `count` keys of a sorted row are equal (conservative: NaN ties with ±inf).
    __aicore__ inline bool HasTie(const LocalTensor<float>& sorted, uint32_t base, uint32_t count)
    {
        float prev = KeyAt(sorted, base);
        for (uint32_t i = 1; i < count; ++i) {
            float key = KeyAt(sorted, base + i);
            if (key == prev) return true;
            prev = key;
        }
        return false;
    }

    // ---- short rows: several to a tile -------------------------------------------------------------------

    __aicore__ inline void ShortRows()
    {
        for (uint32_t done = 0; done < rowCount_; done += rowsPerTile_) {
            uint32_t rows = rowCount_ - done < rowsPerTile_ ? rowCount_ - done : rowsPerTile_;
            uint32_t row = firstRow_ + done;
            SortTile(Place{uint64_t(row) * n_, uint64_t(row) * k_, rows, 0});
        }
    }

    // One tile of rows: in, sorted, out.
    __aicore__ inline void SortTile(const Place& place)
    {
        uint32_t rows = place.rows;
        LoadRows(place);
        LocalTensor<In> raw = inQ_.DeQue<In>();
        uint32_t count = rows * rowPad_;
        if constexpr (RADIX_DIGITS > 0) {
            LocalTensor<float> ranked = RadixRows(raw, count);
            if constexpr (ORDER == ORDER_STABLE) {  // the radix order is the answer
                EmitShort(raw, ranked, count, place, false);
                inQ_.FreeTensor(raw);
                return;
            }
            Sync<HardEvent::V_S>();
            Ranks(raw, ranked, rows);
            Sync<HardEvent::S_V>();
            KeysOfXf(count, mValid_, 0);
        } else {
            BuildKeys(raw, count, mValid_, 0);
        }
        LocalTensor<float> sorted = SortRuns(0, count, rowPad_);
        if constexpr (ORDER == ORDER_UNSTABLE) MarkTies(sorted, count);
        Sync<HardEvent::V_S>();
        bool nans = false;
        for (uint32_t r = 0; r < rows; ++r) {
            uint32_t base = r * rowPad_;
            nans = FixNan(sorted, base, n_) > 0 || nans;
            if constexpr (ORDER == ORDER_TOPK) {
                if (keep_ > 1 && (Arranged() || HasTie(sorted, base, keep_))) {
                    Seq seq(key_, pay_, base);
                    seq.TopK(int32_t(k_), int32_t(n_));
                    LocalTensor<uint32_t> bits = sorted.ReinterpretCast<uint32_t>();
                    for (uint32_t i = 0; i < k_; ++i) {
                        Elem e = seq.At(int32_t(i));
                        sorted.SetValue(2 * (base + i), e.key);
                        bits.SetValue(2 * (base + i) + 1, e.pay);
                    }
                }
            }
            if constexpr (ORDER == ORDER_UNSTABLE) {
                if (n_ > 16 && RowHasTie(r)) {
                    Seq(key_, pay_, base).IntrosortLoop(0, int32_t(n_));
                    Sync<HardEvent::S_V>();
                    SortRuns(base, rowPad_, rowPad_);   // std::sort's last step, an insertion sort: stable
                    Sync<HardEvent::V_S>();
                    FixNan(sorted, base, n_);
                }
            }
        }
        Sync<HardEvent::S_V>();
        EmitShort(raw, sorted, count, place, nans);
        inQ_.FreeTensor(raw);
    }

    // ---- int32 / int64 rows: a stable LSD radix sort on 16-bit digits ------------------------------------------
    // A float holds every 16-bit digit exactly, so each pass is the vector unit's stable sort of the tile's rows
    // on one digit (low digits unsigned, the top one signed), keyed as values are (negated when ascending, padding
    // -inf), in the order the previous pass left; payloads are tile positions throughout. After the last pass the
    // rows are in the wanted order with equal values in index order: torch.sort(stable=True). A pass whose digit
    // is the same all over the tile changes nothing and is skipped. Returns the sorted pairs.
    __aicore__ inline LocalTensor<float> RadixRows(const LocalTensor<In>& raw, uint32_t count)
    {
        LocalTensor<uint32_t> words = raw.template ReinterpretCast<uint32_t>();
        LocalTensor<float> sorted;
        bool any = false;
        bool current = false;  // pay_ holds the current order (DigitRange overwrites the pairs buffers)
        for (uint32_t d = 0; d < RADIX_DIGITS; ++d) {
            bool top = d + 1 == RADIX_DIGITS;
            // This digit of every element, in the current order (payloads of the last pass; positions at first).
            if (!any && !current) {
                DataCopy(pay_.ReinterpretCast<int32_t>(), pos_, count);
            } else if (!current) {
                Extract(key_, pay_, sorted, int32_t(count / 32));
            }
            current = true;
            PipeBarrier<PIPE_V>();
            GatherDigit(words, pay_, d, count);
            if (!top || any) {  // skip a digit that is the same everywhere (the last one always sorts, if none did)
                float low = 0.0f, high = 0.0f;
                DigitRange(mValid_, count, low, high);
                if (low == high) continue;
            }
            DigitKeys(mValid_, count);
            sorted = SortRuns(0, count, rowPad_);
            any = true;
            current = false;
        }
        return sorted;
    }

    // xf_: digit d of the elements at tile positions `positions` of `words` (the input tile as 32-bit words), as
    // float: digits of 16 bits from the lowest, the top one (d = RADIX_DIGITS - 1) signed. Uses sp_ and mark_.
    __aicore__ inline void GatherDigit(const LocalTensor<uint32_t>& words, const LocalTensor<uint32_t>& positions,
                                       uint32_t d, uint32_t count)
    {
        LocalTensor<uint32_t> offsets = sp_;
        LocalTensor<uint32_t> digit = mark_.ReinterpretCast<uint32_t>();
        ShiftLeft(offsets, positions, IN_SHIFT, count);
        PipeBarrier<PIPE_V>();
        if (d / 2 > 0) {
            Adds(offsets.ReinterpretCast<int32_t>(), offsets.ReinterpretCast<int32_t>(), int32_t(4 * (d / 2)), count);
            PipeBarrier<PIPE_V>();
        }
        Gather(digit, words, offsets, 0, count);
        PipeBarrier<PIPE_V>();
        if (d % 2 == 0) {
            ShiftLeft(digit, digit, uint32_t(16), count);
            PipeBarrier<PIPE_V>();
            ShiftRight(digit, digit, uint32_t(16), count);
        } else if (d + 1 == RADIX_DIGITS) {
            ShiftRight(digit.ReinterpretCast<int32_t>(), digit.ReinterpretCast<int32_t>(), int32_t(16), count);
        } else {
            ShiftRight(digit, digit, uint32_t(16), count);
        }
        PipeBarrier<PIPE_V>();
        Cast(xf_, digit.ReinterpretCast<int32_t>(), RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_V>();
    }

    // The least and greatest of xf_ where `valid` is set. Uses key_, sp_ and mark_ (not the pairs buffers: they
    // hold the last pass's order).
    __aicore__ inline void DigitRange(const LocalTensor<uint8_t>& valid, uint32_t count, float& low, float& high)
    {
        LocalTensor<float> lows = sp_.ReinterpretCast<float>();
        Select(key_, valid, xf_, NEG_INF, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
        Select(lows, valid, xf_, POS_INF, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
        PipeBarrier<PIPE_V>();
        ReduceMax(mark_, key_, mark_[64], int32_t(count), false);
        ReduceMin(mark_[8], lows, mark_[64 + SPAN / 2], int32_t(count), false);
        Sync<HardEvent::V_S>();
        high = mark_.GetValue(0);
        low = mark_.GetValue(8);
        Sync<HardEvent::S_V>();
    }

    // key_ from the digits in xf_ (negated when ascending), -inf where `valid` is clear.
    __aicore__ inline void DigitKeys(const LocalTensor<uint8_t>& valid, uint32_t count)
    {
        if constexpr (DESCENDING) {
            Adds(key_, xf_, 0.0f, count);
        } else {
            Muls(key_, xf_, -1.0f, count);
            PipeBarrier<PIPE_V>();
            Adds(key_, key_, 0.0f, count);  // -0.0 to +0.0
        }
        PipeBarrier<PIPE_V>();
        Select(key_, valid, key_, NEG_INF, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
        PipeBarrier<PIPE_V>();
    }

    // xf_[p]: the rank of element p of each row, an exact float with the values' order (equal values equal ranks:
    // the position of the first of them in the radix order, counted from the row's end when descending), from the
    // radix order `sorted` and the values themselves. std::sort and friends on these ranks make the moves they make
    // on the values, so the float path that follows gives torch's order among equal values. Scalar.
    __aicore__ inline void Ranks(const LocalTensor<In>& raw, const LocalTensor<float>& sorted, uint32_t rows)
    {
        for (uint32_t r = 0; r < rows; ++r) {
            uint32_t base = r * rowPad_;
            uint32_t first = 0;
            In prev = In(0);
            for (uint32_t j = 0; j < n_; ++j) {
                uint32_t p = PayAt(sorted, base + j);
                In v = raw.GetValue(p);
                if (j == 0 || v != prev) first = j;
                prev = v;
                xf_.SetValue(p, float(DESCENDING ? n_ - 1 - first : first));
            }
        }
    }

    __aicore__ inline void LoadRows(const Place& place)
    {
        LocalTensor<In> local = inQ_.AllocTensor<In>();
        if (STRIDED && inner_ > 1) {
            LoadStrided(local, place);
            inQ_.EnQue(local);
            return;
        }
        uint32_t rows = place.rows;
        uint32_t used = (n_ * sizeof(In) + 31) / 32;
        DataCopyExtParams params{static_cast<uint16_t>(rows), static_cast<uint32_t>(n_ * sizeof(In)), 0,
                                 rowPad_ * uint32_t(sizeof(In)) / 32 - used, 0};
        DataCopyPadExtParams<In> pad{false, 0, 0, In(0)};
        DataCopyPad(local, inGm_[place.in], params, pad);
        inQ_.EnQue(local);
    }

    // mTie_: bit i set where sorted keys i and i + 1 are equal within a row's real columns.
    __aicore__ inline void MarkTies(const LocalTensor<float>& sorted, uint32_t count)
    {
        LocalTensor<uint32_t> trash = spare_.ReinterpretCast<uint32_t>();
        LocalTensor<uint32_t> next = trash[SPAN];
        Extract(mark_, trash, sorted, int32_t(count / 32));
        PipeBarrier<PIPE_V>();
        Adds(next.ReinterpretCast<int32_t>(), pos_, int32_t(1), count);
        PipeBarrier<PIPE_V>();
        ShiftLeft(next, next, uint32_t(2), count);
        PipeBarrier<PIPE_V>();
        Gather(xf_, mark_, next, 0, count);
        PipeBarrier<PIPE_V>();
        Compare(mTie_, mark_, xf_, CMPMODE::EQ, count);
        PipeBarrier<PIPE_V>();
        And(mTie_.ReinterpretCast<uint16_t>(), mTie_.ReinterpretCast<uint16_t>(), mPair_.ReinterpretCast<uint16_t>(),
            count / 16);
        PipeBarrier<PIPE_V>();
    }

    __aicore__ inline bool RowHasTie(uint32_t r)
    {
        LocalTensor<uint32_t> words = mTie_.ReinterpretCast<uint32_t>();
        for (uint32_t w = r * rowPad_ / 32; w < (r + 1) * rowPad_ / 32; ++w) {
            if (words.GetValue(w) != 0) return true;
        }
        return false;
    }

    // Values (gathered from the input tile) and indices of `rows` sorted rows, to GM. `nans`: whether any of
    // the rows holds NaN.
    __aicore__ inline void EmitShort(const LocalTensor<In>& raw, const LocalTensor<float>& sorted, uint32_t count,
                                     const Place& place, bool nans)
    {
        uint32_t rows = place.rows;
        bool strided = STRIDED && inner_ > 1;
        LocalTensor<uint32_t> pays = sp_;
        LocalTensor<uint32_t> clean = xf_.ReinterpretCast<uint32_t>();
        Extract(mark_, pays, sorted, int32_t(count / 32));
        PipeBarrier<PIPE_V>();
        uint32_t outCount = count;
        if constexpr (STRIDED) {
            if (strided) outCount = ToOutputOrder(place, count);
        }
        count = (outCount + 63) / 64 * 64;
        ShiftLeft(clean, pays, uint32_t(2), count);   // drop the marks
        PipeBarrier<PIPE_V>();
        ShiftRight(clean, clean, uint32_t(2), count);
        PipeBarrier<PIPE_V>();
        if constexpr (VALUES_OUT) {
            LocalTensor<In> vals = valQ_.AllocTensor<In>();
            if constexpr (BYTE_IN) {  // no Gather of bytes: rebuilt from the keys (exact)
                if constexpr (!DESCENDING) {
                    Muls(mark_, mark_, -1.0f, count);
                    PipeBarrier<PIPE_V>();
                }
                FromFloat(vals, mark_, count);
            } else if constexpr (sizeof(In) == 8) {
                GatherWide(vals, raw, clean, count);
            } else {
                LocalTensor<uint32_t> offsets = mark_.ReinterpretCast<uint32_t>();
                ShiftLeft(offsets, clean, IN_SHIFT, count);
                PipeBarrier<PIPE_V>();
                Gather(vals, raw, offsets, 0, count);
            }
            if (CANONICAL_NAN && nans) {
                Sync<HardEvent::V_S>();
                LocalTensor<uint16_t> valBits = vals.template ReinterpretCast<uint16_t>();
                for (uint32_t r = 0; r < (strided ? 1 : rows); ++r) {
                    uint32_t from = strided ? 0 : r * rowPad_;
                    for (uint32_t i = from; i < from + (strided ? outCount : k_); ++i) {
                        if ((pays.GetValue(i) & NAN_BIT) != 0) valBits.SetValue(i, uint16_t(0x7FC0));
                    }
                }
                Sync<HardEvent::S_MTE3>();
            }
            valQ_.EnQue(vals);
            StoreRows(valQ_, valGm_, place, outCount);
        }
        if constexpr (INDICES_OUT) {
            LocalTensor<int32_t> local = clean.ReinterpretCast<int32_t>();
            if (strided) {  // a tile position's column: its low bits (rowPad is a power of two)
                uint32_t shift = 32 - uint32_t(FloorLog2(int32_t(rowPad_)));
                ShiftLeft(clean, clean, shift, count);
                PipeBarrier<PIPE_V>();
                ShiftRight(clean, clean, shift, count);
            } else {
                Sub(local, local, rowBase_, count);
            }
            PipeBarrier<PIPE_V>();
            LocalTensor<int64_t> idx = idxQ_.AllocTensor<int64_t>();
            Cast(idx, local, RoundMode::CAST_NONE, count);
            idxQ_.EnQue(idx);
            StoreRows(idxQ_, idxGm_, place, outCount);
        }
    }

    // vals[i] = raw[positions[i]] for 8-byte values, as two 4-byte Gathers in one: word 2i + h of the result is
    // word 2 * positions[i] + h of raw. Uses pairsA_ and pairsB_ (free once the pairs are extracted).
    __aicore__ inline void GatherWide(const LocalTensor<In>& vals, const LocalTensor<In>& raw,
                                      const LocalTensor<uint32_t>& positions, uint32_t count)
    {
        LocalTensor<int32_t> lane = pairsB_.ReinterpretCast<int32_t>();
        LocalTensor<uint32_t> laneU = pairsB_.ReinterpretCast<uint32_t>();
        LocalTensor<uint32_t> offsets = pairsA_.ReinterpretCast<uint32_t>();
        CreateVecIndex(lane, int32_t(0), 2 * count);
        PipeBarrier<PIPE_V>();
        ShiftRight(laneU, laneU, uint32_t(1), 2 * count);
        PipeBarrier<PIPE_V>();
        ShiftLeft(laneU, laneU, uint32_t(2), 2 * count);   // byte offset of positions[i / 2]
        PipeBarrier<PIPE_V>();
        Gather(offsets, positions, laneU, 0, 2 * count);
        PipeBarrier<PIPE_V>();
        ShiftLeft(offsets, offsets, uint32_t(3), 2 * count);
        CreateVecIndex(lane, int32_t(0), 2 * count);
        PipeBarrier<PIPE_V>();
        ShiftLeft(laneU, laneU, uint32_t(31), 2 * count);
        PipeBarrier<PIPE_V>();
        ShiftRight(laneU, laneU, uint32_t(29), 2 * count);  // 4 * (i & 1)
        PipeBarrier<PIPE_V>();
        Add(offsets.ReinterpretCast<int32_t>(), offsets.ReinterpretCast<int32_t>(), lane, 2 * count);
        PipeBarrier<PIPE_V>();
        Gather(vals.template ReinterpretCast<uint32_t>(), raw.template ReinterpretCast<uint32_t>(), offsets, 0,
               2 * count);
    }

    // A tile's output rows to GM; strided (inner > 1): `outCount` elements already in GM order, whole slabs in
    // one copy or k rows of `width` columns (rowsPerTile apart in UB).
    template <typename T>
    __aicore__ inline void StoreRows(TQue<QuePosition::VECOUT, 1>& queue, GlobalTensor<T>& gm, const Place& place,
                                     uint32_t outCount)
    {
        LocalTensor<T> local = queue.DeQue<T>();
        if (STRIDED && inner_ > 1 && place.width == 0) {
            DataCopyExtParams params{1, static_cast<uint32_t>(outCount * sizeof(T)), 0, 0, 0};
            DataCopyPad(gm[place.out], local, params);
        } else if (STRIDED && inner_ > 1) {
            uint32_t used = (place.width * sizeof(T) + 31) / 32;
            DataCopyExtParams params{static_cast<uint16_t>(k_), static_cast<uint32_t>(place.width * sizeof(T)),
                                     rowsPerTile_ * uint32_t(sizeof(T)) / 32 - used,
                                     static_cast<uint32_t>((inner_ - place.width) * sizeof(T)), 0};
            DataCopyPad(gm[place.out], local, params);
        } else {
            uint32_t used = (k_ * sizeof(T) + 31) / 32;
            DataCopyExtParams params{static_cast<uint16_t>(place.rows), static_cast<uint32_t>(k_ * sizeof(T)),
                                     rowPad_ * uint32_t(sizeof(T)) / 32 - used, 0, 0};
            DataCopyPad(gm[place.out], local, params);
        }
        queue.FreeTensor(local);
    }

    // ---- long rows ------------------------------------------------------------------------------------------

    // Chunk c of row `row` keyed and sorted in UB; returns the sorted pairs, `len` its real elements.
    __aicore__ inline LocalTensor<float> SortChunk(uint32_t row, uint32_t c, uint32_t& len)
    {
        len = n_ - c * CHUNK < CHUNK ? n_ - c * CHUNK : CHUNK;
        LocalTensor<In> local = inQ_.AllocTensor<In>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(In)), 0, 0, 0};
        DataCopyPadExtParams<In> pad{false, 0, 0, In(0)};
        DataCopyPad(local, inGm_[uint64_t(row) * n_ + uint64_t(c) * CHUNK], params, pad);
        inQ_.EnQue(local);
        LocalTensor<In> raw = inQ_.DeQue<In>();
        LocalTensor<uint8_t> valid = mValid_;
        if (len < CHUNK) {
            CompareScalar(mTie_, colF_, float(len), CMPMODE::LT, CHUNK);
            valid = mTie_;
        }
        BuildKeys(raw, CHUNK, valid, int32_t(c * CHUNK));
        inQ_.FreeTensor(raw);
        return SortRuns(0, CHUNK, CHUNK);
    }

    // Values rebuilt from keys (undoing the negation and the -0.0 and NaN keying) and clean indices for the
    // `count` pairs of `pairs`, written to output positions [at, at + count) of row `row`. `nans`: whether the
    // pairs may hold NaN entries (their values are the input's own bits, read back).
    __aicore__ inline void EmitLong(const LocalTensor<float>& pairs, uint32_t count, uint32_t row, uint32_t at,
                                    bool nans)
    {
        uint32_t padded = (count + 63) / 64 * 64;
        LocalTensor<uint32_t> pays = sp_;
        Extract(mark_, pays, pairs, int32_t(padded / 32));
        PipeBarrier<PIPE_V>();
        if constexpr (VALUES_OUT) {
            LocalTensor<uint32_t> sign = xf_.ReinterpretCast<uint32_t>();
            if constexpr (!DESCENDING) {
                Muls(mark_, mark_, -1.0f, padded);
                PipeBarrier<PIPE_V>();
            }
            Adds(mark_, mark_, 0.0f, padded);
            ShiftRight(sign, pays, uint32_t(31), padded);
            PipeBarrier<PIPE_V>();
            ShiftLeft(sign, sign, uint32_t(31), padded);
            PipeBarrier<PIPE_V>();
            Or(mark_.ReinterpretCast<uint16_t>(), mark_.ReinterpretCast<uint16_t>(), sign.ReinterpretCast<uint16_t>(),
               2 * padded);
            PipeBarrier<PIPE_V>();
            LocalTensor<In> vals = valQ_.AllocTensor<In>();
            FromFloat(vals, mark_, padded);
            Sync<HardEvent::V_S>();
            for (uint32_t i = 0; nans && i < count; ++i) {  // NaN: the input's own bits
                uint32_t p = pays.GetValue(i);
                if ((p & NAN_BIT) == 0) continue;
                if (CANONICAL_NAN) {
                    vals.template ReinterpretCast<uint16_t>().SetValue(i, uint16_t(0x7FC0));
                } else {
                    vals.SetValue(i, inGm_.GetValue(uint64_t(row) * n_ + (p & ~(NAN_BIT | NEG_ZERO_BIT))));
                }
            }
            Sync<HardEvent::S_MTE3>();
            valQ_.EnQue(vals);
            LocalTensor<In> out = valQ_.DeQue<In>();
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(In)), 0, 0, 0};
            DataCopyPad(valGm_[uint64_t(row) * k_ + at], out, params);
            valQ_.FreeTensor(out);
        }
        if constexpr (INDICES_OUT) {
            ShiftLeft(pays, pays, uint32_t(2), padded);
            PipeBarrier<PIPE_V>();
            ShiftRight(pays, pays, uint32_t(2), padded);
            PipeBarrier<PIPE_V>();
            StoreIndices(pays, padded, count, row, at);
        }
        PipeBarrier<PIPE_ALL>();
    }

    // Top k of a long row: each chunk's best `keep` merged into best_ (the lower indices first on ties), NaN
    // entries listed apart; the scalar unit redoes the row in torch's order when the result has equal keys.
    __aicore__ inline void LongTopK(uint32_t row)
    {
        uint32_t nans = 0, kept = 0;
        CollectTopK(row, 0, chunks_, nans, kept);
        FinishTopK(row, nans, kept);
    }

    // Chunks [c0, c1) of a row: their NaN payloads appended to nanList_, their best entries merged into best_
    // (`nans` and `kept` entries, each at most keep).
    __aicore__ inline void CollectTopK(uint32_t row, uint32_t c0, uint32_t c1, uint32_t& nans, uint32_t& kept)
    {
        for (uint32_t c = c0; c < c1; ++c) {
            uint32_t len = 0;
            LocalTensor<float> sorted = SortChunk(row, c, len);
            Sync<HardEvent::V_S>();
            uint32_t chunkNans = FixNan(sorted, 0, len);
            uint32_t start = DESCENDING ? chunkNans : 0;
            uint32_t nanStart = DESCENDING ? 0 : len - chunkNans;
            for (uint32_t i = 0; i < chunkNans && nans < keep_; ++i) nanList_.SetValue(nans++, PayAt(sorted, nanStart + i));
            uint32_t take = len - chunkNans < keep_ ? len - chunkNans : keep_;
            Sync<HardEvent::S_V>();
            MergeIntoBest(sorted, start, take, spare_, kept);
        }
    }

    // The `take` sorted pairs of `src` from pair `start` merged after best_'s `kept` (best_ first: it holds the
    // lower indices, and MrgSort's first queue wins ties), through `merged`; best_ keeps the first `keep`.
    __aicore__ inline void MergeIntoBest(const LocalTensor<float>& src, uint32_t start, uint32_t take,
                                         const LocalTensor<float>& merged, uint32_t& kept)
    {
        if (take == 0) return;
        if (kept == 0 && start % 4 == 0) {
            DataCopy(merged, src[2 * start], (2 * take + 63) / 64 * 64);
        } else if (kept == 0) {
            Sync<HardEvent::V_S>();
            for (uint32_t i = 0; i < 2 * take; ++i) merged.SetValue(i, src.GetValue(2 * start + i));
            Sync<HardEvent::S_V>();
        } else {
            uint16_t lens[4] = {uint16_t(kept), uint16_t(take), 0, 0};
            MrgSort4Info info(lens, false, 0b11, 1);
            MrgSort(merged, MrgSortSrcList<float>(best_, src[2 * start], best_, best_), info);
        }
        PipeBarrier<PIPE_V>();
        kept = kept + take < keep_ ? kept + take : keep_;
        DataCopy(best_, merged, (2 * kept + 63) / 64 * 64);
        PipeBarrier<PIPE_V>();
    }

    // best_ becomes the first `keep` of [NaN entries, best] (descending) or [best, NaN entries] (ascending),
    // redone in torch's order when it has equal keys, and goes out.
    __aicore__ inline void FinishTopK(uint32_t row, uint32_t nans, uint32_t kept)
    {
        Sync<HardEvent::V_S>();
        LocalTensor<uint32_t> bits = best_.ReinterpretCast<uint32_t>();
        uint32_t nanTake = nans < keep_ ? nans : keep_;
        uint32_t nanAt = 0;
        if constexpr (DESCENDING) {
            uint32_t bestTake = kept < keep_ - nanTake ? kept : keep_ - nanTake;
            for (uint32_t i = bestTake; i > 0; --i) {
                best_.SetValue(2 * (nanTake + i - 1), best_.GetValue(2 * (i - 1)));
                bits.SetValue(2 * (nanTake + i - 1) + 1, bits.GetValue(2 * (i - 1) + 1));
            }
        } else {
            nanAt = kept < keep_ ? kept : keep_;
            nanTake = keep_ - nanAt < nanTake ? keep_ - nanAt : nanTake;
        }
        for (uint32_t i = 0; i < nanTake; ++i) {
            best_.SetValue(2 * (nanAt + i), NAN_KEY);
            bits.SetValue(2 * (nanAt + i) + 1, nanList_.GetValue(i));
        }
        if (keep_ > 1 && (Arranged() || HasTie(best_, 0, keep_))) LongTopKScalar(row);
        Sync<HardEvent::S_V>();
        EmitLong(best_, k_, row, 0, true);
    }

    // A long row's top k over `split_` blocks: each collects its share of the chunks and publishes its best and
    // NaN entries to its workspace slot; after SyncAll the row's first block merges the slots in chunk order
    // (lower indices first, so ties still go to the lower index) and finishes the row.
    __aicore__ inline void SplitTopK()
    {
        uint32_t part = GetBlockIdx() % split_;
        uint32_t row = GetBlockIdx() / split_;
        uint32_t c0 = part * chunksPerPart_;
        uint32_t c1 = c0 + chunksPerPart_ < chunks_ ? c0 + chunksPerPart_ : chunks_;
        uint32_t nans = 0, kept = 0;
        CollectTopK(row, c0, c1, nans, kept);
        LocalTensor<uint32_t> counts = headBuf_.Get<uint32_t>();  // its own buffer: scalar reads beside vector work
        Sync<HardEvent::V_S>();
        counts.SetValue(0, kept);
        counts.SetValue(1, nans);
        Sync<HardEvent::S_MTE3>();
        Sync<HardEvent::V_MTE3>();
        uint64_t slot = uint64_t(GetBlockIdx()) * SLOT_BYTES / 4;  // in 4-byte words
        DataCopy(slotGm_[slot], counts, 8);
        if (kept > 0) {
            DataCopyExtParams params{1, kept * 8, 0, 0, 0};
            DataCopyPad(slotPairsGm_[slot + 8], best_, params);
        }
        if (nans > 0) {
            DataCopyExtParams params{1, nans * 4, 0, 0, 0};
            DataCopyPad(slotGm_[slot + 8 + 2 * LONG_KEEP], nanList_, params);
        }
        PipeBarrier<PIPE_ALL>();
        SyncAll();
        if (part != 0) return;
        // The other parts' counts in one strided copy, then their best entries, as many slots at a time as fit.
        uint32_t others = split_ - 1;
        uint64_t first = uint64_t(GetBlockIdx() + 1) * SLOT_BYTES / 4;
        DataCopyExtParams heads{uint16_t(others), 32, SLOT_BYTES - 32, 0, 0};
        DataCopyPadExtParams<uint32_t> noPad{false, 0, 0, 0u};
        DataCopyPad(counts, slotGm_[first], heads, noPad);
        Sync<HardEvent::MTE2_S>();
        uint32_t stride = (keep_ * 8 + 31) / 32 * 4;  // pairs between two slots' entries in UB
        uint32_t group = 2 * SPAN / (2 * stride);
        for (uint32_t g = 0; g < others; g += group) {
            uint32_t inGroup = others - g < group ? others - g : group;
            DataCopyExtParams params{uint16_t(inGroup), keep_ * 8, SLOT_BYTES - keep_ * 8, 0, 0};
            DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
            DataCopyPad(pairsA_, slotPairsGm_[first + uint64_t(g) * SLOT_BYTES / 4 + 8], params, pad);
            Sync<HardEvent::MTE2_V>();
            Sync<HardEvent::MTE2_S>();
            for (uint32_t i = 0; i < inGroup; ++i) {
                uint32_t theirKept = counts.GetValue(8 * (g + i)), theirNans = counts.GetValue(8 * (g + i) + 1);
                if (theirNans > 0 && nans < keep_) {  // rare: their NaN payloads, one copy
                    LocalTensor<uint32_t> list = mark_.ReinterpretCast<uint32_t>();
                    Sync<HardEvent::V_MTE2>();
                    DataCopyExtParams nanParams{1, theirNans * 4, 0, 0, 0};
                    DataCopyPad(list, slotGm_[first + uint64_t(g + i) * SLOT_BYTES / 4 + 8 + 2 * LONG_KEEP], nanParams,
                                noPad);
                    Sync<HardEvent::MTE2_S>();
                    for (uint32_t j = 0; j < theirNans && nans < keep_; ++j) nanList_.SetValue(nans++, list.GetValue(j));
                    Sync<HardEvent::S_V>();
                    Sync<HardEvent::S_MTE2>();
                }
                MergeIntoBest(pairsA_, i * stride, theirKept, pairsB_, kept);
            }
            Sync<HardEvent::V_MTE2>();
        }
        FinishTopK(row, nans, kept);
    }

    // The row in torch's order by the scalar unit, into best_: a streamed heap in pairsB_ (std::partial_sort,
    // k * 64 <= n) or, for rows of at most 2 * CHUNK, the whole row in pairsA_ (keys) and pairsB_ (payloads):
    // std::nth_element, then std::sort of the first k - 1.
    __aicore__ inline void LongTopKScalar(uint32_t row)
    {
        bool heap = uint64_t(k_) * 64 <= n_;
        LocalTensor<float> keys = heap ? pairsB_ : pairsA_;
        LocalTensor<uint32_t> pays = heap ? pairsB_[SPAN].ReinterpretCast<uint32_t>() : pairsB_.ReinterpretCast<uint32_t>();
        Seq all(keys, pays, 0);
        Seq chunk(key_, pay_, 0);
        for (uint32_t c = 0; c < chunks_; ++c) {
            uint32_t len = n_ - c * CHUNK < CHUNK ? n_ - c * CHUNK : CHUNK;
            LocalTensor<In> local = inQ_.AllocTensor<In>();
            DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(In)), 0, 0, 0};
            DataCopyPadExtParams<In> pad{false, 0, 0, In(0)};
            DataCopyPad(local, inGm_[uint64_t(row) * n_ + uint64_t(c) * CHUNK], params, pad);
            inQ_.EnQue(local);
            LocalTensor<In> raw = inQ_.DeQue<In>();
            Sync<HardEvent::S_V>();
            BuildKeys(raw, CHUNK, mValid_, int32_t(c * CHUNK));
            inQ_.FreeTensor(raw);
            Sync<HardEvent::V_S>();
            uint32_t from = 0;
            if (c == 0 && heap) {
                for (uint32_t i = 0; i < k_; ++i) all.Put(int32_t(i), chunk.At(int32_t(i)));
                all.MakeHeap(0, int32_t(k_));
                from = k_;
            }
            if (!heap) {
                for (uint32_t i = from; i < len; ++i) all.Put(int32_t(c * CHUNK + i), chunk.At(int32_t(i)));
                continue;
            }
            // std::__heap_select's scan: an element replaces the heap's top when it goes before it. The top only
            // gets better, so an element whose key is below the chunk's first top (which every element that
            // goes before a top has not) is passed over by a vector compare, the rest checked one by one.
            Elem top = all.At(0);
            Sync<HardEvent::S_V>();
            CompareScalar(mTie_, key_, top.key, CMPMODE::GE, CHUNK);
            Sync<HardEvent::V_S>();
            LocalTensor<uint32_t> words = mTie_.ReinterpretCast<uint32_t>();
            for (uint32_t w = from / 32; w * 32 < len; ++w) {
                uint32_t bits = words.GetValue(w);
                while (bits != 0) {
                    uint32_t i = w * 32 + uint32_t(__builtin_ctz(bits));
                    bits &= bits - 1;
                    if (i < from || i >= len) continue;
                    Elem e = chunk.At(int32_t(i));
                    if (!Before(e, top)) continue;
                    all.AdjustHeap(0, 0, int32_t(k_), e);
                    top = all.At(0);
                }
            }
        }
        if (heap) {
            all.SortHeap(0, int32_t(k_));
        } else {
            all.NthElement(int32_t(k_) - 1, int32_t(n_));
            if constexpr (SORTED) all.StdSort(0, int32_t(k_) - 1);
        }
        LocalTensor<uint32_t> bits = best_.ReinterpretCast<uint32_t>();
        for (uint32_t i = 0; i < k_; ++i) {
            Elem e = all.At(int32_t(i));
            best_.SetValue(2 * i, e.key);
            bits.SetValue(2 * i + 1, e.pay);
        }
    }

    // ---- long-row sorts through the workspace -------------------------------------------------------------
    // Workspace of a block: a table of 4 uint32 per chunk (a run's start and length, and the chunk's NaN
    // entries' start and count in S), then areas S, A, B of n pairs each. Chunks are sorted into S; merge passes
    // go S -> A -> B -> A ...; NaN entries stay in S until the end.

    __aicore__ inline uint64_t Area(uint32_t which) { return uint64_t(which) * n_ * 2; }  // in floats

    __aicore__ inline void LongSort(uint32_t row)
    {
        uint32_t nanTotal = 0;
        for (uint32_t c = 0; c < chunks_; ++c) {
            uint32_t len = 0;
            LocalTensor<float> sorted = SortChunk(row, c, len);
            Sync<HardEvent::V_S>();
            uint32_t nans = FixNan(sorted, 0, len);
            Sync<HardEvent::S_MTE3>();
            Sync<HardEvent::V_MTE3>();
            DataCopyExtParams params{1, static_cast<uint32_t>(len * 8), 0, 0, 0};
            DataCopyPad(wsGm_[Area(0) + 2 * uint64_t(c) * CHUNK], sorted, params);
            uint32_t start = c * CHUNK + (DESCENDING ? nans : 0);
            tableGm_.SetValue(4 * c, start);
            tableGm_.SetValue(4 * c + 1, len - nans);
            tableGm_.SetValue(4 * c + 2, c * CHUNK + (DESCENDING ? 0 : len - nans));
            tableGm_.SetValue(4 * c + 3, nans);
            nanTotal += nans;
            PipeBarrier<PIPE_ALL>();
        }
        uint32_t src = MergeAll();
        uint32_t finalStart = tableGm_.GetValue(0), finalLen = tableGm_.GetValue(1);
        uint32_t at = DESCENDING ? nanTotal : 0;
        bool tie = nanTotal > 1;  // NaN equals NaN in torch's comparator
        float prev = 0.0f;
        for (uint32_t done = 0; done < finalLen; done += CHUNK) {
            uint32_t count = finalLen - done < CHUNK ? finalLen - done : CHUNK;
            LoadPairs(pairsA_, Area(src) + 2 * uint64_t(finalStart + done), count);
            if constexpr (ORDER == ORDER_UNSTABLE) {
                Sync<HardEvent::MTE2_S>();
                for (uint32_t i = 0; i < count && !tie; ++i) {
                    float key = KeyAt(pairsA_, i);
                    tie = done + i > 0 && key == prev;
                    prev = key;
                }
            }
            EmitLong(pairsA_, count, row, at + done, false);
        }
        at = DESCENDING ? 0 : finalLen;
        for (uint32_t c = 0; c < chunks_; ++c) {
            uint32_t nanStart = tableGm_.GetValue(4 * c + 2), nans = tableGm_.GetValue(4 * c + 3);
            if (nans == 0) continue;
            LoadPairs(pairsA_, Area(0) + 2 * uint64_t(nanStart), nans);
            EmitLong(pairsA_, nans, row, at, true);
            at += nans;
        }
        if (ORDER == ORDER_UNSTABLE && tie && !stableTies_) LongStdSort(row, src);
    }

    // A long int32 / int64 row, stable: the radix passes of RadixRows, each a long-row sort through the workspace
    // (chunks sorted into S, merged four runs at a time). Digits the same all along the row are found first (one
    // read of the row) and skipped. The first pass reads the row in order; later ones read the last pass's order
    // and each element's digit from GM by the scalar unit. Values are read back from the input by index.
    __aicore__ inline void LongRadix(uint32_t row)
    {
        uint32_t varying = VaryingDigits(row);
        uint32_t src = 0;
        bool first = true;
        for (uint32_t d = 0; d < RADIX_DIGITS; ++d) {
            if ((varying & (1u << d)) == 0) continue;
            for (uint32_t c = 0; c < chunks_; ++c) {
                uint32_t len = n_ - c * CHUNK < CHUNK ? n_ - c * CHUNK : CHUNK;
                LocalTensor<uint8_t> valid = ChunkValid(len);
                if (first) {
                    LocalTensor<In> raw = LoadChunk(row, c, len);
                    GatherDigit(raw.template ReinterpretCast<uint32_t>(), pos_.ReinterpretCast<uint32_t>(), d, CHUNK);
                    inQ_.FreeTensor(raw);
                    Adds(pay_.ReinterpretCast<int32_t>(), pos_, int32_t(c * CHUNK), CHUNK);
                } else {
                    LoadPairs(pairsA_, Area(src) + 2 * uint64_t(c) * CHUNK, len);
                    Extract(mark_, pay_, pairsA_, int32_t(CHUNK / 32));
                    Sync<HardEvent::V_S>();
                    uint64_t at = uint64_t(row) * n_;
                    for (uint32_t i = 0; i < len; ++i) {
                        uint64_t u = uint64_t(int64_t(inGm_.GetValue(at + pay_.GetValue(i))));
                        uint32_t bits16 = uint32_t(u >> (16 * d)) & 0xFFFFu;
                        int32_t digit = d + 1 == RADIX_DIGITS ? int32_t(int16_t(uint16_t(bits16))) : int32_t(bits16);
                        xf_.SetValue(i, float(digit));
                    }
                    Sync<HardEvent::S_V>();
                }
                PipeBarrier<PIPE_V>();
                DigitKeys(valid, CHUNK);
                LocalTensor<float> sorted = SortRuns(0, CHUNK, CHUNK);
                StorePairs(Area(0) + 2 * uint64_t(c) * CHUNK, sorted, len);
                tableGm_.SetValue(4 * c, c * CHUNK);
                tableGm_.SetValue(4 * c + 1, len);
                PipeBarrier<PIPE_ALL>();
            }
            src = MergeAll();
            first = false;
        }
        bool tie = false;
        In prev = In(0);
        for (uint32_t done = 0; done < n_; done += CHUNK) {
            uint32_t count = n_ - done < CHUNK ? n_ - done : CHUNK;
            LoadPairs(pairsA_, Area(src) + 2 * uint64_t(done), count);
            if constexpr (ORDER == ORDER_UNSTABLE) {
                Sync<HardEvent::MTE2_S>();
                for (uint32_t i = 0; i < count && !tie; ++i) {
                    In v = inGm_.GetValue(uint64_t(row) * n_ + PayAt(pairsA_, i));
                    tie = done + i > 0 && v == prev;
                    prev = v;
                }
            }
            EmitGathered(pairsA_, count, row, done);
        }
        if (ORDER == ORDER_UNSTABLE && tie && !stableTies_) LongStdSort(row, src);
    }

    // ---- long-row unstable sorts: std::sort's order where the row has equal values ----------------------------
    // Without two equal values (NaN equal to NaN) in a row, std::sort's order is the stable one, which went out
    // already. With them, the row is keyed again into a workspace area other than `src` (the stable order): keys
    // (int32 / int64: ranks from the stable order, as Ranks makes them), then payloads, in index order; the scalar
    // unit makes std::sort's moves on them there (the introsort loop, then the final insertion sort), and the row
    // goes out again. The data cache is cleaned around it: the area is otherwise written by DMA.
    __aicore__ inline void LongStdSort(uint32_t row, uint32_t src)
    {
        uint32_t area = src == 1 ? 2 : 1;
        GlobalTensor<float> keys = wsGm_[Area(area)];
        GlobalTensor<uint32_t> pays = wsU32Gm_[Area(area) + n_];
        PipeBarrier<PIPE_ALL>();
        DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE, DcciDst::CACHELINE_OUT>(keys);
        if constexpr (RADIX_DIGITS > 0) {
            uint32_t first = 0;
            In prev = In(0);
            for (uint32_t done = 0; done < n_; done += CHUNK) {
                uint32_t count = n_ - done < CHUNK ? n_ - done : CHUNK;
                LoadPairs(pairsA_, Area(src) + 2 * uint64_t(done), count);
                Sync<HardEvent::MTE2_S>();
                for (uint32_t i = 0; i < count; ++i) {
                    uint32_t p = PayAt(pairsA_, i);
                    In v = inGm_.GetValue(uint64_t(row) * n_ + p);
                    if (done + i == 0 || v != prev) first = done + i;
                    prev = v;
                    keys.SetValue(p, DESCENDING ? float(n_ - 1 - first) : (first == 0 ? 0.0f : -float(first)));
                    pays.SetValue(p, p);
                }
            }
        } else {
            for (uint32_t c = 0; c < chunks_; ++c) {
                uint32_t len = n_ - c * CHUNK < CHUNK ? n_ - c * CHUNK : CHUNK;
                LocalTensor<uint8_t> valid = ChunkValid(len);
                LocalTensor<In> raw = LoadChunk(row, c, len);
                BuildKeys(raw, CHUNK, valid, int32_t(c * CHUNK));
                inQ_.FreeTensor(raw);
                Sync<HardEvent::V_S>();
                for (uint32_t i = 0; i < len; ++i) {
                    keys.SetValue(c * CHUNK + i, key_.GetValue(i));
                    pays.SetValue(c * CHUNK + i, pay_.GetValue(i));
                }
                Sync<HardEvent::S_V>();
            }
        }
        SeqOf<GlobalTensor<float>, GlobalTensor<uint32_t>> seq(keys, pays, 0);
        seq.IntrosortLoop(0, int32_t(n_));
        seq.FinalInsertionSort(0, int32_t(n_));
        LocalTensor<uint32_t> bits = pairsA_.ReinterpretCast<uint32_t>();
        for (uint32_t done = 0; done < n_; done += CHUNK) {
            uint32_t count = n_ - done < CHUNK ? n_ - done : CHUNK;
            for (uint32_t i = 0; i < count; ++i) {
                pairsA_.SetValue(2 * i, keys.GetValue(done + i));
                bits.SetValue(2 * i + 1, pays.GetValue(done + i));
            }
            Sync<HardEvent::S_V>();
            if constexpr (RADIX_DIGITS > 0) {
                EmitGathered(pairsA_, count, row, done);
            } else {
                EmitLong(pairsA_, count, row, done, true);
            }
        }
        DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE, DcciDst::CACHELINE_OUT>(keys);
    }

    // Bit d set where digit d of a long row's elements is not the same all along it (the top digit when none is).
    __aicore__ inline uint32_t VaryingDigits(uint32_t row)
    {
        float low[RADIX_DIGITS], high[RADIX_DIGITS];
        for (uint32_t c = 0; c < chunks_; ++c) {
            uint32_t len = n_ - c * CHUNK < CHUNK ? n_ - c * CHUNK : CHUNK;
            LocalTensor<uint8_t> valid = ChunkValid(len);
            LocalTensor<In> raw = LoadChunk(row, c, len);
            for (uint32_t d = 0; d < RADIX_DIGITS; ++d) {
                GatherDigit(raw.template ReinterpretCast<uint32_t>(), pos_.ReinterpretCast<uint32_t>(), d, CHUNK);
                float lo = 0.0f, hi = 0.0f;
                DigitRange(valid, CHUNK, lo, hi);
                low[d] = c == 0 || lo < low[d] ? lo : low[d];
                high[d] = c == 0 || hi > high[d] ? hi : high[d];
            }
            inQ_.FreeTensor(raw);
        }
        uint32_t varying = 0;
        for (uint32_t d = 0; d < RADIX_DIGITS; ++d) varying |= low[d] != high[d] ? 1u << d : 0u;
        return varying == 0 ? 1u << (RADIX_DIGITS - 1) : varying;
    }

    // Chunk c of row `row` (len elements) in an input tile.
    __aicore__ inline LocalTensor<In> LoadChunk(uint32_t row, uint32_t c, uint32_t len)
    {
        LocalTensor<In> local = inQ_.AllocTensor<In>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(In)), 0, 0, 0};
        DataCopyPadExtParams<In> pad{false, 0, 0, In(0)};
        DataCopyPad(local, inGm_[uint64_t(row) * n_ + uint64_t(c) * CHUNK], params, pad);
        inQ_.EnQue(local);
        return inQ_.DeQue<In>();
    }

    // The mask of a chunk's first len columns.
    __aicore__ inline LocalTensor<uint8_t> ChunkValid(uint32_t len)
    {
        if (len == CHUNK) return mValid_;
        CompareScalar(mTie_, colF_, float(len), CMPMODE::LT, CHUNK);
        PipeBarrier<PIPE_V>();
        return mTie_;
    }

    // Merges the table's chunks_ sorted runs in area S to one (four at a time); returns the area that holds it.
    __aicore__ inline uint32_t MergeAll()
    {
        uint32_t runs = chunks_;
        uint32_t src = 0;
        while (runs > 1) {
            uint32_t dst = src == 1 ? 2 : 1;
            uint32_t at = 0;
            for (uint32_t i = 0; i < runs; i += 4) {
                uint32_t merged = MergeRuns(Area(src), i, runs - i < 4 ? runs - i : 4, Area(dst), at);
                tableGm_.SetValue(4 * (i / 4), at);
                tableGm_.SetValue(4 * (i / 4) + 1, merged);
                at += merged;
            }
            runs = (runs + 3) / 4;
            src = dst;
        }
        return src;
    }

    // Indices and values (the input's, read back by index) of `count` sorted pairs, to positions [at, at + count)
    // of row `row`.
    __aicore__ inline void EmitGathered(const LocalTensor<float>& pairs, uint32_t count, uint32_t row, uint32_t at)
    {
        uint32_t padded = (count + 63) / 64 * 64;
        LocalTensor<uint32_t> pays = sp_;
        Extract(mark_, pays, pairs, int32_t(padded / 32));
        PipeBarrier<PIPE_V>();
        if constexpr (VALUES_OUT) {
            LocalTensor<In> vals = valQ_.AllocTensor<In>();
            Sync<HardEvent::V_S>();
            for (uint32_t i = 0; i < count; ++i) vals.SetValue(i, inGm_.GetValue(uint64_t(row) * n_ + pays.GetValue(i)));
            Sync<HardEvent::S_MTE3>();
            valQ_.EnQue(vals);
            LocalTensor<In> out = valQ_.DeQue<In>();
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(In)), 0, 0, 0};
            DataCopyPad(valGm_[uint64_t(row) * k_ + at], out, params);
            valQ_.FreeTensor(out);
        }
        if constexpr (INDICES_OUT) {
            StoreIndices(pays, padded, count, row, at);
        }
        PipeBarrier<PIPE_ALL>();
    }

    // The int32 indices in pays as int64, copied out to the row's results from position at.
    __aicore__ inline void StoreIndices(const LocalTensor<uint32_t>& pays, uint32_t padded, uint32_t count,
                                        uint32_t row, uint32_t at)
    {
        LocalTensor<int64_t> idx = idxQ_.AllocTensor<int64_t>();
        Cast(idx, pays.ReinterpretCast<int32_t>(), RoundMode::CAST_NONE, padded);
        idxQ_.EnQue(idx);
        LocalTensor<int64_t> out = idxQ_.DeQue<int64_t>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(int64_t)), 0, 0, 0};
        DataCopyPad(idxGm_[uint64_t(row) * k_ + at], out, params);
        idxQ_.FreeTensor(out);
    }

    __aicore__ inline void LoadPairs(const LocalTensor<float>& dst, uint64_t from, uint32_t count)
    {
        PipeBarrier<PIPE_ALL>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * 8), 0, 0, 0};
        DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
        DataCopyPad(dst, wsGm_[from], params, pad);
        Sync<HardEvent::MTE2_V>();
    }

    __aicore__ inline void StorePairs(uint64_t to, const LocalTensor<float>& src, uint32_t count)
    {
        Sync<HardEvent::V_MTE3>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * 8), 0, 0, 0};
        DataCopyPad(wsGm_[to], src, params);
        PipeBarrier<PIPE_ALL>();
    }

    // Merges the sorted runs first .. first + count - 1 of the table (at most four, in area `from`) into area
    // `to` at `at`; returns the merged length. Each run has a window of W pairs in UB; MrgSort merges the windows
    // until one runs out (exhausted suspension), the merged part goes out, and only the windows that ran out are
    // loaded again (the others go on from where MrgSort stopped). Runs stay in index order in MrgSort's list, so
    // ties go to the lower index. The last run left is copied through.
    __aicore__ inline uint32_t MergeRuns(uint64_t from, uint32_t first, uint32_t count, uint64_t to, uint32_t at)
    {
        constexpr uint32_t W = CHUNK / 4;
        uint32_t start[4], len[4], pos[4], off[4], have[4];
        uint32_t total = 0;
        for (uint32_t q = 0; q < count; ++q) {
            start[q] = tableGm_.GetValue(4 * (first + q));
            len[q] = tableGm_.GetValue(4 * (first + q) + 1);
            pos[q] = off[q] = have[q] = 0;
            total += len[q];
        }
        while (true) {
            PipeBarrier<PIPE_ALL>();
            uint32_t active[4];
            uint32_t m = 0;
            for (uint32_t q = 0; q < count; ++q) {
                if (pos[q] == len[q]) continue;
                if (have[q] == 0) {
                    have[q] = len[q] - pos[q] < W ? len[q] - pos[q] : W;
                    off[q] = 0;
                    DataCopyExtParams params{1, static_cast<uint32_t>(have[q] * 8), 0, 0, 0};
                    DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
                    DataCopyPad(pairsA_[2 * q * W], wsGm_[from + 2 * uint64_t(start[q] + pos[q])], params, pad);
                }
                active[m++] = q;
            }
            if (m < 2) {
                if (m == 1) CopyRun(from + 2 * uint64_t(start[active[0]] + pos[active[0]]), len[active[0]] - pos[active[0]],
                                    to + 2 * uint64_t(at));
                return total;
            }
            Sync<HardEvent::MTE2_V>();
            LocalTensor<float> queue[4];
            uint16_t lens[4] = {0, 0, 0, 0};
            for (uint32_t i = 0; i < 4; ++i) {
                uint32_t q = active[i < m ? i : 0];
                queue[i] = pairsA_[2 * (q * W + off[q])];
                lens[i] = i < m ? uint16_t(have[q]) : 0;
            }
            uint32_t taken[4] = {0, 0, 0, 0};
            uint16_t validBit = m == 2 ? 0b11 : (m == 3 ? 0b111 : 0b1111);
            MrgSort<float, true>(pairsB_, MrgSortSrcList<float>(queue[0], queue[1], queue[2], queue[3]), lens, taken,
                                 validBit, 1);
            Sync<HardEvent::V_S>();
            uint32_t out = 0;
            for (uint32_t i = 0; i < m; ++i) {
                uint32_t q = active[i];
                pos[q] += taken[i];
                off[q] += taken[i];
                have[q] -= taken[i];
                out += taken[i];
            }
            Sync<HardEvent::V_MTE3>();
            DataCopyExtParams params{1, static_cast<uint32_t>(out * 8), 0, 0, 0};
            DataCopyPad(wsGm_[to + 2 * uint64_t(at)], pairsB_, params);
            at += out;
        }
    }

    // `count` pairs from `from` to `to` in the workspace, through UB.
    __aicore__ inline void CopyRun(uint64_t from, uint32_t count, uint64_t to)
    {
        for (uint32_t done = 0; done < count; done += CHUNK) {
            uint32_t part = count - done < CHUNK ? count - done : CHUNK;
            LoadPairs(pairsA_, from + 2 * uint64_t(done), part);
            Sync<HardEvent::MTE2_MTE3>();
            StorePairs(to + 2 * uint64_t(done), pairsA_, part);
        }
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, 1> inQ_;
    TQue<QuePosition::VECOUT, 1> valQ_, idxQ_;
    TBuf<QuePosition::VECCALC> work_, headBuf_, stageBuf_, tableBuf_;
    GlobalTensor<In> inGm_, valGm_;
    GlobalTensor<int64_t> idxGm_;
    GlobalTensor<float> wsGm_, slotPairsGm_;
    GlobalTensor<uint32_t> tableGm_, slotGm_, wsU32Gm_;
    LocalTensor<float> xf_, key_, mark_, colF_, pairsA_, pairsB_, best_, spare_;
    LocalTensor<uint32_t> pay_, sp_, nanList_, inTable_, outTable_;
    LocalTensor<int32_t> pos_, rowBase_;
    LocalTensor<uint8_t> mValid_, mPair_, mZero_, mNum_, mTie_;
    uint32_t n_ = 0, rowPad_ = 0, rowsPerTile_ = 0, chunks_ = 0, k_ = 0, keep_ = 0, split_ = 1, chunksPerPart_ = 0;
    uint32_t firstRow_ = 0, rowCount_ = 0;
    bool stableTies_ = false;
    uint32_t inner_ = 1, outer_ = 0, slabsPerTile_ = 0, tilesPerSlab_ = 0, firstTile_ = 0, tileCount_ = 0;
};

// Host side: rows and n from the input's shape; rows of up to CHUNK elements several to a tile, longer ones
// chunk by chunk. Returns 0 (the caller runs torch) for shapes it cannot take: k > n, n >= 2^30, a top-k of a
// long int32 / int64 row, a top-k of a long row that needs more than LONG_KEEP entries, std::nth_element's order
// for a row over 2 * CHUNK, and along a dim that is not the last rows over CHUNK or too few columns to a tile.
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    if (tensorCount <= SOURCE) return 0;
    int32_t offset = 0;
    for (int32_t i = 0; i < SOURCE; ++i) offset += ranks[i];
    dims += offset;
    int32_t rank = ranks[SOURCE];
    int32_t sortedDim = rank - 1 - TRAILING;
    if (sortedDim < 0) return 0;
    uint64_t rows = 1, n = 1, inner = 1;
    for (int32_t d = 0; d < rank; ++d) {
        uint64_t size = static_cast<uint64_t>(dims[d]);
        if (d < sortedDim) rows *= size; else if (d == sortedDim) n = size; else inner *= size;
    }
    uint64_t outer = rows;
    rows *= inner;
    uint64_t k = ORDER == ORDER_TOPK ? TOPK : n;
    if (rows == 0 || n == 0 || k == 0 || k > n || n >= (1ull << 30) || rows > 0xFFFFFFFFull) return 0;
    if (inner > 1 && (!STRIDED || n > CHUNK || outer * n * inner > 0xFFFFFFFFull)) return 0;
    uint64_t keep = ORDER == ORDER_TOPK ? (k + 1 < n ? k + 1 : n) : n;
    uint64_t rowPad = 64, rowsPerTile = 1, chunks = 0, wsPerBlock = 0, split = 1, chunksPerPart = 0;
    uint64_t slabsPerTile = 0, tilesPerSlab = 0, tiles = 0, tilesPerBlock = 0;
    if (n <= CHUNK) {
        while (rowPad < n) rowPad *= 2;
        rowsPerTile = CHUNK / rowPad;
        if (inner > 1 && inner <= rowsPerTile) {  // whole slabs to a tile, read and written contiguously
            slabsPerTile = rowsPerTile / inner;
            tiles = (outer + slabsPerTile - 1) / slabsPerTile;
        } else if (inner > 1) {  // rowsPerTile columns of a slab: strided copies of whole 32-byte blocks
            if (rowsPerTile * sizeof(In) < 32 || (INDICES_OUT && rowsPerTile * 8 < 32)) return 0;
            tilesPerSlab = (inner + rowsPerTile - 1) / rowsPerTile;
            tiles = outer * tilesPerSlab;
        }
    } else {
        if (RADIX_DIGITS > 0 && ORDER == ORDER_TOPK) return 0;
        if (ORDER == ORDER_TOPK && (keep > LONG_KEEP || (k * 64 > n && n > 2 * CHUNK))) return 0;
        rowPad = CHUNK;
        chunks = (n + CHUNK - 1) / CHUNK;
        if (ORDER != ORDER_TOPK) wsPerBlock = TableBytes(chunks) + (3 * n * 8 + 511) / 512 * 512;
        if (wsPerBlock > 0xFFFFFFFFull) return 0;
        if (ORDER == ORDER_TOPK && rows < coreNum && coreNum / rows >= 2) {  // several blocks to a row
            split = coreNum / rows < chunks ? coreNum / rows : chunks;
            if (split > MAX_SPLIT) split = MAX_SPLIT;
            chunksPerPart = (chunks + split - 1) / split;
            split = (chunks + chunksPerPart - 1) / chunksPerPart;
            if (split > 1) wsPerBlock = SLOT_BYTES;
        }
    }
    uint64_t blocks = rows < coreNum ? rows : coreNum;
    uint64_t rowsPerBlock = (rows + blocks - 1) / blocks;
    blocks = (rows + rowsPerBlock - 1) / rowsPerBlock;
    if (split > 1) {  // every block resident (SyncAll), one (row, part) each
        blocks = rows * split;
        rowsPerBlock = 1;
    }
    if (tiles > 0) {
        blocks = tiles < coreNum ? tiles : coreNum;
        tilesPerBlock = (tiles + blocks - 1) / blocks;
        blocks = (tiles + tilesPerBlock - 1) / tilesPerBlock;
    }
    tiling->rows = static_cast<uint32_t>(rows);
    tiling->cols = static_cast<uint32_t>(n);
    tiling->rowsPerBlock = static_cast<uint32_t>(rowsPerBlock);
    tiling->rowPad = static_cast<uint32_t>(rowPad);
    tiling->rowsPerTile = static_cast<uint32_t>(rowsPerTile);
    tiling->chunks = static_cast<uint32_t>(chunks);
    tiling->k = static_cast<uint32_t>(k);
    tiling->keep = static_cast<uint32_t>(keep);
    tiling->wsPerBlock = static_cast<uint32_t>(wsPerBlock);
    tiling->split = static_cast<uint32_t>(split);
    tiling->chunksPerPart = static_cast<uint32_t>(chunksPerPart);
    tiling->inner = static_cast<uint32_t>(inner);
    tiling->outer = static_cast<uint32_t>(outer);
    tiling->slabsPerTile = static_cast<uint32_t>(slabsPerTile);
    tiling->tilesPerSlab = static_cast<uint32_t>(tilesPerSlab);
    tiling->tiles = static_cast<uint32_t>(tiles);
    tiling->tilesPerBlock = static_cast<uint32_t>(tilesPerBlock);
    tiling->stableTies = RADIX_1D && rank == 1 && n >= 32768 ? 1 : 0;  // at::internal::GRAIN_SIZE
    *workspaceBytes = wsPerBlock * blocks;
    return static_cast<uint32_t>(blocks);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(
    // <<entry_params
    GM_ADDR in0, GM_ADDR out0, GM_ADDR out1,
    // >>entry_params
    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    SortKernel op;
    op.Init(
        // <<entry_args
        in0, out0, out1,
        // >>entry_args
        workspace, t);
    op.Process();
}
