// Reads a .tflite file into the IR.
//
// Hostile input is expected: the flatbuffer is verified first, then every
// index, shape, buffer size and sparse encoding is checked before use, so a
// bad file gives a Status naming the place ("subgraph 0, tensor 17
// 'conv/weights': ...") and never crashes, hangs or allocates without bound.
//
// What the Graph holds after loading:
//  - the tensors of the chosen subgraph, with the file's indices;
//  - constants decoded: FLOAT16 -> float32; INT8/UINT8/INT16/INT32 constants
//    with quantization params -> dequantized float32, keeping the params
//    with storage_type the file's type (the grid the values came from);
//    other constants as stored. Sparse constants keep their compressed
//    values (float32 when stored as FLOAT16) plus Tensor::sparsity, which has
//    been checked for consistency (see ValidateSparsity in the .cc);
//  - one node per operator, in file order, source_index = operator index;
//    attributes as listed in OpAttributesKind (tflite_ops.h);
//  - graph inputs/outputs; when a signature def names them, those names
//    replace the tensor names (in every subgraph a signature runs);
//  - Graph::subgraphs: every other subgraph, for control flow and for the
//    other signatures (Model's signature graphs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gldelegate/status.hpp"
#include "gldelegate/types.hpp"
#include "graph/graph.h"
#include "util/startup_phases.h"

namespace gld {

struct TfliteReaderLimits {
  int max_rank = 16;
  int64_t max_tensor_elements = (int64_t{1} << 31) - 1;
  // Sum over all tensors of elements x element size.
  int64_t max_total_bytes = int64_t{1} << 36;
  // flatbuffers::Verifier limits.
  int max_flatbuffer_depth = 64;
  int max_flatbuffer_tables = 1 << 22;
};

// Facts about the file that are not part of the Graph.
struct TfliteLoadInfo {
  uint32_t schema_version = 0;
  std::string description;
  int subgraph_index = 0;        // the subgraph that was loaded
  std::string subgraph_name;
  std::string signature_key;     // of the signature naming the loaded subgraph
  std::vector<SignatureInfo> signatures;  // every signature of the file, in file order
  std::vector<int> signature_subgraphs;   // the subgraph each signature runs
  // Per node: the op code's version.
  std::vector<int> op_versions;
  std::vector<std::string> metadata_names;
  // What the Graphs keep of the file's constant buffers: the buffers' byte
  // ranges in the file (offset, bytes; in no order, may repeat) and the
  // blocks they were copied or decoded into (one per subgraph with
  // constants, in subgraph order: each the block's bytes, its padding
  // zeroed). A fingerprint of the model need not read the buffers at load.
  std::vector<std::pair<uint64_t, uint64_t>> constant_ranges;
  std::vector<std::pair<std::shared_ptr<const uint8_t[]>, uint64_t>> constant_blocks;
  // What reading took: "verify the flatbuffer", "read the subgraphs",
  // "copy and decode the constants", "check the subgraphs".
  PhaseTimes phases;
};

// How the reader stores a constant, for other sources of TFLite tensors (the
// TFLite delegate) to store theirs alike: float16 constants and integer ones
// with quantization parameters decode to float32.
bool TfliteConstantDecodesToFloat(const Tensor& t);
// Decodes the `stored` values in `bytes` bytes at `data` (of t's type and
// quantization) into `out`, then makes `t` float32 without quantization.
void DecodeTfliteConstant(const uint8_t* data, size_t bytes, int64_t stored, Tensor& t, float* out);

StatusOr<Graph> ReadTfliteModel(const uint8_t* data, size_t size,
                                TfliteLoadInfo* info = nullptr,
                                const TfliteReaderLimits& limits = {});

}  // namespace gld
