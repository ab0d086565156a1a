// MediaPipe's custom ops on the GPU: TransformTensorBilinear
// (transform_tensor_bilinear.comp), TransformLandmarks
// (transform_landmarks.comp) and Landmarks2TransformMatrix
// (landmarks_to_transform_matrix.comp). Each is one dispatch of its own
// template: the checks below decide what the GL kernel takes (anything else
// stays on the CPU with the reason), then the bindings, uniforms and grid.
// The semantics are cpu_kernels/ops/mediapipe_ops.cc's. Bindings put the output
// first, then the inputs in order; shape uniforms are named by position
// (u_out0, u_in0, u_in1).
#include <algorithm>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"

namespace gld::gl {

namespace {

// fp16 storage holds every integer up to 2048 exactly: the largest landmark
// index the subset buffer can name in fp16.
constexpr int32_t kMaxFp16Index = 2048;

template <typename A>
StatusOr<const A*> AttrsOf(const OpBuildContext& ctx, const char* name) {
  const A* a = std::get_if<A>(&ctx.node().attributes);
  if (a == nullptr) return ctx.Invalid(std::string("missing ") + name);
  return a;
}

// The matrix input (index 1) holds `count` float 4x4 matrices.
StatusOr<Bhwc> MatrixShape(const OpBuildContext& ctx, int64_t* count) {
  GLD_ASSIGN_OR_RETURN(Bhwc m, ctx.InputShape(1));
  if (m.elements() % 16 != 0) {
    return ctx.Invalid("matrix input " + m.ToString() + " does not hold whole 4x4 matrices");
  }
  *count = m.elements() / 16;
  return m;
}

}  // namespace

Status BuildTransformTensorBilinear(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_ASSIGN_OR_RETURN(const auto* attrs,
                       AttrsOf<TransformTensorBilinearAttributes>(ctx, "TransformTensorBilinearAttributes"));
  if (ctx.num_inputs() != 2 || ctx.num_outputs() != 1) return ctx.Invalid("expects data, matrix and 1 output");
  if (ctx.input(0) != nullptr && ctx.input(0)->shape.size() != 4) {
    return ctx.Unsupported("input is " + ShapeToString(ctx.input(0)->shape) + " (expects 4-D)");
  }
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  int64_t mats = 0;
  GLD_ASSIGN_OR_RETURN(Bhwc m, MatrixShape(ctx, &mats));
  if (mats != 1 && mats != in.b) {
    return ctx.Invalid("matrix input " + m.ToString() + " holds " + std::to_string(mats) +
                       " matrices for batch " + std::to_string(in.b) + " (one, or one per batch)");
  }
  if (o.b != in.b || o.c != in.c || o.h != attrs->output_height || o.w != attrs->output_width) {
    return ctx.Invalid("output " + o.ToString() + " is not input " + in.ToString() + " at " +
                       std::to_string(attrs->output_height) + "x" + std::to_string(attrs->output_width));
  }
  Dispatch d;
  d.shader.template_name = "transform_tensor_bilinear.comp";
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, {DispatchBufferRef::kTensor, ctx.input_index(1)});
  d.IVec4("u_out0", o).IVec4("u_in0", in).IVec4("u_in1", m);
  d.IVec2("u_flags", attrs->align_corners ? 1 : 0, mats == 1 ? 1 : 0);
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

Status BuildTransformLandmarks(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_ASSIGN_OR_RETURN(const auto* attrs, AttrsOf<TransformLandmarksAttributes>(ctx, "TransformLandmarksAttributes"));
  if (ctx.num_inputs() != 2 || ctx.num_outputs() != 1) return ctx.Invalid("expects landmarks, matrix and 1 output");
  const Tensor* landmarks = ctx.input(0);
  if (landmarks == nullptr) return ctx.Invalid("landmarks input is missing");
  const size_t want_rank = attrs->version == 1 ? 4 : 3;
  if (landmarks->shape.size() != want_rank) {
    return ctx.Invalid("version " + std::to_string(attrs->version) + " landmarks must be " +
                       std::to_string(want_rank) + "-D, got " + ShapeToString(landmarks->shape));
  }
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (o != in) return ctx.Invalid("output " + o.ToString() + " differs from the landmarks " + in.ToString());
  const int32_t dims = attrs->version == 1 ? attrs->dimensions : in.c;
  if ((dims != 2 && dims != 3) || in.c % dims != 0) {
    return ctx.Invalid("landmarks " + in.ToString() + " do not hold points of 2 or 3 values (" +
                       std::to_string(dims) + ")");
  }
  int64_t mats = 0;
  GLD_ASSIGN_OR_RETURN(Bhwc m, MatrixShape(ctx, &mats));
  Dispatch d;
  d.shader.template_name = "transform_landmarks.comp";
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, {DispatchBufferRef::kTensor, ctx.input_index(1)});
  d.IVec4("u_out0", o).IVec4("u_in1", m);
  d.Int("u_dims", dims).Float("u_scale", attrs->version == 1 ? attrs->scale : 1.f);
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

Status BuildLandmarks2TransformMatrix(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_ASSIGN_OR_RETURN(const auto* attrs,
                       AttrsOf<Landmarks2TransformMatrixAttributes>(ctx, "Landmarks2TransformMatrixAttributes"));
  if (ctx.num_inputs() != 1 || ctx.num_outputs() != 1) return ctx.Invalid("expects landmarks and 1 output");
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (o != Bhwc{1, 1, 4, 4}) return ctx.Unsupported("output " + o.ToString() + " is not a [1, 4, 4] matrix");
  if (in.elements() % 3 != 0) return ctx.Invalid("landmarks " + in.ToString() + " are not (x, y, z) triples");
  if (attrs->version != 1 && attrs->version != 2) {
    return ctx.Unsupported("version " + std::to_string(attrs->version) + " (only 1 and 2)");
  }
  if (attrs->subset.empty()) return ctx.Invalid("the subset of landmarks is empty");
  const int64_t landmarks = in.elements() / 3;
  int32_t largest = std::max(attrs->left_rotation_idx, attrs->right_rotation_idx);
  bool negative = attrs->left_rotation_idx < 0 || attrs->right_rotation_idx < 0;
  for (const auto& p : attrs->subset) {
    largest = std::max({largest, p.first, p.second});
    negative = negative || p.first < 0 || p.second < 0;
  }
  if (negative || largest >= landmarks) {
    return ctx.Invalid("a landmark index is out of range for " + std::to_string(landmarks) + " landmarks");
  }
  if (ctx.precision() != Precision::kFp32 && largest > kMaxFp16Index) {
    return ctx.Unsupported("landmark index " + std::to_string(largest) + " is past " +
                           std::to_string(kMaxFp16Index) + ", the largest fp16 storage holds exactly");
  }
  const auto subset = attrs->subset;
  DispatchBufferRef pairs = ctx.AddConstant("subset", [subset] {
    std::vector<float> v;
    for (const auto& p : subset) {
      v.insert(v.end(), {static_cast<float>(p.first), static_cast<float>(p.second), 0.f, 0.f});
    }
    return v;
  });
  Dispatch d;
  d.shader.template_name = "landmarks_to_transform_matrix.comp";
  d.shader.Define("VERSION", attrs->version);
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, pairs);
  d.IVec4("u_out0", o).IVec4("u_in0", in);
  d.Int("u_pairs", static_cast<int32_t>(subset.size()));
  d.IVec2("u_rotation_idx", attrs->left_rotation_idx, attrs->right_rotation_idx);
  if (attrs->version == 1) {
    d.IVec4("u_sizes", attrs->input_h, attrs->input_w, attrs->output_h, attrs->output_w);
    d.Vec4("u_values", static_cast<float>(attrs->landmarks_range), attrs->bbox_size_multiplier, 0.f, 0.f);
  } else {
    d.IVec4("u_sizes", 0, 0, attrs->output_height, attrs->output_width);
    d.Vec4("u_values", attrs->target_rotation_radians, attrs->scale_x, attrs->scale_y, 0.f);
  }
  d.grid = {1, 1, 1};
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
