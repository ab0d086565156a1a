// gld::Model's insides, shared with the runtime (Interpreter) and tools
// that reach below the public API. Keep this struct stable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "graph/graph.h"
#include "model/tflite_reader.h"

namespace gld {

struct Model::Impl {
  std::vector<uint8_t> bytes;       // the file, as loaded
  Graph graph;                      // as read (before transforms)
  std::vector<TensorInfo> inputs, outputs;
  std::vector<NodeInfo> nodes;      // one per graph node, file order
  std::string description;
  std::string fingerprint;          // XXH3-64 of `bytes`, 16 lowercase hex digits
  TfliteLoadInfo load_info;
};

ElementType ToElementType(DataType type);
DataType FromElementType(ElementType type);

// Public description of an IR tensor (name, type, shape, quantization, bytes).
TensorInfo MakeTensorInfo(const Tensor& tensor);

// XXH3-64 of the bytes as 16 lowercase hex digits.
std::string FingerprintBytes(const void* data, size_t size);

// Parses `bytes` into an Impl (graph, infos, fingerprint); takes the bytes.
StatusOr<std::unique_ptr<Model::Impl>> BuildModelImpl(std::vector<uint8_t> bytes);

}  // namespace gld
