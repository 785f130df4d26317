// Every counted instruction, with the cost class the cost model prices it by.
#pragma once
#include "launch_abi.h"

namespace ascendc_sim {

// Cost classes (see cost_model.h): Simple runs one repeat per cycle; Long ops (divide, square
// root, exp, log) take several; Reduce ops add a tree of partial results; Composite ops are
// high-level APIs priced as the basic instructions they expand to.
enum class CostClass { Simple, Long, Reduce, Move, Composite };

#define ASCENDC_SIM_OPS(X)                       \
    X(Add, "Add", Simple)                        \
    X(Sub, "Sub", Simple)                        \
    X(Mul, "Mul", Simple)                        \
    X(Div, "Div", Long)                          \
    X(Max, "Max", Simple)                        \
    X(Min, "Min", Simple)                        \
    X(Adds, "Adds", Simple)                      \
    X(Muls, "Muls", Simple)                      \
    X(Maxs, "Maxs", Simple)                      \
    X(Mins, "Mins", Simple)                      \
    X(LeakyRelu, "LeakyRelu", Simple)            \
    X(Exp, "Exp", Long)                          \
    X(Ln, "Ln", Long)                            \
    X(Abs, "Abs", Simple)                        \
    X(Sqrt, "Sqrt", Long)                        \
    X(Rsqrt, "Rsqrt", Long)                      \
    X(Reciprocal, "Reciprocal", Long)            \
    X(Relu, "Relu", Simple)                      \
    X(Not, "Not", Simple)                        \
    X(And, "And", Simple)                        \
    X(Or, "Or", Simple)                          \
    X(Duplicate, "Duplicate", Simple)            \
    X(Cast, "Cast", Simple)                      \
    X(Compare, "Compare", Simple)                \
    X(CompareScalar, "CompareScalar", Simple)    \
    X(Select, "Select", Simple)                  \
    X(ReduceSum, "ReduceSum", Reduce)            \
    X(ReduceMax, "ReduceMax", Reduce)            \
    X(ReduceMin, "ReduceMin", Reduce)            \
    X(WholeReduceSum, "WholeReduceSum", Reduce)  \
    X(WholeReduceMax, "WholeReduceMax", Reduce)  \
    X(WholeReduceMin, "WholeReduceMin", Reduce)  \
    X(BlockReduceSum, "BlockReduceSum", Simple)  \
    X(BlockReduceMax, "BlockReduceMax", Simple)  \
    X(BlockReduceMin, "BlockReduceMin", Simple)  \
    X(PairReduceSum, "PairReduceSum", Simple)    \
    X(Sin, "Sin", Composite)                     \
    X(Cos, "Cos", Composite)                     \
    X(Tan, "Tan", Composite)                     \
    X(Asin, "Asin", Composite)                   \
    X(Acos, "Acos", Composite)                   \
    X(Atan, "Atan", Composite)                   \
    X(Sinh, "Sinh", Composite)                   \
    X(Cosh, "Cosh", Composite)                   \
    X(Erf, "Erf", Composite)                     \
    X(Erfc, "Erfc", Composite)                   \
    X(Floor, "Floor", Composite)                 \
    X(Ceil, "Ceil", Composite)                   \
    X(Round, "Round", Composite)                 \
    X(Trunc, "Trunc", Composite)                 \
    X(Frac, "Frac", Composite)                   \
    X(Log2, "Log2", Composite)                   \
    X(Log10, "Log10", Composite)                 \
    X(Sign, "Sign", Composite)                   \
    X(Power, "Power", Composite)                 \
    X(ClampMax, "ClampMax", Composite)           \
    X(ClampMin, "ClampMin", Composite)           \
    X(Xor, "Xor", Composite)                     \
    X(ShiftLeft, "ShiftLeft", Simple)            \
    X(ShiftRight, "ShiftRight", Simple)          \
    X(Sigmoid, "Sigmoid", Composite)             \
    X(Tanh, "Tanh", Composite)                   \
    X(Gelu, "Gelu", Composite)                   \
    X(Silu, "Silu", Composite)                   \
    X(Axpy, "Axpy", Simple)                      \
    X(Brcb, "Brcb", Simple)                      \
    X(InitGlobalMemory, "InitGlobalMemory", Move) \
    X(Gather, "Gather", Simple)                  \
    X(GatherMask, "GatherMask", Simple)          \
    X(Broadcast, "Broadcast", Composite)         \
    X(Scatter, "Scatter", Simple)                \
    X(CopyUB, "DataCopy(UB->UB)", Move)          \
    X(ScalarUB, "UB scalar access", Simple)      \
    X(SetMask, "mask register write", Simple) \
    /* sort, selection, reductions, transpose (sim/sort.h, sim/reduce_pattern.h, sim/transpose.h) */ \
    X(Sort32, "Sort32", Long) \
    X(MrgSort, "MrgSort", Long) \
    X(Sort, "Sort", Composite) \
    X(Extract, "Extract", Simple) \
    X(PatternReduceSum, "ReduceSum<pattern>", Composite) \
    X(PatternReduceMax, "ReduceMax<pattern>", Composite) \
    X(PatternReduceMin, "ReduceMin<pattern>", Composite) \
    X(PatternReduceMean, "ReduceMean<pattern>", Composite) \
    X(PatternReduceProd, "ReduceProd<pattern>", Composite) \
    X(PatternReduceAll, "ReduceAll<pattern>", Composite) \
    X(PatternReduceAny, "ReduceAny<pattern>", Composite) \
    X(Sum, "Sum", Composite) \
    X(Mean, "Mean", Composite) \
    X(Transpose, "Transpose", Simple) \
    X(TransposeExt, "Transpose(TransposeParamsExt)", Composite) \
    X(TopK, "TopK", Composite) \
    X(ReduceXorSum, "ReduceXorSum", Composite) \
    X(TransDataTo5HD, "TransDataTo5HD", Simple) \
    X(ProposalConcat, "ProposalConcat", Simple) \
    X(ProposalExtract, "ProposalExtract", Simple) \
    X(RpSort16, "RpSort16", Long) \
    X(MrgSort4, "MrgSort4", Long) \
    /* high-level activation, normalization, quantization (softmax.h ... glu.h) */ \
    X(SoftMax, "SoftMax", Composite) \
    X(SimpleSoftMax, "SimpleSoftMax", Composite) \
    X(SoftmaxFlash, "SoftmaxFlash", Composite) \
    X(SoftmaxFlashV2, "SoftmaxFlashV2", Composite) \
    X(LogSoftMax, "LogSoftMax", Composite) \
    X(SoftmaxGrad, "SoftmaxGrad", Composite) \
    X(LayerNorm, "LayerNorm", Composite) \
    X(RmsNorm, "RmsNorm", Composite) \
    X(AscendQuant, "AscendQuant", Composite) \
    X(AscendDequant, "AscendDequant", Composite) \
    X(AscendAntiQuant, "AscendAntiQuant", Composite) \
    X(CumSum, "CumSum", Composite) \
    X(Arange, "Arange", Composite) \
    X(Swish, "Swish", Composite) \
    X(SwiGLU, "SwiGLU", Composite) \
    X(GeGLU, "GeGLU", Composite) \
    X(ReGlu, "ReGlu", Composite) \
    X(DeepNorm, "DeepNorm", Composite) \
    X(BatchNorm, "BatchNorm", Composite) \
    X(GroupNorm, "GroupNorm", Composite) \
    /* basic API: fused, scalar and compare forms (fused_ops.h, deq_scale.h, compare_select.h) */ \
    X(AddRelu, "AddRelu", Simple) \
    X(SubRelu, "SubRelu", Simple) \
    X(FusedMulAdd, "FusedMulAdd", Simple) \
    X(FusedMulAddRelu, "FusedMulAddRelu", Simple) \
    X(MulAddDst, "MulAddDst", Simple) \
    X(AddReluCast, "AddReluCast", Simple) \
    X(SubReluCast, "SubReluCast", Simple) \
    X(MulCast, "MulCast", Simple) \
    X(AddDeqRelu, "AddDeqRelu", Simple) \
    X(CastDeq, "CastDeq", Simple) \
    X(SetDeqScale, "SetDeqScale", Simple) \
    X(CompareCmpMask, "Compare(cmpMask)", Simple) \
    X(SetCmpMask, "SetCmpMask", Simple) \
    X(GetCmpMask, "GetCmpMask", Simple) \
    X(CreateVecIndex, "CreateVecIndex", Simple) \
    X(BilinearInterpolation, "BilinearInterpolation", Simple) \
    X(Gatherb, "Gatherb", Simple) \
    X(VecCopy, "Copy", Simple) \
    X(TransData, "TransData", Composite) \
    X(Normalize, "Normalize", Composite) \
    X(WelfordUpdate, "WelfordUpdate", Composite) \
    X(WelfordFinalize, "WelfordFinalize", Composite) \
    X(ExpTaylor, "Exp (high-level)", Composite) \
    X(AxpyPrecise, "Axpy (high-level)", Composite) \
    X(SelectBytesMask, "Select (byte mask)", Composite) \
    X(SoftmaxGradFront, "SoftmaxGradFront", Composite) \
    X(AdjustSoftMaxRes, "AdjustSoftMaxRes", Composite) \
    X(LayerNormGrad, "LayerNormGrad", Composite) \
    X(LayerNormGradBeta, "LayerNormGradBeta", Composite) \
    X(SoftmaxFlashV3, "SoftmaxFlashV3", Composite) \
    /* padint4: Pad / UnPad and ConfusionTranspose with host tiling (sim/pad.h, sim/confusion_transpose.h) */ \
    X(Pad, "Pad", Composite) \
    X(UnPad, "UnPad", Composite) \
    X(ConfusionTranspose, "Transpose(ConfusionTransposeTiling)", Composite)

enum class OpId {
#define ASCENDC_SIM_OP_ENUM(id, name, cls) id,
    ASCENDC_SIM_OPS(ASCENDC_SIM_OP_ENUM)
#undef ASCENDC_SIM_OP_ENUM
        Count
};
static_assert(static_cast<int>(OpId::Count) <= ASCENDC_SIM_MAX_OPS, "raise ASCENDC_SIM_MAX_OPS");

inline const char* op_name(OpId op) {
    static const char* const names[] = {
#define ASCENDC_SIM_OP_NAME(id, name, cls) name,
        ASCENDC_SIM_OPS(ASCENDC_SIM_OP_NAME)
#undef ASCENDC_SIM_OP_NAME
    };
    return names[static_cast<int>(op)];
}

inline CostClass op_cost_class(OpId op) {
    static const CostClass classes[] = {
#define ASCENDC_SIM_OP_CLASS(id, name, cls) CostClass::cls,
        ASCENDC_SIM_OPS(ASCENDC_SIM_OP_CLASS)
#undef ASCENDC_SIM_OP_CLASS
    };
    return classes[static_cast<int>(op)];
}

}  // namespace ascendc_sim
