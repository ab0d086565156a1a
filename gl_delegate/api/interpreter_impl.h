// gld::Interpreter's insides, for tests that look below the public API.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "runtime/runtime.h"

namespace gld {

class Interpreter::Impl {
 public:
  // Plans kept for input shapes the interpreter had before (ResizeInput):
  // going back to one of them reuses it. Each holds its host arena and GL
  // segments, so only the most recent few stay.
  static constexpr size_t kKeptShapePlans = 3;

  std::unique_ptr<Runtime> runtime;  // planned for the current input shapes
  std::vector<std::unique_ptr<Runtime>> kept;  // earlier shapes, oldest first
  // ResizeInput's requests, one per input (none: unchanged), until AllocateTensors.
  std::vector<std::optional<std::vector<int>>> pending;
  std::vector<TensorInfo> inputs, outputs;
  // Model file indices of the inputs and outputs (TensorInfo::index).
  std::vector<int> input_file_index, output_file_index;
  // The current runtime's report, copied so that report()'s reference stays
  // valid across resizes.
  InterpreterReport report;
  // The runtimes' cancel flag (Runtime::cancel_flag), the same for every
  // runtime of this interpreter: Cancel reaches it without touching
  // `runtime`, which another thread may be replacing.
  std::shared_ptr<std::atomic<bool>> cancel;

  // Points inputs, outputs and report at `runtime`'s (after a resize).
  void Describe();
  bool HasPending() const;
  // After an invoke with dynamic tensors: the outputs' shapes it made.
  void DescribeDynamicOutputs();
};

}  // namespace gld
