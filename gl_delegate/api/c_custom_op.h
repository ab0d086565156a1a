// What the C API and the custom-op library loader share: the GldOptions
// wrapper, and C custom ops (GldCustomOp) adapted to gld::CustomOp.
#pragma once

#include "gldelegate/custom_op.hpp"
#include "gldelegate/gldelegate.h"

struct GldOptions {
  gld::Options options;
};

namespace gld {

// Registers a copy of the C op `op` on `options` (RegisterCustomOp's checks).
Status AddCCustomOp(Options* options, const GldCustomOp& op);

}  // namespace gld
