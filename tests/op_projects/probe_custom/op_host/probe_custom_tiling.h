// probe_custom: y = x (+ bias when given) (* scale when given), staged through the user workspace. Its TilingFunc misbehaves on
// request (attribute "mode"), to test how the simulator reports host code that fails.
#ifndef PROBE_CUSTOM_TILING_H
#define PROBE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ProbeTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, length);
  TILING_DATA_FIELD_DEF(uint32_t, hasBias);
  TILING_DATA_FIELD_DEF(int64_t, mode);
  TILING_DATA_FIELD_DEF(uint32_t, coreNumAiv);    // what the platform API reported, for the tests
  TILING_DATA_FIELD_DEF(uint32_t, coreNumAic);
  TILING_DATA_FIELD_DEF(uint64_t, ubSize);
  TILING_DATA_FIELD_DEF(uint32_t, socVersion);
  TILING_DATA_FIELD_DEF(uint32_t, tschBlockDim);
  TILING_DATA_FIELD_DEF(uint32_t, managerCoreNum);
  TILING_DATA_FIELD_DEF(uint32_t, inputInstances);  // 1 without bias, 2 with
  TILING_DATA_FIELD_DEF(float, scaleValue);         // the ValueDepend input's value, read by the tiling
  TILING_DATA_FIELD_DEF(uint32_t, hasScale);
  TILING_DATA_FIELD_DEF(int64_t, dimsSum);          // the ListInt attribute's elements, added up
  TILING_DATA_FIELD_DEF(uint32_t, tagLength);       // the String attribute's length
  TILING_DATA_FIELD_DEF(uint32_t, dimsCount);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ProbeCustom, ProbeTilingData)

BEGIN_TILING_DATA_DEF(HugeTilingData)
  TILING_DATA_FIELD_DEF_ARR(uint8_t, 70000, bytes);
END_TILING_DATA_DEF;
}
#endif
