#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);  // elements of x, y and z
  TILING_DATA_FIELD_DEF(uint32_t, coreLength);   // elements per core (a multiple of 32 bytes); the last core has less
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);   // elements per UB tile (a multiple of 32 bytes)
  TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
}  // namespace optiling
#endif  // ADD_CUSTOM_TILING_H
