#include "transforms/pass_list.h"

#include "transforms/quantized_view.h"
#include "util/logging.h"

namespace gld {

const std::vector<Pass>& DefaultPasses() {
  // Folding first: it turns weight-producing nodes into constants, which the
  // later passes (and the partitioner) then see as plain weights.
  static const std::vector<Pass> passes = {
      {"fuse_composites", FuseComposites},  // first: the composites that run as one op of the library's
      {"inline_composites", InlineComposites},  // the others: the later passes see their ops
      {"quantized_float_view", QuantizedFloatView},  // later passes see a float graph
      {"fold_constant_densify", FoldConstantDensify},  // before DEQUANTIZE: sparse fp16 -> dense fp16
      {"fold_constant_dequantize", FoldConstantDequantize},
      {"remove_dead_nodes", RemoveDeadNodes},
      // Rewrites of the float graph; each keeps results within fp32 rounding.
      // Rank-5/6 chains as rank <= 4 ones (PyTorch's reshape/permute idioms).
      {"transpose_to_rank4", TransposeToRank4},
      {"slice_to_rank4", SliceToRank4},
      {"concat_gather_nd_to_rank4", ConcatGatherNdToRank4},
      {"fully_connected_to_rank4", FullyConnectedToRank4},
      {"keep_reduced_dims", KeepReducedDims},  // before remove_noops: its RESHAPEs back become identities
      // Per-channel ops out of NCW views (BatchNorm1d): then the layout pairs cancel.
      {"elementwise_before_layout", ElementwiseBeforeLayout},
      {"merge_reshapes", MergeReshapes},
      {"merge_transposes", MergeTransposes},
      {"remove_noops", RemoveNoops},
      {"repeat_as_resize", RepeatAsResize},  // rank-5 RESHAPE/TILE upsampling -> 4-D resize
      {"grouped_conv_as_depthwise", GroupedConvAsDepthwise},  // before the passes that match depthwise layers
      {"dilated_conv", DilatedConv},  // before merge_pad: both set explicit padding
      {"merge_pad", MergePad},
      {"fold_mul_add_into_conv", FoldMulAddIntoConv},
      {"fuse_activation", FuseActivation},  // after folding: a MUL/ADD's activation may move to the layer
      // Transformer patterns: the converter's layer norm and rotary embedding
      // chains as one node each.
      {"fuse_layer_norm", FuseLayerNorm},
      {"fuse_rotary_embedding", FuseRotaryEmbedding},
      {"conv_to_fully_connected", ConvToFullyConnected},  // last: folding and fusion see one CONV_2D form
      {"release_unused_constants", ReleaseUnusedConstants},
  };
  return passes;
}

const std::vector<Pass>& CpuIntegerPasses() {
  static const std::vector<Pass> passes = {
      {"inline_composites", InlineComposites},
      {"integer_view", CpuIntegerView},
      {"fold_constant_densify", FoldConstantDensify},
      {"fold_constant_dequantize", FoldConstantDequantize},
      {"remove_dead_nodes", RemoveDeadNodes},
      {"release_unused_constants", ReleaseUnusedConstants},
  };
  return passes;
}

bool HasQuantizedActivations(const Graph& graph) {
  for (const Tensor& t : graph.tensors) {
    if (quantized_view::IsQuantizedActivation(t)) return true;
  }
  return false;
}

Status RunPasses(Graph& graph, const std::vector<Pass>& passes, PassLog& log, PhaseTimes* phases,
                 const std::string& prefix) {
  for (const Pass& pass : passes) {
    size_t before = log.lines.size();
    const auto start = PhaseTimes::Clock::now();
    Status s = pass.run(graph, log);
    if (phases != nullptr) phases->Add(prefix + pass.name, PhaseTimes::MicrosSince(start));
    if (!s.ok()) return s.WithContext(std::string("pass ") + pass.name);
    Log().debug("pass {}: {} change(s), {} nodes left", pass.name, log.lines.size() - before, graph.nodes.size());
  }
  return OkStatus();
}

}  // namespace gld
