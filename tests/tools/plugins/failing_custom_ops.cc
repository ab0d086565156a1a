// A custom-op plugin whose registration fails: it registers an op without a
// name, which the library refuses (tests/tools/custom_ops_tool_test.cc).
#include "gldelegate/gldelegate.h"

namespace {
GldStatus Shape(void*, const GldCustomNode*, GldCustomTensor*) { return GLD_OK; }
GldStatus Run(void*, const GldCustomNode*, void*, const void* const*, void* const*) { return GLD_OK; }
}  // namespace

extern "C" __attribute__((visibility("default"))) GldStatus gld_register_custom_ops(GldOptions* options,
                                                                                     const GldCustomOpApi* api) {
  GldCustomOp op = {};
  op.name = "";
  op.shape = Shape;
  op.run = Run;
  return api->add_custom_op(options, &op);
}
