// Writes a seed corpus for gld_fuzz_loader: small builder-made models that
// reach the reader's branches (options, custom ops, fp16/quantized/sparse
// constants, buffers after the flatbuffer, subgraphs, signatures), and the
// control-flow op cases (models of several subgraphs: WHILE, IF, CALL_ONCE,
// resource variables; tests/data/ops, made with LiteRT by make_op_cases.py).
#include <dirent.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "gldelegate/model_builder.hpp"

namespace {

using gld::BuildOptions;
using gld::ElementType;
using gld::ModelBuilder;

int failures = 0;

void Write(const ModelBuilder& b, const std::string& dir, const std::string& name,
           const BuildOptions& options = {}) {
  gld::Status s = b.WriteFile(dir + "/" + name + ".tflite", options);
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), s.ToString().c_str());
    ++failures;
  }
}

void Expect(const gld::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    ++failures;
  }
}

// Copies the model of every op case whose name starts with one of the
// control-flow and variable ops' prefixes.
void CopyControlFlowCases(const std::string& dir) {
#ifdef GLD_OP_CASES_DIR
  const std::string root = GLD_OP_CASES_DIR;
  DIR* d = opendir(root.c_str());
  if (d == nullptr) return;
  const char* prefixes[] = {"while__", "if__", "call_once__", "var_handle__", "read_variable__", "assign_variable__"};
  int copied = 0;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    bool wanted = false;
    for (const char* p : prefixes) wanted = wanted || name.rfind(p, 0) == 0;
    if (!wanted) continue;
    std::ifstream in(root + "/" + name + "/model.tflite", std::ios::binary);
    if (!in) continue;
    std::ofstream(dir + "/" + name + ".tflite", std::ios::binary) << in.rdbuf();
    ++copied;
  }
  closedir(d);
  if (copied == 0) {
    std::fprintf(stderr, "no control-flow op cases in %s\n", root.c_str());
    ++failures;
  }
#else
  (void)dir;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  mkdir(dir.c_str(), 0755);

  {  // conv + activations, all build variants
    ModelBuilder b;
    int x = b.AddInput("x", ElementType::kFloat32, {1, 4, 4, 2});
    int w = b.AddConstantFloat("w", {3, 1, 1, 2}, {1, 2, 3, 4, 5, 6});
    int bias = b.AddConstantFloat("b", {3}, {0, 1, 2});
    int y = b.AddTensor("y", ElementType::kFloat32, {1, 4, 4, 3});
    int z = b.AddTensor("z", ElementType::kFloat32, {1, 2, 2, 3});
    Expect(b.AddOp("CONV_2D", {x, w, bias}, {y}, {{"padding", "SAME"}, {"fused_activation_function", "RELU"}}));
    Expect(b.AddOp("MAX_POOL_2D", {y}, {z}, {{"stride_w", 2}, {"stride_h", 2}, {"filter_width", 2}, {"filter_height", 2}}));
    b.SetOutputs({z});
    Write(b, dir, "conv");
    BuildOptions o;
    o.buffers_after_flatbuffer = true;
    Write(b, dir, "conv_offsets", o);
    o = {};
    o.op_codes = BuildOptions::OpCodeStyle::kDeprecatedOnly;
    Write(b, dir, "conv_deprecated", o);
    o = {};
    o.extra_subgraphs = 1;
    o.main_subgraph_index = 1;
    o.signature_key = "serve";
    o.signature_input_names = {"image"};
    Write(b, dir, "conv_subgraphs", o);
  }
  {  // fp16 + quantized constants, dequantize, reshape with new_shape
    ModelBuilder b;
    std::vector<uint16_t> h = {0x3c00, 0x4000, 0xbc00, 0x0001};
    int c = b.AddConstant("h", ElementType::kFloat16, {4}, h.data(), 8);
    std::vector<int8_t> q = {-3, 0, 5, 127, -128, 1};
    gld::QuantizationInfo pc;
    pc.scale = {0.5f, 2.0f};
    pc.zero_point = {0, 1};
    pc.quantized_dimension = 0;
    int qc = b.AddConstant("q", ElementType::kInt8, {2, 3}, q.data(), 6, pc);
    int x = b.AddInput("x", ElementType::kFloat32, {4});
    int d = b.AddTensor("d", ElementType::kFloat32, {4});
    int s = b.AddTensor("s", ElementType::kFloat32, {4});
    int r = b.AddTensor("r", ElementType::kFloat32, {2, 2});
    int qd = b.AddTensor("qd", ElementType::kFloat32, {2, 3});
    Expect(b.AddOp("DEQUANTIZE", {c}, {d}));
    Expect(b.AddOp("ADD", {x, d}, {s}));
    Expect(b.AddOp("RESHAPE", {s}, {r}, {{"new_shape", std::vector<int>{2, 2}}}));
    Expect(b.AddOp("DEQUANTIZE", {qc}, {qd}));
    b.SetOutputs({r, qd});
    Write(b, dir, "fp16_quant");
  }
  {  // sparse constant behind DENSIFY
    gld::SparsityInfo sp;
    sp.traversal_order = {0, 1};
    sp.dim_metadata.resize(2);
    sp.dim_metadata[0].dense_size = 3;
    sp.dim_metadata[1].sparse_csr = true;
    sp.dim_metadata[1].array_segments = {0, 1, 1, 3};
    sp.dim_metadata[1].array_indices = {2, 0, 1};
    sp.index_bits = 8;
    std::vector<uint16_t> v = {0x3c00, 0x4000, 0x4200};
    ModelBuilder b;
    int s = b.AddSparseConstant("sp", ElementType::kFloat16, {3, 3}, sp, v.data(), 6);
    int d = b.AddTensor("d", ElementType::kFloat16, {3, 3});
    int f = b.AddTensor("f", ElementType::kFloat32, {3, 3});
    Expect(b.AddOp("DENSIFY", {s}, {d}));
    Expect(b.AddOp("DEQUANTIZE", {d}, {f}));
    b.SetOutputs({f});
    Write(b, dir, "sparse");
  }
  {  // MediaPipe custom ops and a few option-heavy builtins
    ModelBuilder b;
    int x = b.AddInput("x", ElementType::kFloat32, {1, 4, 4, 4});
    int w = b.AddConstantFloat("w", {1, 2, 2, 4}, std::vector<float>(16, 0.25f));
    int bias = b.AddConstantFloat("b", {1}, {0.5f});
    int t = b.AddTensor("t", ElementType::kFloat32, {1, 8, 8, 1});
    int p = b.AddTensor("p", ElementType::kFloat32, {1, 4, 4, 1});
    int i = b.AddTensor("i", ElementType::kFloat32, {1, 4, 4, 1});
    int u = b.AddTensor("u", ElementType::kFloat32, {1, 8, 8, 1});
    int m = b.AddTensor("m", ElementType::kFloat32, {1, 8, 8, 1});
    Expect(b.AddOp("Convolution2DTransposeBias", {x, w, bias}, {t}, {{"padding", "SAME"}, {"stride_w", 2}, {"stride_h", 2}}));
    Expect(b.AddOp("MaxPoolingWithArgmax2D", {t}, {p, i}, {{"padding", "SAME"}, {"stride_w", 2}, {"stride_h", 2}, {"filter_width", 2}, {"filter_height", 2}}));
    Expect(b.AddOp("MaxUnpooling2D", {p, i}, {u}, {{"padding", "SAME"}, {"stride_w", 2}, {"stride_h", 2}, {"filter_width", 2}, {"filter_height", 2}}));
    Expect(b.AddOp("STRIDED_SLICE", {u, bias, bias, bias}, {m}, {{"begin_mask", 1}, {"shrink_axis_mask", 2}}));
    b.SetOutputs({m});
    Write(b, dir, "custom");
  }
  CopyControlFlowCases(dir);
  return failures == 0 ? 0 : 1;
}
