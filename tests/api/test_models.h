// Small models built with the public ModelBuilder for API tests.
#pragma once

#include <vector>

#include "gldelegate/model_builder.hpp"

namespace gld::testing {

// y = RELU(x + c), x and y float32 [1, 4], c = {1, 1, 1, 1}.
inline std::vector<uint8_t> AddReluModel() {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {1, 4});
  int c = b.AddConstantFloat("c", {1, 4}, {1, 1, 1, 1});
  int s = b.AddTensor("s", ElementType::kFloat32, {1, 4});
  int y = b.AddTensor("y", ElementType::kFloat32, {1, 4});
  Status st = b.AddOp("ADD", {x, c}, {s});
  if (st.ok()) st = b.AddOp("RELU", {s}, {y});
  b.SetOutputs({y});
  auto bytes = b.Finish();
  if (!st.ok() || !bytes.ok()) return {};
  return std::move(bytes).value();
}

}  // namespace gld::testing
