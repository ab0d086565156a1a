#include "graph/quantized_ops.h"

namespace gld {

bool MovesValuesOnly(OpType op) {
  switch (op) {
    case OpType::kReshape:
    case OpType::kSqueeze:
    case OpType::kExpandDims:
    case OpType::kTranspose:
    case OpType::kSlice:
    case OpType::kStridedSlice:
    case OpType::kGather:
    case OpType::kGatherNd:
    case OpType::kConcatenation:
    case OpType::kPack:
    case OpType::kUnpack:
    case OpType::kSplit:
    case OpType::kSplitV:
    case OpType::kTile:
    case OpType::kBroadcastTo:
    case OpType::kReverseV2:
    case OpType::kPad:
    case OpType::kPadV2:
    case OpType::kMirrorPad:
    case OpType::kDepthToSpace:
    case OpType::kSpaceToDepth:
    case OpType::kSpaceToBatchNd:
    case OpType::kBatchToSpaceNd:
    case OpType::kResizeNearestNeighbor:
    case OpType::kMaxPool2d:
    case OpType::kReduceMax:
    case OpType::kReduceMin:
    case OpType::kMaximum:
    case OpType::kMinimum:
      return true;
    default:
      return false;
  }
}

bool SameQuantization(const QuantizationParams& a, const QuantizationParams& b) {
  auto zero_points = [](const QuantizationParams& q) {
    return q.zero_point.empty() ? std::vector<int64_t>(q.scale.size(), 0) : q.zero_point;
  };
  return a.scale == b.scale && zero_points(a) == zero_points(b) &&
         (a.scale.size() <= 1 || a.quantized_dimension == b.quantized_dimension);
}

}  // namespace gld
