// Built-in generator template: a matrix product (mm, bmm, addmm, a Linear, a matmul with batch dims) on the cube
// unit, with the work after it (bias, activation, residual, scale, cast, a softmax along the rows) fused on the
// vector unit.
//
// The product runs through the high-level Matmul API (Matmul page, atlasascendc_api_07_0650 and the pages under
// it): A ([m, k] rows) and B ([k, n] rows, or [n, k] read transposed) from GM, C handed to the vector core block by
// block in UB: each Iterate computes one [baseM, baseN] block of the core's [singleCoreM, singleCoreN] part and
// GetTensorC(ub, false, true) writes it to the start of the UB tensor (enSequentialWrite). baseN covers n, so a
// block holds whole rows: the epilogue walks it in [rows, cols] tiles of n rows with colsPad (= baseN) elements a
// row, as the row-wise template does, and writes the rows with DataCopyPad. The kernel is mixed
// (KERNEL_TYPE_MIX_AIC_1_2: a cube core and two vector cores per block); each vector core takes whole units (one
// batch's chunk of singleCoreM rows) and drives its own Matmul object, which the cube core serves.
//
// The regions between "// <<name" and "// >>name" are written by torch_ascendgen's generator; as checked in they
// hold an example, out0 = relu(in0 @ in1) of [m, k] and [k, n] float matrices. The region "part rowwise row_io"
// is filled with the row and column moves of rowwise.cpp (its lines between "// ==row_io" and "// ==/row_io"),
// which the two templates share.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

struct TilingData {
    uint32_t batch;           // products (bmm's batch; 1 for mm)
    uint32_t mSize;           // rows of one product's A and C
    uint32_t cols;            // n: columns of B and C
    uint32_t kSize;           // k
    uint32_t colsPad;         // n rounded up: a row's elements in an epilogue tile (= baseN)
    uint32_t cPitch;          // a row's elements in the UB block of C: n rounded up to 32 bytes
    uint32_t rowsPerTile;     // rows of an epilogue tile (a block of C is walked in such tiles)
    uint32_t mChunks;         // chunks of singleCoreM rows per product
    uint32_t units;           // batch * mChunks
    uint32_t unitsPerWorker;  // units per vector core
    float invCols;            // 1 / n, for means
    TCubeTiling cube;
};

// <<config
constexpr uint32_t TILE = 4096;          // elements of one epilogue tile: [rowsPerTile, colsPad]
constexpr uint32_t C_TILE = 16384;       // elements of the UB block of C: [baseM, colsPad]
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TEMPS = 1;
constexpr uint32_t COL_TEMPS = 1;
constexpr uint32_t MASKS = 1;
constexpr uint32_t MASK_BYTES = TILE / 8;
constexpr uint32_t MAX_ROWS = 256;       // rows of an epilogue tile, and of a block of C, at most
constexpr uint32_t COL_STRIDE = 8;       // floats between two rows' values in a per-row array
constexpr uint32_t COL_TILE = MAX_ROWS * COL_STRIDE;
constexpr uint32_t COL_ALIGN = 16;       // colsPad is a multiple of this (and of 16: a fractal's rows)
constexpr int32_t SHAPE_TENSOR = 2;      // the tensor (inputs, then outputs) of the product's full shape
constexpr int32_t BATCH_DIMS = 0;        // its leading dims that are the batch
constexpr int32_t K_TENSOR = 0;          // the tensor and dim whose size is k (-1: K_CONSTANT)
constexpr int32_t K_DIM = 1;
constexpr int64_t K_CONSTANT = 0;
constexpr bool TRANS_B = false;          // B is given as [n, k]
constexpr bool B_BATCHED = false;        // one B per batch (else one B for all)
using AType = float;
using BType = float;
using CType = float;
using ComputeT = float;
using In0 = CType;
using Out0 = float;
// >>config

// Sizes of the smallest cube buffers we target (Atlas A2/A3, targets/soc.py) and the Matmul API's limits
// (TCubeTiling page, atlasascendc_api_07_0673: baseM * baseK * sizeof(A) <= L0A, baseK * baseN * sizeof(B) <= L0B,
// baseM * baseN * sizeof(float) <= L0C; Ka within [1, 65535] for an ND A that is not transposed).
constexpr uint64_t L0A_BYTES = 65536;
constexpr uint64_t L0B_BYTES = 65536;
constexpr uint64_t L0C_BYTES = 131072;
constexpr uint64_t L1_BYTES = 524288;
constexpr uint64_t MAX_K = 65535;
constexpr uint64_t MAX_COLS = C_TILE / 16;  // 16 whole rows of C in its UB block
// assumption: the Matmul API's system workspace (GetLibApiWorkSpaceSize) is 16 MB on Atlas A2.
constexpr uint64_t SYS_WORKSPACE_BYTES = 16ull * 1024 * 1024;

using ProductMatmul = matmul::Matmul<matmul::MatmulType<TPosition::GM, CubeFormat::ND, AType>,
                                     matmul::MatmulType<TPosition::GM, CubeFormat::ND, BType, TRANS_B>,
                                     matmul::MatmulType<TPosition::VECIN, CubeFormat::ND, CType>,
                                     matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>>;

class MatmulEpilogueKernel {
public:
    TPipe pipe_;
    ProductMatmul mm;

    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b,
        // <<init_params
        GM_ADDR out0,
        // >>init_params
        const TilingData& t)
    {
        uint32_t worker = GetBlockIdx();
        unitBegin_ = worker * t.unitsPerWorker;
        unitEnd_ = unitBegin_ + t.unitsPerWorker < t.units ? unitBegin_ + t.unitsPerWorker : t.units;
        mSize_ = t.mSize;
        kSize_ = t.kSize;
        mChunks_ = t.mChunks;
        singleM_ = t.cube.singleCoreM;
        cols_ = t.cols;
        colsPad_ = t.colsPad;
        cPitch_ = t.cPitch;
        rowsPerTile_ = t.rowsPerTile;
        baseM_ = t.cube.baseM;
        invCols_ = t.invCols;
        aGm_.SetGlobalBuffer((__gm__ AType*)a);
        bGm_.SetGlobalBuffer((__gm__ BType*)b);
        pipe_.InitBuffer(qC_, 1, C_TILE * sizeof(CType));
        pipe_.InitBuffer(repack_, TILE * sizeof(CType));
        pipe_.InitBuffer(calc_, TEMPS * TILE * sizeof(ComputeT));
        pipe_.InitBuffer(colCalc_, COL_TEMPS * COL_TILE * sizeof(ComputeT));
        pipe_.InitBuffer(maskBuf_, MASKS * MASK_BYTES);
        // <<init
        gmOut0_.SetGlobalBuffer((__gm__ Out0*)out0);
        pipe_.InitBuffer(qOut0_, BUFFER_NUM, TILE * sizeof(Out0));
        // >>init
    }

    __aicore__ inline void Process()
    {
        for (uint32_t unit = unitBegin_; unit < unitEnd_; ++unit) {
            uint32_t batch = unit / mChunks_;
            uint32_t firstRow = (unit % mChunks_) * singleM_;
            uint32_t rows = mSize_ - firstRow < singleM_ ? mSize_ - firstRow : singleM_;
            uint64_t bOffset = B_BATCHED ? uint64_t(batch) * kSize_ * cols_ : 0;
            uint32_t row = batch * mSize_ + firstRow;  // the epilogue's row: batch and row flattened
            mm.SetTensorA(aGm_[uint64_t(row) * kSize_]);
            mm.SetTensorB(bGm_[bOffset], TRANS_B);
            mm.SetTail(rows, cols_, kSize_);
            uint32_t done = 0;
            while (mm.template Iterate<true>()) {
                uint32_t block = rows - done < baseM_ ? rows - done : baseM_;
                LocalTensor<CType> product = qC_.AllocTensor<CType>();
                mm.GetTensorC(product, false, true);
                qC_.EnQue(product);
                product = qC_.DeQue<CType>();
                for (uint32_t first = 0; first < block; first += rowsPerTile_) {
                    uint32_t n = block - first < rowsPerTile_ ? block - first : rowsPerTile_;
                    CopyIn(row + done + first, n);
                    Compute(EpilogueRows(product, first, n), n);
                    CopyOut(row + done + first, n);
                }
                qC_.FreeTensor(product);
                done += block;
            }
        }
        mm.End();
    }

private:
    // Rows [first, first + n) of the block of C with colsPad elements a row, as the epilogue reads them. GetTensorC
    // writes a sequential block with rows of n rounded up to 32 bytes (sim/matmul.h; the pages give no tail pitch):
    // where that is not colsPad, the rows are copied over (one strided UB copy on the vector pipe).
    __aicore__ inline LocalTensor<CType> EpilogueRows(const LocalTensor<CType>& product, uint32_t first, uint32_t n)
    {
        LocalTensor<CType> rows = product[first * cPitch_];
        if (cPitch_ == colsPad_) return rows;
        LocalTensor<CType> packed = repack_.Get<CType>();
        DataCopyParams params{static_cast<uint16_t>(n), static_cast<uint16_t>(cPitch_ * sizeof(CType) / 32), 0,
                              static_cast<uint16_t>((colsPad_ - cPitch_) * sizeof(CType) / 32)};
        DataCopy(packed, rows, params);
        return packed;
    }

    // <<part rowwise row_io
    // >>part rowwise row_io

    __aicore__ inline void CopyIn(uint32_t row, uint32_t n)
    {
        // <<copy_in
        (void)0;
        // >>copy_in
    }

    __aicore__ inline void Compute(const LocalTensor<CType>& in0, uint32_t n)
    {
        LocalTensor<ComputeT> calc = calc_.Get<ComputeT>();
        LocalTensor<ComputeT> colCalc = colCalc_.Get<ComputeT>();
        LocalTensor<uint8_t> masks = maskBuf_.Get<uint8_t>();
        uint32_t count = n * colsPad_;
        uint32_t colCount = n * COL_STRIDE;
        // <<compute
        LocalTensor<Out0> out0 = qOut0_.AllocTensor<Out0>();
        Relu(out0, in0, count);
        qOut0_.EnQue(out0);
        // >>compute
        (void)calc;
        (void)colCalc;
        (void)masks;
        (void)count;
        (void)colCount;
    }

    __aicore__ inline void CopyOut(uint32_t row, uint32_t n)
    {
        // <<copy_out
        StoreRows(qOut0_, gmOut0_, row, n);
        // >>copy_out
    }

    TQue<QuePosition::VECIN, 1> qC_;
    TBuf<QuePosition::VECCALC> repack_;
    TBuf<QuePosition::VECCALC> calc_;
    TBuf<QuePosition::VECCALC> colCalc_;
    TBuf<QuePosition::VECCALC> maskBuf_;
    GlobalTensor<AType> aGm_;
    GlobalTensor<BType> bGm_;
    uint32_t unitBegin_ = 0;
    uint32_t unitEnd_ = 0;
    uint32_t mSize_ = 0;
    uint32_t kSize_ = 0;
    uint32_t mChunks_ = 1;
    uint32_t singleM_ = 0;
    uint32_t cols_ = 0;
    uint32_t colsPad_ = 0;
    uint32_t cPitch_ = 0;
    uint32_t rowsPerTile_ = 0;
    uint32_t baseM_ = 0;
    float invCols_ = 0.0f;
    // <<members
    TQue<QuePosition::VECOUT, 1> qOut0_;
    GlobalTensor<Out0> gmOut0_;
    // >>members
};

// ---- host side ----

inline const int64_t* TensorDims(const int32_t* ranks, const int64_t* dims, int32_t tensor)
{
    int32_t offset = 0;
    for (int32_t i = 0; i < tensor; ++i) offset += ranks[i];
    return dims + offset;
}

inline uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The Matmul API's tiling for one vector core's unit (TCubeTiling page): baseN = colsPad (whole rows), baseM as
// many rows as the UB block of C, L0C and MAX_ROWS allow, and no more than every vector core getting a chunk of
// the rows needs (the epilogue walks a block in tiles of rowsPerTile rows), baseK as deep as L0A and L0B allow (double-buffered while a
// base block of B fits half of L0B), stepKa = stepKb base blocks of K per L1 load, twice that resident
// (depthA1 = depthB1) when K needs more than one load. Returns false where it declines.
inline bool FillCubeTiling(TilingData* t, uint64_t batch, uint64_t m, uint64_t n, uint64_t k, uint32_t coreNum)
{
    constexpr uint64_t size = sizeof(AType);
    constexpr uint64_t kAlign = 16;  // baseK: a multiple of 16 (TCubeTiling table 2), float inputs too
    uint64_t colsPad = CeilDiv(n, COL_ALIGN) * COL_ALIGN;
    if (k > MAX_K || colsPad > MAX_COLS || colsPad > TILE) return false;
    uint64_t rowsPerTile = TILE / colsPad < MAX_ROWS ? TILE / colsPad : MAX_ROWS;
    uint64_t baseM = C_TILE / colsPad;
    if (baseM > MAX_ROWS) baseM = MAX_ROWS;
    if (baseM > L0C_BYTES / (colsPad * 4)) baseM = L0C_BYTES / (colsPad * 4);
    uint64_t workers = coreNum / 2 * 2;
    if (workers < 2) workers = 2;
    uint64_t wanted = CeilDiv(workers, batch);  // chunks per product that would give every vector core one
    uint64_t perChunk = CeilDiv(CeilDiv(m, wanted), 16) * 16;
    if (baseM > perChunk) baseM = perChunk;
    baseM = baseM / 16 * 16;
    if (baseM < 16) return false;
    uint64_t db = colsPad <= 512 ? 2 : 1;
    uint64_t baseK = L0A_BYTES / db / (baseM * size);
    if (baseK > L0B_BYTES / db / (colsPad * size)) baseK = L0B_BYTES / db / (colsPad * size);
    if (baseK > CeilDiv(k, kAlign) * kAlign) baseK = CeilDiv(k, kAlign) * kAlign;
    baseK = baseK / kAlign * kAlign;
    if (baseK < kAlign) return false;
    uint64_t kBlocks = CeilDiv(k, baseK);
    uint64_t stepK = L1_BYTES / (2 * (baseM + colsPad) * baseK * size);
    if (stepK > kBlocks) stepK = kBlocks;
    if (stepK < 1) return false;
    uint64_t depth = stepK * (kBlocks > stepK ? 2 : 1);
    uint64_t singleM = CeilDiv(CeilDiv(m, wanted), baseM) * baseM;
    if (singleM < baseM) singleM = baseM;
    if (singleM > CeilDiv(m, baseM) * baseM) singleM = CeilDiv(m, baseM) * baseM;
    uint64_t chunks = CeilDiv(m, singleM);
    uint64_t units = batch * chunks;
    uint64_t perWorker = CeilDiv(units, workers);
    uint64_t blocks = CeilDiv(CeilDiv(units, perWorker), 2);
    t->batch = static_cast<uint32_t>(batch);
    t->mSize = static_cast<uint32_t>(m);
    t->cols = static_cast<uint32_t>(n);
    t->kSize = static_cast<uint32_t>(k);
    t->colsPad = static_cast<uint32_t>(colsPad);
    t->cPitch = static_cast<uint32_t>(CeilDiv(n, 32 / sizeof(CType)) * (32 / sizeof(CType)));
    t->rowsPerTile = static_cast<uint32_t>(rowsPerTile < baseM ? rowsPerTile : baseM);
    t->mChunks = static_cast<uint32_t>(chunks);
    t->units = static_cast<uint32_t>(units);
    t->unitsPerWorker = static_cast<uint32_t>(perWorker);
    t->invCols = 1.0f / static_cast<float>(n);
    TCubeTiling& c = t->cube;
    c.usedCoreNum = static_cast<int32_t>(blocks);
    c.M = static_cast<int32_t>(m);
    c.N = static_cast<int32_t>(n);
    c.Ka = static_cast<int32_t>(k);
    c.Kb = static_cast<int32_t>(k);
    c.singleCoreM = static_cast<int32_t>(singleM);
    c.singleCoreN = static_cast<int32_t>(n);
    c.singleCoreK = static_cast<int32_t>(k);
    c.baseM = static_cast<int32_t>(baseM);
    c.baseN = static_cast<int32_t>(colsPad);
    c.baseK = static_cast<int32_t>(baseK);
    c.depthA1 = static_cast<int32_t>(depth);
    c.depthB1 = static_cast<int32_t>(depth);
    c.stepM = 1;
    c.stepN = 1;
    c.stepKa = static_cast<int32_t>(stepK);
    c.stepKb = static_cast<int32_t>(stepK);
    c.isBias = 0;
    c.iterateOrder = 0;
    c.dbL0A = static_cast<int32_t>(db);
    c.dbL0B = static_cast<int32_t>(db);
    c.dbL0C = 1;
    c.shareL1Size = static_cast<int32_t>(depth * (baseM + colsPad) * baseK * size);
    c.shareL0CSize = static_cast<int32_t>(baseM * colsPad * 4);
    return true;
}

// Host side: batch, m and n from the product's full shape (its leading BATCH_DIMS dims are the batch, the rest but
// the last its rows), k from K_TENSOR; units of singleCoreM rows spread over the vector cores, two per block.
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, const int64_t* dims,
                                     TilingData* tiling, uint64_t* workspaceBytes)
{
    if (tensorCount <= SHAPE_TENSOR || tensorCount <= K_TENSOR) return 0;
    const int64_t* shape = TensorDims(ranks, dims, SHAPE_TENSOR);
    int32_t rank = ranks[SHAPE_TENSOR];
    if (rank < 1 || rank <= BATCH_DIMS) return 0;
    uint64_t batch = 1, rows = 1;
    for (int32_t d = 0; d < rank - 1; ++d) {
        rows *= static_cast<uint64_t>(shape[d]);
        if (d < BATCH_DIMS) batch *= static_cast<uint64_t>(shape[d]);
    }
    uint64_t n = static_cast<uint64_t>(shape[rank - 1]);
    uint64_t k = K_TENSOR >= 0 ? static_cast<uint64_t>(TensorDims(ranks, dims, K_TENSOR)[K_DIM])
                               : static_cast<uint64_t>(K_CONSTANT);
    if (batch == 0 || rows == 0 || n == 0 || k == 0 || rows > 0x7FFFFFFFull) return 0;
    TilingData filled = {};
    if (!FillCubeTiling(&filled, batch, rows / batch, n, k, coreNum)) return 0;
    *tiling = filled;
    *workspaceBytes = SYS_WORKSPACE_BYTES;
    return static_cast<uint32_t>(filled.cube.usedCoreNum);
}

extern "C" __global__ __aicore__ void ascendgen_kernel(
    // <<entry_params
    GM_ADDR x0, GM_ADDR x1, GM_ADDR out0,
    // >>entry_params
    GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    SetSysWorkspace(workspace);
    if (GetSysWorkSpacePtr() == nullptr) return;
    MatmulEpilogueKernel op;
    REGIST_MATMUL_OBJ(&op.pipe_, GetSysWorkSpacePtr(), op.mm, &t.cube);
    op.Init(
        // <<entry_args
        x0, x1, out0,
        // >>entry_args
        t);
    op.Process();
}
