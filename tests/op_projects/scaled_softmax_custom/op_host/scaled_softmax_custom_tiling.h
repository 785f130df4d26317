#ifndef SCALED_SOFTMAX_CUSTOM_TILING_H
#define SCALED_SOFTMAX_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowSplit)
  TILING_DATA_FIELD_DEF(uint32_t, formerNum);   // cores that take formerRows rows
  TILING_DATA_FIELD_DEF(uint32_t, formerRows);
  TILING_DATA_FIELD_DEF(uint32_t, tailRows);    // rows of each remaining core
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(RowSplitOp, RowSplit)

BEGIN_TILING_DATA_DEF(ScaledSoftmaxTilingData)
  TILING_DATA_FIELD_DEF_ARR(uint32_t, 2, shape);  // rows, cols
  TILING_DATA_FIELD_DEF(uint32_t, colsAligned);   // cols rounded up to 32 bytes
  TILING_DATA_FIELD_DEF(float, scale);
  TILING_DATA_FIELD_DEF(uint8_t, logMode);
  TILING_DATA_FIELD_DEF_STRUCT(RowSplit, split);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaledSoftmaxCustom, ScaledSoftmaxTilingData)
}
#endif
