// The IR from TFLite's interpreter: what a delegate sees through the
// TfLiteContext (the execution plan, each node's registration and options
// struct, the tensors) made into the Graph the model reader would have made
// of the same model. The node mapping is the reader's (model/tflite_ops.h:
// one option parser per op over either source, the same custom-op rules);
// constants are stored as the reader stores them (float16 and quantized
// integers decoded to float32), other constants are read in place.
#pragma once

#include <string>
#include <vector>

#include "gldelegate/status.hpp"
#include "graph/graph.h"
#include "model/tflite_abi.h"

namespace gld::delegate {

// Checks what can be checked of the context against the layout
// model/tflite_abi.h declares (function pointers set, the execution plan's
// size and node indices, every tensor a node names: type, allocation type,
// dims, byte count) and returns the execution plan. FailedPrecondition
// naming what looks wrong, never a crash on a sane host.
StatusOr<std::vector<int>> CheckedExecutionPlan(TfLiteContext* context);

// The IR node of TFLite node `node_index` (source_index = node_index; its
// tensors TFLite's indices); Unimplemented with the reason when the IR
// cannot take it (an op it has no row for, a tensor of a type it lacks, a
// variable). TFLite answers GetNodeAndRegistration only inside the
// delegate's Prepare, so kernels keep the nodes made then.
StatusOr<Node> NodeFromTfLite(TfLiteContext* context, int node_index);

// A graph over some of the context's nodes, its tensors renumbered.
struct ContextGraph {
  Graph graph;
  std::vector<int> tflite_tensor;  // per IR tensor: its TFLite index
};

// The graph of `nodes` (NodeFromTfLite's, in execution order): inputs are
// `inputs` less the constants, outputs `outputs` (TFLite tensor indices),
// tensors as the context holds them now (shapes included).
StatusOr<ContextGraph> BuildContextGraph(TfLiteContext* context, const std::vector<Node>& nodes,
                                         const std::vector<int>& inputs, const std::vector<int>& outputs);

// "[1, 224, 224, 3]" of a TFLite tensor's dims, as a Shape.
Shape TfLiteShape(const TfLiteTensor& tensor);
// TFLite's element type as the IR's; false when the IR has none.
bool FromTfLiteType(TfLiteType type, DataType* out);
// A constant of the model (read-only data TFLite mapped from the file).
bool IsTfLiteConstant(const TfLiteTensor& tensor);

}  // namespace gld::delegate
