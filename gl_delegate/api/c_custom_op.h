// What the C API, the custom-op library loader and the TFLite delegate's C
// entry share: the GldOptions wrapper, the C API's last error, and C custom
// ops (GldCustomOp) adapted to gld::CustomOp.
#pragma once

#include "gldelegate/custom_op.hpp"
#include "gldelegate/gldelegate.h"

struct GldOptions {
  gld::Options options;
};

namespace gld {

// Registers a copy of the C op `op` on `options` (RegisterCustomOp's checks).
Status AddCCustomOp(Options* options, const GldCustomOp& op);

// Sets what GldLastErrorMessage() returns on this thread (a failed `s`).
void SetCLastError(const Status& s);

}  // namespace gld
