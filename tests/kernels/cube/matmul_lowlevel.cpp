// C = A x B with the cube instructions alone (DataCopy Nd2Nz to L1, LoadData to L0A/L0B, Mmad accumulating over K,
// Fixpipe NZ -> ND to GM). Block b computes the (b / nTiles, b % nTiles) tile of baseM x baseN; tails anywhere.
// mode: 0 half -> float, 1 half -> half (F322F16), 2 bfloat16 -> float (B loaded with LoadDataWithTranspose),
// 3 int8 -> int32 (LoadDataWithTranspose), 4 float with B given transposed (N x K) -> float, 5 int8 -> half
// (DEQF16, scale bits in `scale`), 6 half -> float with ReLU, 7 int8 -> half with a scale per column (VDEQF16: the
// uint64_t scales copied from `scales` into L1 for the Fixpipe).
#include "kernel_operator.h"
using namespace AscendC;

template <typename In, typename Out, typename Acc>
class CubeMatmul {
public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR scales, uint32_t mode, uint32_t m,
                                uint32_t n, uint32_t k, uint32_t baseM, uint32_t baseN, uint32_t baseK, uint32_t scale)
    {
        scaleGm.SetGlobalBuffer((__gm__ uint64_t*)scales);
        if (mode == 7) pipe.InitBuffer(scaleBuf, Up(baseN, 4) * sizeof(uint64_t));
        mode_ = mode; M = m; N = n; K = k; bm = baseM; bn = baseN; bk = baseK; scale_ = scale;
        aGm.SetGlobalBuffer((__gm__ In*)a);
        bGm.SetGlobalBuffer((__gm__ In*)b);
        cGm.SetGlobalBuffer((__gm__ Out*)c);
        uint32_t align = 32;  // rows rounded up to 32 cover every dtype's fractals and squares
        pipe.InitBuffer(qA1, 1, Up(bm, align) * Up(bk, align) * sizeof(In));
        pipe.InitBuffer(qB1, 1, Up(bk, align) * Up(bn, align) * sizeof(In));
        pipe.InitBuffer(qA2, 1, Up(bm, align) * Up(bk, align) * sizeof(In));
        pipe.InitBuffer(qB2, 1, Up(bk, align) * Up(bn, align) * sizeof(In));
        pipe.InitBuffer(qCO1, 1, Up(bm, 16) * Up(bn, 32) * sizeof(Acc));
    }

    __aicore__ inline void Process()
    {
        uint32_t nTiles = (N + bn - 1) / bn;
        uint32_t mTiles = (M + bm - 1) / bm;
        for (uint32_t tile = GetBlockIdx(); tile < mTiles * nTiles; tile += GetBlockNum()) {
            m0 = tile / nTiles * bm; n0 = tile % nTiles * bn;
            mCur = Min(bm, M - m0); nCur = Min(bn, N - n0);
            LocalTensor<Acc> c1 = qCO1.AllocTensor<Acc>();
            for (uint32_t k0 = 0; k0 < K; k0 += bk) {
                kCur = Min(bk, K - k0);
                CopyIn(k0);
                SplitA();
                SplitB();
                Compute(c1, k0 == 0);
            }
            qCO1.EnQue(c1);
            CopyOut();
        }
    }

private:
    static constexpr uint32_t C0 = 32 / sizeof(In);
    static __aicore__ inline uint32_t Up(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }
    static __aicore__ inline uint32_t Min(uint32_t x, uint32_t y) { return x < y ? x : y; }
    bool TransposedB() const { return mode_ == 4; }
    // rows of B's strips in L1: k (or n for a transposed B) rounded up to a whole square of the transposing load
    uint32_t KAlignB() const { return Up(kCur, sizeof(In) == 1 ? 32 : 16); }
    // int8: B's squares are 32 columns wide, so B2 (and C) hold whole squares; Fixpipe drops the extra columns
    uint32_t MmadN() const { return sizeof(In) == 1 ? Up(nCur, 32) : nCur; }

    __aicore__ inline void CopyIn(uint32_t k0)
    {
        LocalTensor<In> a1 = qA1.AllocTensor<In>();
        LocalTensor<In> b1 = qB1.AllocTensor<In>();
        Nd2NzParams pa;
        pa.ndNum = 1; pa.nValue = mCur; pa.dValue = kCur; pa.srcNdMatrixStride = 0; pa.srcDValue = K;
        // one row (GEMV: Mmad reads L0A as ND when m = 1): the strips one block apart make the row contiguous
        pa.dstNzC0Stride = mCur == 1 ? 1 : Up(mCur, 16); pa.dstNzNStride = 1; pa.dstNzMatrixStride = 0;
        DataCopy(a1, aGm[m0 * K + k0], pa);
        Nd2NzParams pb;
        pb.ndNum = 1; pb.srcNdMatrixStride = 0; pb.dstNzNStride = 1; pb.dstNzMatrixStride = 0;
        if (TransposedB()) {  // B^T is N x K: its NZ strips are already B's ZN fractals
            pb.nValue = nCur; pb.dValue = kCur; pb.srcDValue = K; pb.dstNzC0Stride = Up(nCur, 16);
            DataCopy(b1, bGm[n0 * K + k0], pb);
        } else {
            pb.nValue = kCur; pb.dValue = nCur; pb.srcDValue = N; pb.dstNzC0Stride = KAlignB();
            DataCopy(b1, bGm[k0 * N + n0], pb);
        }
        qA1.EnQue(a1);
        qB1.EnQue(b1);
    }

    __aicore__ inline void SplitA()
    {
        LocalTensor<In> a1 = qA1.DeQue<In>();
        LocalTensor<In> a2 = qA2.AllocTensor<In>();
        uint32_t mBlocks = Up(mCur, 16) / 16, kBlocks = Up(kCur, C0) / C0;
        LoadData2DParams p;
        if (mCur == 1) {
            p.repeatTimes = Up(kCur * sizeof(In), 512) / 512; p.srcStride = 1;
            LoadData(a2, a1, p);
        } else {
            p.repeatTimes = mBlocks; p.srcStride = 1; p.dstGap = kBlocks - 1; p.ifTranspose = false;
            for (uint32_t kb = 0; kb < kBlocks; ++kb)
                LoadData(a2[kb * 16 * C0], a1[kb * Up(mCur, 16) * C0], p);
        }
        qA2.EnQue(a2);
        qA1.FreeTensor(a1);
    }

    __aicore__ inline void SplitB()
    {
        LocalTensor<In> b1 = qB1.DeQue<In>();
        LocalTensor<In> b2 = qB2.AllocTensor<In>();
        uint32_t nBlocks = Up(MmadN(), 16) / 16, kBlocks = Up(kCur, C0) / C0;
        if (TransposedB()) {
            LoadData2DParams p;
            p.repeatTimes = kBlocks * nBlocks; p.srcStride = 1;
            LoadData(b2, b1, p);
        } else if (sizeof(In) == 2 && mode_ != 2) {  // half: LoadData 2D transposing each 16 x 16 fractal
            LoadData2DParams p;
            p.repeatTimes = nBlocks; p.srcStride = KAlignB() / 16; p.ifTranspose = true;
            for (uint32_t kb = 0; kb < kBlocks; ++kb) LoadData(b2[kb * nBlocks * 256], b1[kb * 256], p);
        } else {  // bfloat16 (one 16 x 16 square) and int8 (a 32 x 32 square of two fractals): LoadDataWithTranspose
            uint32_t squareCols = sizeof(In) == 1 ? 32 : 16;
            uint32_t fractalsPerSquare = squareCols / 16;
            LoadData2dTransposeParams p;
            p.repeatTimes = kBlocks; p.srcStride = 1; p.dstGap = nBlocks - 1; p.dstFracGap = 0;
            for (uint32_t ns = 0; ns < Up(nCur, squareCols) / squareCols; ++ns)
                LoadDataWithTranspose(b2[ns * fractalsPerSquare * 16 * C0], b1[ns * KAlignB() * C0], p);
        }
        qB2.EnQue(b2);
        qB1.FreeTensor(b1);
    }

    __aicore__ inline void Compute(LocalTensor<Acc>& c1, bool first)
    {
        LocalTensor<In> a2 = qA2.DeQue<In>();
        LocalTensor<In> b2 = qB2.DeQue<In>();
        MmadParams p;
        p.m = mCur; p.n = MmadN(); p.k = kCur; p.cmatrixInitVal = first;
        Mmad(c1, a2, b2, p);
        qA2.FreeTensor(a2);
        qB2.FreeTensor(b2);
    }

    __aicore__ inline void CopyOut()
    {
        LocalTensor<Acc> c1 = qCO1.DeQue<Acc>();
        FixpipeParamsV220 p;
        p.nSize = nCur; p.mSize = mCur; p.srcStride = Up(mCur, 16); p.dstStride = N; p.ndNum = 1;
        if (mode_ == 1) p.quantPre = QuantMode_t::F322F16;
        if (mode_ == 5) { p.quantPre = QuantMode_t::DEQF16; p.deqScalar = scale_; }
        p.reluEn = mode_ == 6;
        if (mode_ == 7) {
            p.quantPre = QuantMode_t::VDEQF16;
            LocalTensor<uint64_t> scales = scaleBuf.Get<uint64_t>();
            DataCopy(scales, scaleGm[n0], Up(nCur, 4));
            SetFlag<HardEvent::MTE2_FIX>(0);
            WaitFlag<HardEvent::MTE2_FIX>(0);
            Fixpipe(cGm[m0 * N + n0], c1, scales, p);
            SetFlag<HardEvent::FIX_MTE2>(0);  // the next tile's scales overwrite these
            WaitFlag<HardEvent::FIX_MTE2>(0);
        } else {
            Fixpipe(cGm[m0 * N + n0], c1, p);
        }
        qCO1.FreeTensor(c1);
    }

    TPipe pipe;
    TQue<TPosition::A1, 1> qA1;
    TQue<TPosition::B1, 1> qB1;
    TQue<TPosition::A2, 1> qA2;
    TQue<TPosition::B2, 1> qB2;
    TQue<TPosition::CO1, 1> qCO1;
    TBuf<TPosition::C1> scaleBuf;
    GlobalTensor<uint64_t> scaleGm;
    GlobalTensor<In> aGm, bGm;
    GlobalTensor<Out> cGm;
    uint32_t mode_, M, N, K, bm, bn, bk, scale_;
    uint32_t m0 = 0, n0 = 0, mCur = 0, nCur = 0, kCur = 0;
};

template <typename In, typename Out, typename Acc>
__aicore__ inline void Run(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR scales, uint32_t mode, uint32_t m, uint32_t n,
                           uint32_t k, uint32_t baseM, uint32_t baseN, uint32_t baseK, uint32_t scale)
{
    CubeMatmul<In, Out, Acc> op;
    op.Init(a, b, c, scales, mode, m, n, k, baseM, baseN, baseK, scale);
    op.Process();
}

extern "C" __global__ __aicore__ void cube_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR scales, uint32_t mode,
                                                  uint32_t m, uint32_t n, uint32_t k, uint32_t baseM, uint32_t baseN,
                                                  uint32_t baseK, uint32_t scale)
{
    switch (mode) {
        case 0: case 6: Run<half, float, float>(a, b, c, scales, mode, m, n, k, baseM, baseN, baseK, scale); break;
        case 1: Run<half, half, float>(a, b, c, scales, mode, m, n, k, baseM, baseN, baseK, scale); break;
        case 2: Run<bfloat16_t, float, float>(a, b, c, scales, mode, m, n, k, baseM, baseN, baseK, scale); break;
        case 3: Run<int8_t, int32_t, int32_t>(a, b, c, scales, mode, m, n, k, baseM, baseN, baseK, scale); break;
        case 4: Run<float, float, float>(a, b, c, scales, mode, m, n, k, baseM, baseN, baseK, scale); break;
        case 5: case 7: Run<int8_t, half, int32_t>(a, b, c, scales, mode, m, n, k, baseM, baseN, baseK, scale); break;
        default: break;
    }
}
