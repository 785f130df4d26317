#ifndef ADD_N_CUSTOM_TILING_H
#define ADD_N_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddNTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, tensorNum);
  TILING_DATA_FIELD_DEF(uint32_t, blockLength);
  TILING_DATA_FIELD_DEF(uint32_t, lastBlockLength);
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AddNCustom, AddNTilingData)
}
#endif
