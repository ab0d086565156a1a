// The CPU backend's view of a quantized graph: int8/uint8 activations stay
// integers wherever the CPU runs the nodes around them on integers
// (cpu::RunsOnIntegers: its integer kernels, with TFLite's requantization,
// and the ops whose own kernels take integers), and only the other nodes
// get the float view (quantized_float_view.cc's rules: real values in
// float32, results rounded to their grid by a "fake quant" QUANTIZE).
//
// Where the two meet:
//  - a float node whose result an integer node reads (or that is a graph
//    output) writes an unrounded float tensor, and a QUANTIZE turns it into
//    the integer tensor;
//  - a float node that reads an integer tensor reads its float view, which a
//    DEQUANTIZE writes right after the integer tensor is made (after its
//    producer, or first for a graph input).
// With no integer node it is the float view, with the integer graph inputs
// and outputs converted where they are made. An integer node whose own
// kernel moves values (a GATHER from an embedding table, a CONCATENATION
// with a class token) reads an 8-bit copy of a decoded constant.
#include <algorithm>

#include "cpu_kernels/ops/integer_kernels.h"
#include "transforms/pass.h"
#include "transforms/quantized_view.h"

namespace gld {

namespace {

constexpr char kPass[] = "integer_view";

using quantized_view::AddFloatTensor;
using quantized_view::IsQuantizedActivation;
using quantized_view::MakeNode;
using quantized_view::RoundsToGrid;

struct Seams {
  int quantizes = 0, dequantizes = 0, fake_quants = 0;
};

}  // namespace

Status CpuIntegerView(Graph& graph, PassLog& log) {
  const size_t num_tensors = graph.tensors.size();
  bool any = false;
  const std::vector<bool> quantized = quantized_view::MarkQuantizedActivations(graph, &any);
  if (!any) return OkStatus();
  auto valid = [&](int t) { return t >= 0 && static_cast<size_t>(t) < num_tensors; };

  // Which nodes run on integers, and which quantized tensors stay integers:
  // those an integer node makes or reads, the graph's inputs and outputs.
  const size_t num_nodes = graph.nodes.size();
  std::vector<bool> on_ints(num_nodes, false);
  std::vector<bool> touches_quantized(num_nodes, false);
  std::vector<bool> stays_int(num_tensors, false);
  std::vector<bool> float_reader(num_tensors, false);  // a float node reads it
  int integer_nodes = 0;
  for (size_t i = 0; i < num_nodes; ++i) {
    const Node& node = graph.nodes[i];
    bool touches = false;
    for (int t : node.inputs) touches = touches || (valid(t) && quantized[static_cast<size_t>(t)]);
    for (int t : node.outputs) touches = touches || (valid(t) && quantized[static_cast<size_t>(t)]);
    if (!touches) continue;
    touches_quantized[i] = true;
    on_ints[i] = cpu::RunsOnIntegers(graph, node);
    integer_nodes += on_ints[i] ? 1 : 0;
    for (int t : node.inputs) {
      if (!valid(t) || !quantized[static_cast<size_t>(t)]) continue;
      (on_ints[i] ? stays_int : float_reader)[static_cast<size_t>(t)] = true;
    }
    for (int t : node.outputs) {
      if (valid(t) && quantized[static_cast<size_t>(t)] && on_ints[i]) stays_int[static_cast<size_t>(t)] = true;
    }
  }
  for (int t : graph.inputs) {
    if (valid(t) && quantized[static_cast<size_t>(t)]) stays_int[static_cast<size_t>(t)] = true;
  }
  for (int t : graph.outputs) {
    if (valid(t) && quantized[static_cast<size_t>(t)]) stays_int[static_cast<size_t>(t)] = true;
  }
  // The others become their float view; integer tensors float nodes read
  // get one beside them.
  std::vector<int> view(num_tensors, -1);
  for (size_t t = 0; t < num_tensors; ++t) {
    if (!quantized[t]) continue;
    if (!stays_int[t]) {
      graph.tensors[t].type = DataType::kFloat32;
    } else if (float_reader[t]) {
      view[t] = AddFloatTensor(graph, static_cast<int>(t), "/float_view", /*keep_quantization=*/true);
    }
  }

  Seams seams;
  std::vector<Node> nodes;
  nodes.reserve(num_nodes * 2);
  auto add_view = [&](int t) {
    if (view[static_cast<size_t>(t)] < 0) return;
    nodes.push_back(MakeNode(OpType::kDequantize, t, view[static_cast<size_t>(t)]));
    ++seams.dequantizes;
  };
  for (int t : graph.inputs) {
    if (valid(t)) add_view(t);
  }
  for (size_t i = 0; i < num_nodes; ++i) {
    Node node = std::move(graph.nodes[i]);
    std::vector<Node> after;
    std::vector<int> made;
    if (!on_ints[i]) {
      for (int& t : node.inputs) {
        if (valid(t) && view[static_cast<size_t>(t)] >= 0) t = view[static_cast<size_t>(t)];
      }
      for (int& out : node.outputs) {
        if (!valid(out) || !quantized[static_cast<size_t>(out)]) continue;
        const size_t o = static_cast<size_t>(out);
        if (stays_int[o]) {
          // Rounded into the integer tensor by a real QUANTIZE.
          const int unrounded = AddFloatTensor(graph, out, "/unrounded", /*keep_quantization=*/false);
          after.push_back(MakeNode(OpType::kQuantize, unrounded, out));
          ++seams.quantizes;
          made.push_back(out);
          out = unrounded;
        } else if (RoundsToGrid(graph, node, out)) {
          const int unrounded = AddFloatTensor(graph, out, "/unrounded", /*keep_quantization=*/false);
          after.push_back(MakeNode(OpType::kQuantize, unrounded, out));
          ++seams.fake_quants;
          out = unrounded;
        }
      }
    } else {
      for (int out : node.outputs) {
        if (valid(out) && quantized[static_cast<size_t>(out)]) made.push_back(out);
      }
      // An own kernel that moves values reads a decoded 8-bit constant
      // through an 8-bit copy of it (integer kernels take the decoded one).
      if (cpu::FindIntegerKernel(graph, node) == nullptr) {
        for (int& t : node.inputs) {
          if (!valid(t) || !cpu::IsDecodedByteConstant(graph.tensors[static_cast<size_t>(t)])) continue;
          graph.tensors.push_back(cpu::IntegerCopyOf(graph.tensors[static_cast<size_t>(t)]));
          t = static_cast<int>(graph.tensors.size()) - 1;
        }
      }
    }
    nodes.push_back(std::move(node));
    for (Node& n : after) nodes.push_back(std::move(n));
    for (int t : made) add_view(t);
  }
  graph.nodes = std::move(nodes);
  const int touching = static_cast<int>(std::count(touches_quantized.begin(), touches_quantized.end(), true));
  log.Add(kPass, std::to_string(integer_nodes) + " node(s) run on integers, " +
                     std::to_string(touching - integer_nodes) + " in the float view; " + std::to_string(seams.quantizes) +
                     " QUANTIZE and " + std::to_string(seams.dequantizes) +
                     " DEQUANTIZE where they meet the float view, " + std::to_string(seams.fake_quants) +
                     " result(s) of float nodes rounded to their grid");
  return OkStatus();
}

}  // namespace gld
