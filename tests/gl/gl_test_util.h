// Helpers for the GL backend tests: one shared EGL environment per test
// binary, small IR graphs built directly, the CPU kernels as the oracle, and
// the GPU result of the same graph run as one GlSegment.
//
// Tolerance (DESIGN.md): max |gpu - cpu| / max |cpu| <= 1e-4 in fp32 and
// <= 1e-2 in fp16 (2e-2 in fp16_mediump: fp16 arithmetic too), per output tensor. Integer (quantized) outputs may differ
// by one step, where a value lands next to a rounding boundary.
//
// GPU tests fail when no GLES 3.1 context can be made; set GLD_SKIP_GL_TESTS=1
// to skip them instead. They skip, naming the defect, where the GL stack's
// compute shaders miscompute the conversions every kernel relies on
// (common/gl_stack_probe.h: the armhf llvmpipe under qemu-arm).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/gl_stack_probe.h"
#include "common/graph_builder.h"
#include "common/random_values.h"
#include "cpu_kernels/kernel_interface.h"
#include "gl/egl/egl_environment.h"
#include "gl/gl_segment.h"
#include "gl/codegen/support.h"
#include "graph/graph.h"
#include "graph/shape_inference.h"

namespace gld::testing {

// The binary's shared environment; nullptr (with `why`) when there is none.
inline gl::GlDevice* SharedGlDevice(std::string* why = nullptr) {
  static std::string error;
  static std::unique_ptr<gl::GlDevice> env = [] {
    auto e = gl::GlDevice::Create();
    if (!e.ok()) {
      error = e.status().ToString();
      return std::unique_ptr<gl::GlDevice>();
    }
    return std::move(*e);
  }();
  if (why != nullptr) *why = error;
  return env.get();
}

inline bool SkipGlTests() {
  const char* v = std::getenv("GLD_SKIP_GL_TESTS");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// Use at the top of a test: the shared environment, or fail / skip.
#define GLD_REQUIRE_GL(env_var)                                                        \
  std::string gld_gl_why_;                                                             \
  gl::GlDevice* env_var = SharedGlDevice(&gld_gl_why_);                      \
  if (env_var == nullptr) {                                                            \
    if (SkipGlTests()) GTEST_SKIP() << "no GLES 3.1 (GLD_SKIP_GL_TESTS): " << gld_gl_why_; \
    FAIL() << "no GLES 3.1 context (set GLD_SKIP_GL_TESTS=1 to skip): " << gld_gl_why_;  \
  }                                                                                    \
  GLD_SKIP_IF_GL_ARITHMETIC_DEFECT()

// Multiples of 1/8 in [-60, 60]: exact in fp16, so that ops that compare
// values (argmax) see the same order in both precisions.
inline std::vector<float> Fp16ExactValues(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  const std::vector<int> eighths = RandomInts<int>(n, -480, 480, seed);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(eighths[i]) / 8.0f;
  return v;
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// fp16_mediump computes in fp16 besides storing it: 2e-2 (its error on
// hand_landmark_lite's small world-landmark output reached 1.1e-2).
inline float Tolerance(Precision p) {
  return p == Precision::kFp32 ? 1e-4f : p == Precision::kFp16 ? 1e-2f : 2e-2f;
}

// A graph under test: inputs with values, constants, nodes, outputs.
class GlOpTest {
 public:
  explicit GlOpTest(uint32_t seed = 1) : seed_(seed) {}

  // A graph input of random floats in [lo, hi).
  int Input(const Shape& shape, float lo = -2.f, float hi = 2.f) {
    return InputValues(shape, RandomFloats(static_cast<size_t>(NumElements(shape)), seed_++, lo, hi));
  }
  int InputValues(const Shape& shape, const std::vector<float>& values) {
    return InputBytes(shape, DataType::kFloat32, Bytes(values));
  }
  int InputBytes(const Shape& shape, DataType type, std::vector<uint8_t> bytes) {
    int t = AddTensor("input" + std::to_string(graph.tensors.size()), shape, type);
    graph.inputs.push_back(t);
    host_[t] = std::move(bytes);
    return t;
  }
  // A graph input without data, for tests that never run the graph.
  int Placeholder(const Shape& shape, DataType type = DataType::kFloat32) {
    return InputBytes(shape, type, {});
  }
  int Const(const Shape& shape, float lo = -1.f, float hi = 1.f) {
    return ConstValues(shape, RandomFloats(static_cast<size_t>(NumElements(shape)), seed_++, lo, hi));
  }
  int ConstValues(const Shape& shape, const std::vector<float>& values) {
    int t = AddTensor("const" + std::to_string(graph.tensors.size()), shape, DataType::kFloat32);
    graph.tensors[static_cast<size_t>(t)].is_constant = true;
    graph.tensors[static_cast<size_t>(t)].data = Bytes(values);
    return t;
  }
  template <typename T>
  int ConstInts(const Shape& shape, const std::vector<T>& values) {
    int t = AddTensor("ints" + std::to_string(graph.tensors.size()), shape,
                      sizeof(T) == 8 ? DataType::kInt64 : DataType::kInt32);
    graph.tensors[static_cast<size_t>(t)].is_constant = true;
    graph.tensors[static_cast<size_t>(t)].data = Bytes(values);
    return t;
  }
  // A tensor whose shape shape inference fills in (or `shape` when given).
  int Tensor(const Shape& shape = {}, DataType type = DataType::kFloat32) {
    return AddTensor("t" + std::to_string(graph.tensors.size()), shape, type);
  }
  // Marks a tensor as a graph output (compared GPU vs CPU).
  int Output(int t) {
    graph.outputs.push_back(t);
    return t;
  }
  size_t Node(OpType op, std::vector<int> inputs, std::vector<int> outputs, Attributes attrs = {}) {
    return static_cast<size_t>(AddNode(graph, op, std::move(inputs), std::move(outputs), -1, std::move(attrs)));
  }
  // The usual one-node test: node(op, inputs) -> a new output tensor.
  int Op(OpType op, std::vector<int> inputs, Attributes attrs = {}) {
    int out = Output(Tensor());
    Node(op, std::move(inputs), {out}, std::move(attrs));
    return out;
  }

  // Shape inference, then every node's CPU kernel; fills cpu_.
  Status RunCpu() {
    GLD_RETURN_IF_ERROR(InferShapes(graph));
    cpu_ = host_;
    for (size_t i = 0; i < graph.tensors.size(); ++i) {
      const gld::Tensor& t = graph.tensors[i];
      if (t.is_constant || cpu_.count(static_cast<int>(i))) continue;
      cpu_[static_cast<int>(i)].assign(static_cast<size_t>(NumElements(t.shape)) * DataTypeSize(t.type), 0);
    }
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const gld::Node& n = graph.nodes[i];
      const cpu::CpuKernel* k = cpu::FindCpuKernel(n.op);
      if (k == nullptr) return UnimplementedError(std::string("no CPU kernel for ") + OpTypeName(n.op));
      std::vector<cpu::TensorData> ins(n.inputs.size()), outs(n.outputs.size());
      cpu::KernelContext ctx;
      ctx.graph = &graph;
      ctx.node = &graph.nodes[i];
      for (size_t j = 0; j < n.inputs.size(); ++j) {
        if (n.inputs[j] < 0) {
          ctx.inputs.push_back(nullptr);
          continue;
        }
        Bind(n.inputs[j], &ins[j]);
        ctx.inputs.push_back(&ins[j]);
      }
      for (size_t j = 0; j < n.outputs.size(); ++j) {
        Bind(n.outputs[j], &outs[j]);
        ctx.outputs.push_back(&outs[j]);
      }
      GLD_RETURN_IF_ERROR(k->run(ctx));
    }
    return OkStatus();
  }

  // Runs every node as one GlSegment; fills gpu_ with its outputs.
  Status RunGpu(gl::GlDevice& env, Precision precision) {
    GLD_RETURN_IF_ERROR(InferShapes(graph));
    std::vector<size_t> nodes(graph.nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) nodes[i] = i;
    GLD_ASSIGN_OR_RETURN(segment, gl::GlSegment::Create(env, graph, nodes, precision));
    std::vector<std::vector<uint8_t>> in_bytes;
    for (int t : segment->input_tensors()) in_bytes.push_back(HostBytes(t));
    std::vector<gl::GlSegment::HostInput> ins;
    for (const std::vector<uint8_t>& b : in_bytes) ins.push_back({b.data(), b.size()});
    std::vector<gl::GlSegment::HostOutput> outs;
    for (int t : segment->output_tensors()) {
      const gld::Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
      gpu_[t].assign(static_cast<size_t>(NumElements(tensor.shape)) * DataTypeSize(tensor.type), 0xEE);
      outs.push_back({gpu_[t].data(), gpu_[t].size()});
    }
    return segment->Run(ins, outs);
  }

  // CPU vs GPU over every graph output, at `precision`'s tolerance (or
  // `tolerance` when positive: a test that holds a tighter bound).
  void ExpectGpuMatchesCpu(gl::GlDevice& env, Precision precision, const std::string& what,
                           double tolerance = 0) {
    SCOPED_TRACE(what + " (" + PrecisionName(precision) + ")");
    if (cpu_.empty()) {
      Status s = RunCpu();
      ASSERT_TRUE(s.ok()) << "CPU reference failed: " << s.ToString();
    }
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      std::string reason;
      ASSERT_TRUE(gl::IsNodeSupported(graph, i, &reason, precision))
          << graph.NodeLabel(i) << " refused: " << reason;
    }
    gpu_.clear();
    Status s = RunGpu(env, precision);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (int t : graph.outputs) {
      const gld::Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
      ASSERT_TRUE(gpu_.count(t)) << "tensor " << tensor.name << " was not exported";
      std::vector<double> c = Values(tensor, cpu_.at(t)), g = Values(tensor, gpu_.at(t));
      ASSERT_EQ(c.size(), g.size());
      double max_ref = 0, max_err = 0;
      size_t worst = 0;
      bool nan_mismatch = false;
      for (size_t k = 0; k < c.size(); ++k) {
        if (std::isnan(c[k]) != std::isnan(g[k])) nan_mismatch = true;
        if (std::isnan(c[k]) || std::isnan(g[k])) continue;
        max_ref = std::max(max_ref, std::abs(c[k]));
        double e = std::abs(c[k] - g[k]);
        if (e > max_err) {
          max_err = e;
          worst = k;
        }
      }
      EXPECT_FALSE(nan_mismatch) << tensor.name << ": NaN on one side only";
      const bool integer = tensor.type != DataType::kFloat32;
      if (tensor.type == DataType::kBool) {
        EXPECT_EQ(max_err, 0.0) << tensor.name << ": worst at " << worst << ": cpu " << c[worst] << " gpu "
                                << g[worst];
      } else if (integer) {
        EXPECT_LE(max_err, 1.0) << tensor.name << ": worst at " << worst << ": cpu " << c[worst]
                                << " gpu " << g[worst];
      } else {
        const double rel = max_err / std::max(max_ref, 1e-30);
        EXPECT_LE(rel, tolerance > 0 ? tolerance : Tolerance(precision))
            << tensor.name << " " << ShapeToString(tensor.shape) << ": max |gpu-cpu| " << max_err
            << " / max |cpu| " << max_ref << "; worst at " << worst << ": cpu " << c[worst] << " gpu "
            << g[worst];
        EXPECT_GT(max_ref, 0.0) << tensor.name << ": the reference is all zeros; the test proves little";
      }
    }
  }

  std::vector<float> CpuFloats(int t) const { return Floats(cpu_.at(t)); }
  std::vector<float> GpuFloats(int t) const { return Floats(gpu_.at(t)); }
  std::vector<uint8_t> HostBytes(int t) const {
    const gld::Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
    return tensor.is_constant ? tensor.data.ToVector() : host_.at(t);
  }

  Graph graph;
  std::unique_ptr<gl::GlSegment> segment;

 private:
  int AddTensor(const std::string& name, const Shape& shape, DataType type) {
    return gld::testing::AddTensor(graph, name, shape, type);
  }
  void Bind(int id, cpu::TensorData* td) {
    gld::Tensor& t = graph.tensors[static_cast<size_t>(id)];
    td->type = t.type;
    td->shape = t.shape;
    if (t.is_constant) {
      // Kernels read constants through const TensorData*; nothing writes them.
      td->data = const_cast<uint8_t*>(t.data.data());
      td->bytes = t.data.size();
      return;
    }
    std::vector<uint8_t>& b = cpu_[id];
    td->data = b.data();
    td->bytes = b.size();
  }
  static std::vector<float> Floats(const std::vector<uint8_t>& b) {
    std::vector<float> v(b.size() / 4);
    if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * 4);
    return v;
  }
  static std::vector<double> Values(const gld::Tensor& t, const std::vector<uint8_t>& b) {
    const size_t n = static_cast<size_t>(NumElements(t.shape));
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) {
      switch (t.type) {
        case DataType::kFloat32: {
          float f;
          std::memcpy(&f, b.data() + 4 * i, 4);
          v[i] = f;
          break;
        }
        case DataType::kInt8: v[i] = static_cast<int8_t>(b[i]); break;
        case DataType::kUInt8: v[i] = b[i]; break;
        case DataType::kBool: v[i] = b[i]; break;  // the byte itself: a 2 is no true
        case DataType::kInt16: {
          int16_t x;
          std::memcpy(&x, b.data() + 2 * i, 2);
          v[i] = x;
          break;
        }
        case DataType::kInt32: {
          int32_t x;
          std::memcpy(&x, b.data() + 4 * i, 4);
          v[i] = x;
          break;
        }
        default:
          // A type this helper cannot read would compare as equal zeros.
          ADD_FAILURE() << "tensor " << t.name << ": cannot compare " << DataTypeName(t.type) << " values";
          return v;
      }
    }
    return v;
  }

  uint32_t seed_;
  std::map<int, std::vector<uint8_t>> host_;
  std::map<int, std::vector<uint8_t>> cpu_;
  std::map<int, std::vector<uint8_t>> gpu_;
};

inline const std::vector<Precision>& BothPrecisions() {
  static const std::vector<Precision> p = {Precision::kFp32, Precision::kFp16};
  return p;
}

}  // namespace gld::testing
