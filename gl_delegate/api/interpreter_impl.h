// gld::Interpreter's insides, for tests that look below the public API.
#pragma once

#include <memory>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "runtime/runtime.h"

namespace gld {

class Interpreter::Impl {
 public:
  std::unique_ptr<Runtime> runtime;
  std::vector<TensorInfo> inputs, outputs;
};

}  // namespace gld
