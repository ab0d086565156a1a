// Fully quantized models (int8/uint8 activations) run in float view, as
// TFLite's GPU delegate runs them: every quantized activation tensor becomes a
// float32 tensor holding the real values (its QuantizationParams stay, with
// storage_type naming the integer type of the file), and every op computes in
// float. The model's interface keeps its types: an integer graph input is
// dequantized by a DEQUANTIZE node at the start, an integer graph output is
// quantized by a QUANTIZE node at the end (round half away from zero, clamped
// to the type's range).
//
// LiteRT's integer kernels round each result to its output tensor's grid. So
// that intermediate values stay on the same grid (and results agree with
// LiteRT within one quantization step), a node whose integer kernel computes
// new values writes an unrounded float tensor, and a QUANTIZE node with a
// float32 output ("fake quant": round to the grid, clamp to [qmin, qmax], back
// to real units) produces the original tensor. Nodes that only move values
// (RESHAPE, MAX_POOL_2D, PAD, CONCATENATION with equal parameters, ...) keep
// them on the grid and need no rounding.
#include <algorithm>

#include "graph/quantized_ops.h"
#include "transforms/pass.h"
#include "transforms/quantized_view.h"

namespace gld {

namespace quantized_view {

bool IsQuantizedActivation(const Tensor& t) {
  return !t.is_constant && !t.is_variable && !t.quant.empty() &&
         (t.type == DataType::kInt8 || t.type == DataType::kUInt8 || t.type == DataType::kInt16);
}

std::vector<bool> MarkQuantizedActivations(Graph& graph, bool* any) {
  std::vector<bool> quantized(graph.tensors.size(), false);
  *any = false;
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    quantized[t] = IsQuantizedActivation(graph.tensors[t]);
    if (!quantized[t]) continue;
    *any = true;
    if (graph.tensors[t].quant.storage_type == DataType::kUnknown) {
      graph.tensors[t].quant.storage_type = graph.tensors[t].type;
    }
  }
  return quantized;
}

// A new float32 activation tensor shaped like `like`, appended to the graph.
int AddFloatTensor(Graph& graph, int like, const std::string& suffix, bool keep_quantization) {
  Tensor t;
  const Tensor& src = graph.tensors[static_cast<size_t>(like)];
  t.name = src.name + suffix;
  t.type = DataType::kFloat32;
  t.shape = src.shape;
  t.signature = src.signature;
  if (keep_quantization) t.quant = src.quant;
  graph.tensors.push_back(std::move(t));
  return static_cast<int>(graph.tensors.size()) - 1;
}

Node MakeNode(OpType op, int input, int output) {
  Node n;
  n.op = op;
  n.inputs = {input};
  n.outputs = {output};
  return n;
}

// Replaces reads of tensor `from` by `to` in every node.
void RedirectReads(Graph& graph, int from, int to) {
  for (Node& node : graph.nodes) std::replace(node.inputs.begin(), node.inputs.end(), from, to);
}

// Whether LiteRT's integer kernel for `node` rounds its result to the grid of
// output `out` (true) or only moves values already on that grid (false): the
// latter for value-moving ops whose float inputs all carry the output's
// quantization. Integer inputs (indices, shapes, paddings) do not count.
bool RoundsToGrid(const Graph& graph, const Node& node, int out) {
  if (node.op == OpType::kQuantize || node.op == OpType::kDequantize) return false;  // they round themselves
  if (!MovesValuesOnly(node.op)) return true;
  const QuantizationParams& out_q = graph.tensors[static_cast<size_t>(out)].quant;
  for (int in : node.inputs) {
    if (in < 0 || static_cast<size_t>(in) >= graph.tensors.size()) continue;
    const Tensor& t = graph.tensors[static_cast<size_t>(in)];
    if (t.type != DataType::kFloat32) continue;
    if (t.quant.empty() || !SameQuantization(t.quant, out_q)) return true;  // a requantizing copy
  }
  return false;
}

}  // namespace quantized_view

namespace {
constexpr char kPass[] = "quantized_float_view";
}  // namespace

using namespace quantized_view;  // NOLINT: this file defines them

Status QuantizedFloatView(Graph& graph, PassLog& log) {
  const size_t num_tensors = graph.tensors.size();
  bool any = false;
  const std::vector<bool> quantized = MarkQuantizedActivations(graph, &any);
  if (!any) return OkStatus();

  // Integer graph inputs: the caller's bytes stay integer; a DEQUANTIZE at
  // the start feeds the float view to the nodes that read them.
  std::vector<Node> prologue;
  for (int in : graph.inputs) {
    if (in < 0 || static_cast<size_t>(in) >= num_tensors || !quantized[static_cast<size_t>(in)]) continue;
    const int view = AddFloatTensor(graph, in, "/float_view", /*keep_quantization=*/true);
    RedirectReads(graph, in, view);
    prologue.push_back(MakeNode(OpType::kDequantize, in, view));
    log.Add(kPass, "input " + DescribeTensor(graph, in) + " -> DEQUANTIZE -> " + DescribeTensor(graph, view));
  }

  // Integer graph outputs: the producer writes a float view, which a QUANTIZE
  // at the end turns into the model's integer output.
  std::vector<Node> epilogue;
  std::vector<bool> rounded_by_epilogue(num_tensors, false);
  for (int out : graph.outputs) {
    if (out < 0 || static_cast<size_t>(out) >= num_tensors || !quantized[static_cast<size_t>(out)]) continue;
    if (graph.IsGraphInput(out)) continue;  // passed through unchanged
    const int producer = graph.Producer(out);
    if (producer < 0) continue;
    const int view = AddFloatTensor(graph, out, "/float_view", /*keep_quantization=*/true);
    Node& p = graph.nodes[static_cast<size_t>(producer)];
    std::replace(p.outputs.begin(), p.outputs.end(), out, view);
    RedirectReads(graph, out, view);
    epilogue.push_back(MakeNode(OpType::kQuantize, view, out));
    rounded_by_epilogue[static_cast<size_t>(out)] = true;
    log.Add(kPass, "output " + DescribeTensor(graph, out) + " <- QUANTIZE <- " + DescribeTensor(graph, view));
  }

  // Every other quantized activation becomes its float view.
  for (size_t t = 0; t < num_tensors; ++t) {
    if (!quantized[t] || graph.IsGraphInput(static_cast<int>(t)) || rounded_by_epilogue[t]) continue;
    graph.tensors[t].type = DataType::kFloat32;
  }

  // Rounding after each node whose integer kernel rounds.
  std::vector<Node> nodes;
  nodes.reserve(prologue.size() + graph.nodes.size() * 2 + epilogue.size());
  for (Node& node : prologue) nodes.push_back(std::move(node));
  int rounded = 0;
  for (Node& node : graph.nodes) {
    // CAST reads the stored integers, not the real values: a QUANTIZE of the
    // float view gives them back.
    if (node.op == OpType::kCast && !node.inputs.empty() && node.inputs[0] >= 0) {
      const Tensor& in = graph.tensors[static_cast<size_t>(node.inputs[0])];
      const DataType storage = in.quant.storage_type;
      if (in.type == DataType::kFloat32 && !in.quant.empty() &&
          (storage == DataType::kInt8 || storage == DataType::kUInt8 || storage == DataType::kInt16)) {
        Tensor integers = in;
        integers.name += "/integer";
        integers.type = storage;
        graph.tensors.push_back(std::move(integers));
        const int stored = static_cast<int>(graph.tensors.size()) - 1;
        nodes.push_back(MakeNode(OpType::kQuantize, node.inputs[0], stored));
        node.inputs[0] = stored;
      }
    }
    std::vector<Node> after;
    for (int& out : node.outputs) {
      // Tensors added above are the graph outputs' float views, which the
      // epilogue's QUANTIZE rounds.
      if (out < 0 || static_cast<size_t>(out) >= num_tensors || !quantized[static_cast<size_t>(out)]) continue;
      if (graph.IsGraphInput(out) || !RoundsToGrid(graph, node, out)) continue;
      const int unrounded = AddFloatTensor(graph, out, "/unrounded", /*keep_quantization=*/false);
      after.push_back(MakeNode(OpType::kQuantize, unrounded, out));
      out = unrounded;
      ++rounded;
    }
    nodes.push_back(std::move(node));
    for (Node& n : after) nodes.push_back(std::move(n));
  }
  for (Node& node : epilogue) nodes.push_back(std::move(node));
  graph.nodes = std::move(nodes);
  if (rounded > 0) {
    log.Add(kPass, std::to_string(rounded) + " result(s) rounded to their quantization grid by QUANTIZE (float view)");
  }
  return OkStatus();
}

}  // namespace gld
