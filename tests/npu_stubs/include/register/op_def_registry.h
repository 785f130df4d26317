// STUB for tests (tests/sim/test_npu_op_project.py): ops::OpDef with AICore().SetTiling (the documented
// prototype) and OP_ADD, nothing else. Not CANN's header.
#pragma once
#include "exe_graph/runtime/tiling_context.h"

namespace gert {
struct OpImplRegisterV2 {
    using TilingKernelFunc = uint32_t (*)(TilingContext*);
};
}  // namespace gert

namespace ops {
class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(gert::OpImplRegisterV2::TilingKernelFunc func) { tiling_ = func; return *this; }

private:
    gert::OpImplRegisterV2::TilingKernelFunc tiling_ = nullptr;
};

class OpDef {
public:
    explicit OpDef(const char* type) : type_(type) {}
    OpAICoreDef& AICore() { return aicore_; }

private:
    const char* type_;
    OpAICoreDef aicore_;
};
}  // namespace ops

#define OP_ADD(op_type) [[maybe_unused]] static const char* ascendgen_stub_registered_##op_type = #op_type
