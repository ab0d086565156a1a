// The explicit table of CPU kernels: one entry per OpType the CPU runs.
#include <array>

#include "cpu_kernels/kernels.h"

namespace gld::cpu {

namespace {

// clang-format off
const CpuKernel kKernels[] = {
    {OpType::kAbs, RunAbs},
    {OpType::kAdd, RunAdd},
    {OpType::kAddN, RunAddN},
    {OpType::kArgMax, RunArgMax},
    {OpType::kArgMin, RunArgMin},
    {OpType::kAveragePool2d, RunAveragePool2d},
    {OpType::kBatchMatMul, RunBatchMatMul},
    {OpType::kBatchToSpaceNd, RunBatchToSpaceNd},
    {OpType::kBroadcastTo, RunBroadcastTo},
    {OpType::kCast, RunCast},
    {OpType::kConcatenation, RunConcatenation},
    {OpType::kConv2d, RunConv2d},
    {OpType::kCos, RunCos},
    {OpType::kCumsum, RunCumsum},
    {OpType::kDensify, RunDensify},
    {OpType::kDepthToSpace, RunDepthToSpace},
    {OpType::kDepthwiseConv2d, RunDepthwiseConv2d},
    {OpType::kDequantize, RunDequantize},
    {OpType::kDiv, RunDiv},
    {OpType::kElu, RunElu},
    {OpType::kEqual, RunEqual},
    {OpType::kExp, RunExp},
    {OpType::kExpandDims, RunExpandDims},
    {OpType::kFill, RunFill},
    {OpType::kFloor, RunFloor},
    {OpType::kFloorDiv, RunFloorDiv},
    {OpType::kFloorMod, RunFloorMod},
    {OpType::kFullyConnected, RunFullyConnected},
    {OpType::kGather, RunGather},
    {OpType::kGatherNd, RunGatherNd},
    {OpType::kGelu, RunGelu},
    {OpType::kGreater, RunGreater},
    {OpType::kGreaterEqual, RunGreaterEqual},
    {OpType::kHardSwish, RunHardSwish},
    {OpType::kL2Normalization, RunL2Normalization},
    {OpType::kLeakyRelu, RunLeakyRelu},
    {OpType::kLess, RunLess},
    {OpType::kLessEqual, RunLessEqual},
    {OpType::kLocalResponseNormalization, RunLocalResponseNormalization},
    {OpType::kLog, RunLog},
    {OpType::kLogSoftmax, RunLogSoftmax},
    {OpType::kLogicalAnd, RunLogicalAnd},
    {OpType::kLogicalNot, RunLogicalNot},
    {OpType::kLogicalOr, RunLogicalOr},
    {OpType::kLogistic, RunLogistic},
    {OpType::kMaxPool2d, RunMaxPool2d},
    {OpType::kMaximum, RunMaximum},
    {OpType::kMean, RunMean},
    {OpType::kMinimum, RunMinimum},
    {OpType::kMirrorPad, RunMirrorPad},
    {OpType::kMul, RunMul},
    {OpType::kNeg, RunNeg},
    {OpType::kNotEqual, RunNotEqual},
    {OpType::kOneHot, RunOneHot},
    {OpType::kPack, RunPack},
    {OpType::kPad, RunPad},
    {OpType::kPadV2, RunPadV2},
    {OpType::kPow, RunPow},
    {OpType::kPrelu, RunPrelu},
    {OpType::kQuantize, RunQuantize},
    {OpType::kReduceMax, RunReduceMax},
    {OpType::kReduceMin, RunReduceMin},
    {OpType::kReduceProd, RunReduceProd},
    {OpType::kRelu, RunRelu},
    {OpType::kRelu6, RunRelu6},
    {OpType::kReluN1To1, RunReluN1To1},
    {OpType::kRelu0To1, RunRelu0To1},
    {OpType::kReshape, RunReshape},
    {OpType::kResizeBilinear, RunResizeBilinear},
    {OpType::kResizeNearestNeighbor, RunResizeNearestNeighbor},
    {OpType::kReverseV2, RunReverseV2},
    {OpType::kRsqrt, RunRsqrt},
    {OpType::kSelect, RunSelect},
    {OpType::kSelectV2, RunSelectV2},
    {OpType::kShape, RunShape},
    {OpType::kSign, RunSign},
    {OpType::kSin, RunSin},
    {OpType::kSlice, RunSlice},
    {OpType::kSoftmax, RunSoftmax},
    {OpType::kSpaceToBatchNd, RunSpaceToBatchNd},
    {OpType::kSpaceToDepth, RunSpaceToDepth},
    {OpType::kSplit, RunSplit},
    {OpType::kSplitV, RunSplitV},
    {OpType::kSqrt, RunSqrt},
    {OpType::kSquare, RunSquare},
    {OpType::kSquaredDifference, RunSquaredDifference},
    {OpType::kSqueeze, RunSqueeze},
    {OpType::kStridedSlice, RunStridedSlice},
    {OpType::kSub, RunSub},
    {OpType::kSum, RunSum},
    {OpType::kTanh, RunTanh},
    {OpType::kTile, RunTile},
    {OpType::kTranspose, RunTranspose},
    {OpType::kTransposeConv, RunTransposeConv},
    {OpType::kUnpack, RunUnpack},
    {OpType::kZerosLike, RunZerosLike},
    {OpType::kConvolution2DTransposeBias, RunConvolution2DTransposeBias},
};
// clang-format on

}  // namespace

const CpuKernel* FindCpuKernel(OpType op) {
  for (const CpuKernel& k : kKernels) {
    if (k.op == op) return &k;
  }
  return nullptr;
}

}  // namespace gld::cpu
