#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);
  TILING_DATA_FIELD_DEF(uint32_t, blockLength);      // elements of every core but the last (32-byte aligned)
  TILING_DATA_FIELD_DEF(uint32_t, lastBlockLength);  // elements of the last core
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);       // elements per UB tile (32-byte aligned)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, TilingData)
}
#endif // ADD_CUSTOM_TILING_H
