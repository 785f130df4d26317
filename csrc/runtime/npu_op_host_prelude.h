// torch_ascendgen: the head of an operator project's host library for the NPU (torch_ascendgen/targets/npu/
// op_project.py writes the translation unit: this file, the op's op_host/<op>.cpp, then npu_op_host.cpp).
//
// Records the tiling function the OpDef registers: OpAICoreDef::SetTiling(func) ("SetTiling", hiascend.com
// .../ascendcopapi/atlasascendc_api_07_0978.html) is the one documented place an OpDef names it, and the
// driver constructs the OpDef itself (no graph engine, no msopgen registration). The macro is defined after
// CANN's register/op_def_registry.h is included, so only the op's own calls are rewritten; it passes the
// function on unchanged.
#pragma once
#include <cstdint>

#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"

namespace ascendgen_op_host {

using TilingFunction = ge::graphStatus (*)(gert::TilingContext*);

// Internal linkage: several op libraries load into one NPU child, and an inline function's static would be one
// object for all of them (a GNU unique symbol, even under RTLD_LOCAL).
namespace {
TilingFunction recorded_tiling = nullptr;

template <typename Function>
Function remember_tiling(Function function)
{
    recorded_tiling = function;
    return function;
}
}  // namespace

}  // namespace ascendgen_op_host

#define SetTiling(function) SetTiling(::ascendgen_op_host::remember_tiling(function))
