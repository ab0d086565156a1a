// gldelegate inside TFLite's own interpreter (a TfLiteDelegate).
//
// Prepare (TfLiteDelegate::Prepare, from ModifyGraphWithDelegate) reads the
// execution plan through the TfLiteContext into the IR
// (delegate/tflite_graph.h), runs the runtime's passes over it, asks the
// backend of the options which nodes it runs (the GL backend's support
// query, or the CPU kernels for backend cpu) and hands those nodes to
// ReplaceNodeSubsetsWithDelegateKernels; nodes the passes folded or fused
// away go with the nodes that took them over. TFLite cuts them into
// partitions; each partition's kernel builds a Runtime over its nodes (the
// same path as gld::Interpreter: PrepareGraph, partition, GL segments from
// PlanSegment and GlSegment), uploads its inputs from the TFLite tensors and
// downloads its outputs into them, and plans again when TFLite resizes an
// input (its prepare is called again). Errors reach TFLite as kTfLiteError
// with the message through context->ReportError.
#pragma once

#include <atomic>
#include <map>
#include <memory>

#include "gldelegate/types.hpp"
#include "graph/graph.h"
#include "model/tflite_abi.h"

namespace gld::delegate {

class GlTfLiteDelegate {
 public:
  explicit GlTfLiteDelegate(Options options);
  GlTfLiteDelegate(const GlTfLiteDelegate&) = delete;
  GlTfLiteDelegate& operator=(const GlTfLiteDelegate&) = delete;

  TfLiteDelegate* tflite() { return &delegate_; }
  const Options& options() const { return options_; }
  // The delegate behind a TfLiteDelegate this class made; null otherwise.
  static GlTfLiteDelegate* From(TfLiteDelegate* delegate);

  // The IR nodes of the last Prepare, by TFLite node index, which its
  // partitions' kernels copy when TFLite makes them (inside Prepare).
  void set_chosen_nodes(std::map<int, Node> nodes) { chosen_ = std::move(nodes); }
  const Node* chosen_node(int tflite_node) const;
  // GldTfLiteDelegateCancel's flag, read by every partition's Runtime: set,
  // it ends the partition invoke running now (each clears it as it starts).
  const std::shared_ptr<std::atomic<bool>>& cancel_flag() const { return cancel_; }

 private:
  TfLiteDelegate delegate_;
  Options options_;
  std::map<int, Node> chosen_;
  std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace gld::delegate
