// Built-in generator template: the general lowering's kernel (torch_ascendgen/generators/builtin/loops).
//
// A kernel is a sequence of passes, each a loop nest over an index space (PyTorch Inductor's loop-level IR, see
// loops/ir.py). A pass splits its work items (an outer index and a chunk of the vector dimension) evenly over
// the blocks; each item loads its tiles (DataCopyPad at any lane, or lane by lane through index expressions),
// computes on them with vector instructions and stores the result. Intermediate buffers live in the workspace;
// passes that read another pass's buffer are separated by SyncAll (every block is resident: the host launches
// at most one block per core).
//
// The host function reads the size symbols from the inputs' dims, checks what the lowering assumed about them
// (declining other shapes), places the intermediate buffers in the workspace and chooses the block count.
//
// The regions between "// <<name" and "// >>name" are written by torch_ascendgen's generator; as checked in,
// they hold an example (out0 = in0 * 2 over s0 elements) so that this file is a complete kernel an editor and
// a compiler can check.
#include "kernel_operator.h"

using namespace AscendC;

// <<config
constexpr uint32_t TILE = 1024;      // lanes per tile: a multiple of 128
constexpr int32_t BUFFER_NUM = 2;    // buffers per queue
constexpr uint32_t SLOTS = 1;        // 4-byte scratch tiles
constexpr uint32_t WIDE_SLOTS = 0;   // 8-byte scratch tiles
constexpr uint32_t MASK_SLOTS = 0;   // bit-mask scratch tiles
constexpr int32_t SYMBOLS = 1;
constexpr int32_t WORKSPACES = 1;
using In0 = float;
using Out0 = float;
// >>config

constexpr uint32_t MASK_BYTES = TILE / 8;

struct TilingData {
    int64_t sym[SYMBOLS];          // the size symbols s0, s1, ...
    uint64_t ws[WORKSPACES];       // byte offset of each intermediate buffer in the workspace
};

// Index arithmetic with Python's semantics (Inductor's FloorDiv and PythonMod).
__aicore__ inline int64_t FloorDivI(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}

__aicore__ inline int64_t ModI(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

__aicore__ inline int64_t AbsI(int64_t a) { return a < 0 ? -a : a; }
__aicore__ inline int64_t MinI(int64_t a, int64_t b) { return a < b ? a : b; }
__aicore__ inline int64_t MaxI(int64_t a, int64_t b) { return a > b ? a : b; }
__aicore__ inline int64_t CeilDivI(int64_t a, int64_t b) { return (a + b - 1) / b; }
__aicore__ inline uint32_t MinU(uint32_t a, uint32_t b) { return a < b ? a : b; }
__aicore__ inline uint32_t MaxU(uint32_t a, uint32_t b) { return a > b ? a : b; }

// A lane bound: `relative` (an index relative to the tile's first lane) clamped to [0, count].
__aicore__ inline uint32_t LaneBound(int64_t relative, uint32_t count)
{
    return relative <= 0 ? 0u : (relative >= static_cast<int64_t>(count) ? count : static_cast<uint32_t>(relative));
}

// Float-valued index expressions (interpolation's scales) rounded to integers, as Python rounds them.
__aicore__ inline int64_t FloorToIntD(double a)
{
    int64_t t = static_cast<int64_t>(a);
    return (static_cast<double>(t) > a) ? t - 1 : t;
}
__aicore__ inline int64_t CeilToIntD(double a)
{
    int64_t t = static_cast<int64_t>(a);
    return (static_cast<double>(t) < a) ? t + 1 : t;
}
__aicore__ inline int64_t TruncToIntD(double a) { return static_cast<int64_t>(a); }
__aicore__ inline int64_t RoundToIntD(double a)  // half to even
{
    int64_t f = FloorToIntD(a);
    double rest = a - static_cast<double>(f);
    return rest > 0.5 ? f + 1 : (rest < 0.5 ? f : (f % 2 == 0 ? f : f + 1));
}

// The same index arithmetic for the host's tiling function.
inline int64_t HostFloorDiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}

inline int64_t HostMod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

inline int64_t HostAbs(int64_t a) { return a < 0 ? -a : a; }
inline int64_t HostMin(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t HostMax(int64_t a, int64_t b) { return a > b ? a : b; }
inline int64_t HostCeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Scalar values with PyTorch's semantics, for values every lane shares and the lane-by-lane path.
template <typename T>
__aicore__ inline T WrapInt(int64_t value)  // two's complement wrap-around to T's width (bool: nonzero)
{
    return static_cast<T>(static_cast<uint64_t>(value));
}

__aicore__ inline int64_t CheckedFloorDiv(int64_t a, int64_t b)
{
    if (b == 0) Trap();  // PyTorch raises ZeroDivisionError
    if (a == INT64_MIN && b == -1) return a;
    return FloorDivI(a, b);
}

__aicore__ inline int64_t CheckedTruncDiv(int64_t a, int64_t b)
{
    if (b == 0) Trap();
    if (a == INT64_MIN && b == -1) return a;
    return a / b;
}

__aicore__ inline int64_t CheckedMod(int64_t a, int64_t b)
{
    if (b == 0) Trap();
    if (b == -1) return 0;
    return ModI(a, b);
}

__aicore__ inline int64_t CheckedTruncMod(int64_t a, int64_t b)  // C's %, fmod's integer form: the dividend's sign
{
    if (b == 0) Trap();
    if (b == -1) return 0;
    return a % b;
}

__aicore__ inline int64_t ShiftLeftI(int64_t a, int64_t b)
{
    return (b < 0 || b >= 64) ? 0 : static_cast<int64_t>(static_cast<uint64_t>(a) << b);
}

__aicore__ inline int64_t ShiftRightI(int64_t a, int64_t b)
{
    return (b < 0 || b >= 64) ? (a < 0 ? -1 : 0) : (a >> b);
}

__aicore__ inline float FMaxNaN(float a, float b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
__aicore__ inline float FMinNaN(float a, float b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }
__aicore__ inline bool IsInfF(float a) { return a == 1.0f / 0.0f || a == -1.0f / 0.0f; }

// C's fmod, exactly: |a| reduced by |b| * 2^k for k from the largest with |b| * 2^k <= |a| down to 0. Each step's
// remainder r satisfies t <= r < 2t before the subtraction (t = |b| * 2^k), so r - t is exact (Sterbenz), and
// doubling or halving t between |b| and |a| is exact; the result takes a's sign. NaN for b == 0, an infinite a
// or a NaN operand, and where the quotient overflows (as PyTorch gives); a itself where |a| < |b| (an infinite b,
// a zero a).
__aicore__ inline float FmodF(float a, float b)
{
    if (a != a || b != b || b == 0.0f || IsInfF(a)) return 0.0f / 0.0f;
    float r = a < 0.0f ? -a : a;
    const float y = b < 0.0f ? -b : b;
    if (r < y) return a;
    // PyTorch's vectorised CPU fmod (Sleef's) gives NaN where its quotient |a| * (1 / |b|) overflows (|b| below
    // FLT_MIN scaled by 2^25 first, as it scales it): eager's answer there, which the kernel gives too
    const bool tiny = y < 1.17549435e-38f;
    const float n = tiny ? r * 33554432.0f : r;
    if (IsInfF(n * (1.0f / (tiny ? y * 33554432.0f : y)))) return 0.0f / 0.0f;
    float t = y;
    while (t + t <= r) t = t + t;  // 2t overflowing to inf stops it
    while (true) {
        if (r >= t) r = r - t;
        if (t == y) break;
        t = t * 0.5f;
    }
    return a < 0.0f ? -r : r;
}

// floor, ceil, trunc and round (half to even) of one float, exactly as C's (PyTorch's): a float of magnitude 2^23 or
// more, an infinity and NaN are themselves; otherwise the int32 truncation, stepped by one where it rounds the wrong
// way; a zero result takes the operand's sign (floor(-0.0) = -0.0, ceil(-0.5) = -0.0).
__aicore__ inline float SignedZero(float r, float a) { return r == 0.0f ? (a < 0.0f ? -0.0f : a * 0.0f) : r; }

__aicore__ inline float TruncF(float a)
{
    const float m = a < 0.0f ? -a : a;
    return m < 8388608.0f ? SignedZero(static_cast<float>(static_cast<int32_t>(a)), a) : a;
}

__aicore__ inline float FloorF(float a)
{
    const float t = TruncF(a);
    return t > a ? t - 1.0f : t;
}

__aicore__ inline float CeilF(float a)
{
    const float t = TruncF(a);
    return t < a ? SignedZero(t + 1.0f, a) : t;
}

__aicore__ inline float RoundF(float a)
{
    const float t = TruncF(a);
    const float d = a - t;  // exact: |a| < 2^23 where t differs from a
    const float half = d < 0.0f ? -d : d;
    const bool odd = (static_cast<int64_t>(t) & 1) != 0;
    if (half > 0.5f || (half == 0.5f && odd)) return SignedZero(d < 0.0f ? t - 1.0f : t + 1.0f, a);
    return t;
}

// float -> int as PyTorch on x86 converts: NaN and out-of-range values give the type's minimum.
__aicore__ inline int64_t FloatToInt32(float a)
{
    return (a < 2147483648.0f && a >= -2147483648.0f) ? static_cast<int64_t>(static_cast<int32_t>(a))
                                                      : static_cast<int64_t>(INT32_MIN);
}

__aicore__ inline int64_t FloatToInt64(float a)
{
    return (a < 9223372036854775808.0f && a >= -9223372036854775808.0f) ? static_cast<int64_t>(a) : INT64_MIN;
}

template <typename T>
__aicore__ inline float RoundTo(float value)  // rounded to T's precision, as a float
{
    return static_cast<float>(static_cast<T>(value));
}


// Double-precision math on the scalar unit, for the steps of a generic scan (logcumsumexp's log1p(exp(.)), carried
// in double as PyTorch's CPU kernels carry float32 scans). Written from the textbook forms: exp by reduction to
// r = x - k ln2 (ln2 split in two so that k * LN2_HI is exact) and its Taylor series; log by splitting off the
// exponent (mantissa m in [sqrt(1/2), sqrt(2))) and log(m) = 2 atanh(s), s = (m - 1) / (m + 1); log1p(y) as
// log(1 + y) * y / ((1 + y) - 1), which cancels the rounding of 1 + y. Within a few double ulps of the exact value.
__aicore__ inline double BitsToDouble(int64_t bits)
{
    union { int64_t i; double d; } u;
    u.i = bits;
    return u.d;
}
__aicore__ inline int64_t DoubleToBits(double value)
{
    union { int64_t i; double d; } u;
    u.d = value;
    return u.i;
}
__aicore__ inline double FMaxNaND(double a, double b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
__aicore__ inline double FMinNaND(double a, double b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }
__aicore__ inline bool IsInfD(double a) { return a == 1.0 / 0.0 || a == -1.0 / 0.0; }
__aicore__ inline double AbsD(double a) { return a < 0.0 ? -a : (a == 0.0 ? 0.0 : a); }

__aicore__ inline double Pow2D(int64_t k)  // 2^k for -1022 <= k <= 1023, from its bits
{
    return BitsToDouble((k + 1023) << 52);
}

__aicore__ inline double ScaleD(double x, int64_t k)  // x * 2^k (products of exact powers of two)
{
    while (k > 1000) { x *= Pow2D(1000); k -= 1000; }
    while (k < -1000) { x *= Pow2D(-1000); k += 1000; }
    return x * Pow2D(k);
}

__aicore__ inline double ExpD(double x)
{
    if (x != x) return x;
    if (x > 709.8) return 1.0 / 0.0;
    if (x < -745.2) return 0.0;
    const double LN2_HI = 6.93147180369123816490e-01, LN2_LO = 1.90821492927058770002e-10;
    const int64_t k = FloorToIntD(x * 1.44269504088896338700 + 0.5);
    const double r = (x - static_cast<double>(k) * LN2_HI) - static_cast<double>(k) * LN2_LO;  // |r| <= 0.35
    double term = 1.0, sum = 0.0;
    for (int n = 1; n <= 17; ++n) {  // r + r^2/2! + ... : the rest is below 2^-60 of the sum
        term = term * r / static_cast<double>(n);
        sum += term;
    }
    return ScaleD(1.0 + sum, k);
}

__aicore__ inline double LogD(double x)
{
    if (x != x || x < 0.0) return 0.0 / 0.0;
    if (x == 0.0) return -1.0 / 0.0;
    if (IsInfD(x)) return x;
    int64_t e = 0;
    if (x < 2.2250738585072014e-308) { x *= Pow2D(54); e = -54; }  // subnormal: scaled into the normal range
    const int64_t bits = DoubleToBits(x);
    e += ((bits >> 52) & 0x7FF) - 1023;
    double m = BitsToDouble((bits & 0x000FFFFFFFFFFFFFLL) | 0x3FF0000000000000LL);  // in [1, 2)
    if (m > 1.4142135623730951) { m *= 0.5; e += 1; }
    const double f = m - 1.0;  // exact (Sterbenz)
    const double s = f / (2.0 + f), z = s * s, hfsq = 0.5 * f * f;
    double rest = 0.0;
    for (int n = 12; n >= 1; --n) rest = z * (2.0 / static_cast<double>(2 * n + 1) + rest);  // 2 (z/3 + z^2/5 ...)
    const double LN2_HI = 6.93147180369123816490e-01, LN2_LO = 1.90821492927058770002e-10;
    const double ed = static_cast<double>(e);
    return ed * LN2_HI + ((f - hfsq + s * (hfsq + rest)) + ed * LN2_LO);
}

__aicore__ inline double Log1pD(double y)
{
    if (y != y || y < -1.0) return 0.0 / 0.0;
    if (y == -1.0) return -1.0 / 0.0;
    if (IsInfD(y)) return y;
    const double u = 1.0 + y;
    if (u == 1.0) return y;
    return LogD(u) * (y / (u - 1.0));
}


// This block's share [begin, end) of `items` work items: contiguous, as even as possible.
__aicore__ inline void Share(int64_t items, int64_t& begin, int64_t& end)
{
    int64_t blocks = GetBlockNum();
    int64_t index = GetBlockIdx();
    int64_t per = items / blocks;
    int64_t extra = items % blocks;
    begin = index * per + MinI(index, extra);
    end = begin + per + (index < extra ? 1 : 0);
}

// An index an indirect load uses: negative ones wrap once (when PyTorch wraps them), any other out of range stops
// the kernel (PyTorch raises an IndexError; the caller then gets the original function's error).
__aicore__ inline int64_t CheckedIndex(int64_t index, int64_t size, bool wrapNegative)
{
    if (wrapNegative && index < 0) index += size;
    if (index < 0 || index >= size) Trap();
    return index;
}

__aicore__ inline void VectorToScalar()
{
    event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(id);
    WaitFlag<HardEvent::V_S>(id);
}

__aicore__ inline void ScalarToVector()
{
    event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
    SetFlag<HardEvent::S_V>(id);
    WaitFlag<HardEvent::S_V>(id);
}

__aicore__ inline void MteToScalar()
{
    event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_S));
    SetFlag<HardEvent::MTE2_S>(id);
    WaitFlag<HardEvent::MTE2_S>(id);
}

// Whether any of the first `lanes` bits of a Compare mask is set (read on the scalar unit).
__aicore__ inline bool AnyBit(const LocalTensor<uint8_t>& mask, uint32_t lanes)
{
    VectorToScalar();
    bool any = false;
    for (uint32_t byte = 0; byte * 8 < lanes && !any; ++byte) {
        uint32_t bits = mask.GetValue(byte);
        uint32_t left = lanes - byte * 8;
        if (left < 8) bits &= (1u << left) - 1;
        any = bits != 0;
    }
    return any;
}

__aicore__ inline void ScalarToMte3()
{
    event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE3));
    SetFlag<HardEvent::S_MTE3>(id);
    WaitFlag<HardEvent::S_MTE3>(id);
}

__aicore__ inline void Mte3ToScalar()
{
    event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_S));
    SetFlag<HardEvent::MTE3_S>(id);
    WaitFlag<HardEvent::MTE3_S>(id);
}

// One value to gm[offset] through a 32-byte UB tile: a DMA writes exactly its bytes, where the scalar unit's
// write would write back a whole cache line that a neighbouring core may be writing too.
template <typename T>
__aicore__ inline void OneToGm(const LocalTensor<T>& one, const GlobalTensor<T>& gm, int64_t offset, T value)
{
    one.SetValue(0, value);
    ScalarToMte3();
    DataCopyExtParams params{1, static_cast<uint32_t>(sizeof(T)), 0, 0, 0};
    DataCopyPad(gm[offset], one, params);
    Mte3ToScalar();
}

// count elements of gm from `offset` into lanes [lane, lane + count) of dst. The copy starts at the 32-byte
// block holding `lane` and pads its front (DataCopyPad's leftPadding), so the lanes before it in that block are
// overwritten: a caller loading part of a tile only keeps the lanes it loaded.
template <typename T>
__aicore__ inline void LoadLanes(const LocalTensor<T>& dst, const GlobalTensor<T>& gm, int64_t offset, uint32_t lane,
                                 uint32_t count)
{
    if (count == 0) return;
    constexpr uint32_t perBlock = 32 / sizeof(T);
    uint32_t first = lane / perBlock * perBlock;
    uint8_t left = static_cast<uint8_t>(lane - first);
    if (left == 0 && (count * sizeof(T)) % 32 == 0) {
        DataCopy(dst[first], gm[offset], count);
        return;
    }
    DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
    DataCopyPadExtParams<T> pad{left != 0, left, 0, T(0)};
    DataCopyPad(dst[first], gm[offset], params, pad);
}

// Lanes [0, count) of src to gm from `offset`.
template <typename T>
__aicore__ inline void StoreLanes(const GlobalTensor<T>& gm, int64_t offset, const LocalTensor<T>& src, uint32_t count)
{
    if (count == 0) return;
    if ((count * sizeof(T)) % 32 == 0) {
        DataCopy(gm[offset], src, count);
        return;
    }
    DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
    DataCopyPad(gm[offset], src, params);
}

class LoopsKernel {
public:
    __aicore__ inline void Init(
        // <<init_params
        GM_ADDR in0, GM_ADDR out0,
        // >>init_params
        GM_ADDR workspace, const TilingData& t)
    {
        t_ = t;
        // <<init
        gmIn0_.SetGlobalBuffer((__gm__ In0*)in0);
        gmOut0_.SetGlobalBuffer((__gm__ Out0*)out0);
        // >>init
    }

    __aicore__ inline void Process()
    {
        // <<process
        Pass0();
        // >>process
    }

private:
    // <<passes
    __aicore__ inline void Pass0()
    {
        const int64_t s0 = t_.sym[0];
        TPipe pipe;
        TQue<QuePosition::VECIN, 1> qLoad0;
        TQue<QuePosition::VECOUT, 1> qStore0;
        TBuf<QuePosition::VECCALC> calcBuf;
        pipe.InitBuffer(qLoad0, BUFFER_NUM, TILE * sizeof(In0));
        pipe.InitBuffer(qStore0, BUFFER_NUM, TILE * sizeof(Out0));
        pipe.InitBuffer(calcBuf, SLOTS * TILE * 4);
        LocalTensor<float> calc = calcBuf.Get<float>();
        const int64_t chunks = CeilDivI(s0, TILE);
        int64_t begin, end;
        Share(chunks, begin, end);
        for (int64_t item = begin; item < end; ++item) {
            const int64_t v0 = item * TILE;
            const uint32_t count = static_cast<uint32_t>(MinI(TILE, s0 - v0));
            {
                LocalTensor<In0> load0 = qLoad0.AllocTensor<In0>();
                LoadLanes(load0, gmIn0_, v0, 0, count);
                qLoad0.EnQue(load0);
            }
            {
                LocalTensor<In0> load0 = qLoad0.DeQue<In0>();
                LocalTensor<Out0> store0 = qStore0.AllocTensor<Out0>();
                Muls(store0, load0, 2.0f, count);
                qStore0.EnQue(store0);
                qLoad0.FreeTensor(load0);
            }
            {
                LocalTensor<Out0> store0 = qStore0.DeQue<Out0>();
                StoreLanes(gmOut0_, v0, store0, count);
                qStore0.FreeTensor(store0);
            }
        }
    }
    // >>passes

    TilingData t_;
    // <<members
    GlobalTensor<In0> gmIn0_;
    GlobalTensor<Out0> gmOut0_;
    // >>members
};

// Host side: the symbols from the dims, the lowering's assumptions checked, the workspace laid out.
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    // <<tiling
    if (tensorCount != 2 || ranks[0] != 1) return 0;
    const int64_t s0 = dims[0];
    tiling->sym[0] = s0;
    tiling->ws[0] = 0;
    *workspaceBytes = 0;
    const int64_t work = HostCeilDiv(s0, TILE);
    // >>tiling
    if (work <= 0) return 0;
    return static_cast<uint32_t>(work < static_cast<int64_t>(coreNum) ? work : coreNum);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(
    // <<entry_params
    GM_ADDR in0, GM_ADDR out0,
    // >>entry_params
    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    LoopsKernel op;
    op.Init(
        // <<entry_args
        in0, out0,
        // >>entry_args
        workspace, t);
    op.Process();
}
