// The .tflite reader on builder-made and hand-crafted files: constants
// (fp16, dequantized, sparse), buffers after the flatbuffer, subgraphs,
// signatures, and bad files that must give errors naming the place.
#include <cmath>
#include <functional>
#include <cstring>
#include <random>

#include "gldelegate/tflite_generated.h"
#include "test_util.h"

namespace gld {
namespace {

using testing::FloatsOf;
using testing::ReadBytes;

// A conv model: x[1,4,4,2] -> CONV_2D(w[3,1,1,2], b[3]) -> y[1,4,4,3].
struct ConvModel {
  ModelBuilder b;
  int x, w, bias, y;
  std::vector<float> weights = {1, 2, 3, 4, 5, 6};
  std::vector<float> bias_values = {0.5f, -1, 2};
  ConvModel() {
    x = b.AddInput("x", ElementType::kFloat32, {1, 4, 4, 2});
    w = b.AddConstantFloat("conv/weights", {3, 1, 1, 2}, weights);
    bias = b.AddConstantFloat("conv/bias", {3}, bias_values);
    y = b.AddTensor("y", ElementType::kFloat32, {1, 4, 4, 3});
    EXPECT_TRUE(b.AddOp("CONV_2D", {x, w, bias}, {y}, {{"padding", "SAME"}}).ok());
    b.SetOutputs({y});
  }
};

TEST(Reader, ConvModelBasics) {
  ConvModel m;
  auto bytes = m.b.Finish();
  ASSERT_TRUE(bytes.ok());
  TfliteLoadInfo info;
  auto g = ReadBytes(*bytes, &info);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->tensors.size(), 4u);
  EXPECT_EQ(g->inputs, std::vector<int>{m.x});
  EXPECT_EQ(g->outputs, std::vector<int>{m.y});
  EXPECT_EQ(g->tensors[m.w].name, "conv/weights");
  EXPECT_TRUE(g->tensors[m.w].is_constant);
  EXPECT_FALSE(g->tensors[m.x].is_constant);
  EXPECT_EQ(g->tensors[m.w].shape, (Shape{3, 1, 1, 2}));
  EXPECT_EQ(FloatsOf(g->tensors[m.w]), m.weights);
  EXPECT_EQ(FloatsOf(g->tensors[m.bias]), m.bias_values);
  EXPECT_EQ(g->nodes[0].inputs, (std::vector<int>{m.x, m.w, m.bias}));
  EXPECT_EQ(info.schema_version, 3u);
  EXPECT_EQ(info.subgraph_name, "main");
  EXPECT_EQ(info.op_versions, std::vector<int>{1});
  EXPECT_TRUE(g->other_subgraphs.empty());
}

TEST(Reader, OptionalBiasMayBeAbsent) {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {1, 2, 2, 1});
  int w = b.AddConstantFloat("w", {1, 1, 1, 1}, {2.0f});
  int y = b.AddTensor("y", ElementType::kFloat32, {1, 2, 2, 1});
  ASSERT_TRUE(b.AddOp("CONV_2D", {x, w, -1}, {y}).ok());
  b.SetOutputs({y});
  auto g = ReadBytes(*b.Finish());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->nodes[0].inputs[2], kNoTensor);
}

TEST(Reader, BuffersAfterTheFlatbuffer) {
  ConvModel m;
  BuildOptions o;
  o.buffers_after_flatbuffer = true;
  auto bytes = m.b.Finish(o);
  ASSERT_TRUE(bytes.ok());
  // The flatbuffer itself no longer holds the weights.
  const auto* model = tflite::GetModel(bytes->data());
  ASSERT_GT(model->buffers()->size(), 1u);
  EXPECT_GT(model->buffers()->Get(1)->offset(), 1u);
  EXPECT_EQ(model->buffers()->Get(1)->data(), nullptr);
  auto g = ReadBytes(*bytes);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(FloatsOf(g->tensors[m.w]), m.weights);
  EXPECT_EQ(FloatsOf(g->tensors[m.bias]), m.bias_values);

  // Cut the file inside the appended data: the buffer lies outside it.
  std::vector<uint8_t> cut(bytes->begin(), bytes->end() - 4);
  GLD_EXPECT_ERROR(ReadBytes(cut), "tensor 2 'conv/bias'", "lies outside the file");
}

// x + DEQUANTIZE(c16), with c16 a float16 constant of `halves` (an empty
// buffer when there are none); the graph as read, with c16's index.
StatusOr<Graph> ReadFloat16Model(const std::vector<uint16_t>& halves, int* c16) {
  const int n = static_cast<int>(halves.size());
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {n});
  *c16 = b.AddConstant("c16", ElementType::kFloat16, {n}, halves.data(), halves.size() * 2);
  int y = b.AddTensor("y", ElementType::kFloat32, {n});
  int z = b.AddTensor("z", ElementType::kFloat32, {n});
  GLD_RETURN_IF_ERROR(b.AddOp("DEQUANTIZE", {*c16}, {y}));
  GLD_RETURN_IF_ERROR(b.AddOp("ADD", {x, y}, {z}));
  b.SetOutputs({z});
  GLD_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, b.Finish());
  return ReadBytes(bytes);
}

TEST(Reader, Float16ConstantsBecomeFloat32) {
  const std::vector<uint16_t> halves = {0x3c00, 0xc000, 0x3555, 0x0001, 0x7bff, 0x8000, 0x7c00};
  int c = 0;
  auto g = ReadFloat16Model(halves, &c);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Tensor& t = g->tensors[c];
  EXPECT_EQ(t.type, DataType::kFloat32);
  auto v = FloatsOf(t);
  ASSERT_EQ(v.size(), halves.size());
  for (size_t i = 0; i < halves.size(); ++i) {
    const float want = testing::RefHalfToFloat(halves[i]);
    EXPECT_EQ(std::memcmp(&v[i], &want, 4), 0) << i << ": " << v[i] << " vs " << want;
  }
}

TEST(Reader, ConstantsShareOneBlockAtCacheLineBoundaries) {
  // Every constant is decoded into one block of the reader's, each at a
  // 64-byte boundary; copies of the graph share it, and it outlives the
  // graph it was read into for as long as a copy holds a constant.
  ConvModel m;
  auto bytes = m.b.Finish();
  ASSERT_TRUE(bytes.ok());
  auto g = ReadBytes(*bytes);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Tensor& w = g->tensors[m.w];
  const Tensor& bias = g->tensors[m.bias];
  ASSERT_EQ(w.data.size(), m.weights.size() * 4);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w.data.data()) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bias.data.data()) % 64, 0u);
  const auto gap = bias.data.data() > w.data.data() ? bias.data.data() - w.data.data() : w.data.data() - bias.data.data();
  EXPECT_EQ(gap, 64) << "24 and 12 bytes round up to one 64-byte slot each, side by side";
  ConstantData kept = bias.data;
  const std::vector<float> bias_values = FloatsOf(bias);
  g = InternalError("the graph is gone");
  ASSERT_EQ(kept.size(), bias_values.size() * 4);
  EXPECT_EQ(std::memcmp(kept.data(), bias_values.data(), kept.size()), 0);
}

TEST(Reader, EmptyFloat16ConstantWithoutABufferIsFloat32) {
  // Zero elements and a buffer with no data: still a constant, and decoded
  // like one (the fuzzer found one left as float16).
  int c = 0;
  auto g = ReadFloat16Model({}, &c);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Tensor& t = g->tensors[c];
  EXPECT_TRUE(t.is_constant);
  EXPECT_EQ(t.type, DataType::kFloat32);
  EXPECT_TRUE(t.data.empty());
}

TEST(Reader, QuantizedConstantsAreDequantized) {
  ModelBuilder b;
  const std::vector<int8_t> q8 = {-128, -1, 0, 5, 127, 10};
  QuantizationInfo per_tensor;
  per_tensor.scale = {0.5f};
  per_tensor.zero_point = {-1};
  int c8 = b.AddConstant("q8", ElementType::kInt8, {2, 3}, q8.data(), q8.size(), per_tensor);

  // Per-channel along dimension 1 (3 channels).
  QuantizationInfo per_channel;
  per_channel.scale = {1.0f, 0.25f, 2.0f};
  per_channel.zero_point = {0, 1, -2};
  per_channel.quantized_dimension = 1;
  int cpc = b.AddConstant("qpc", ElementType::kInt8, {2, 3}, q8.data(), q8.size(), per_channel);

  const std::vector<uint8_t> u8 = {0, 128, 255};
  QuantizationInfo uq;
  uq.scale = {0.1f};
  uq.zero_point = {128};
  int cu8 = b.AddConstant("qu8", ElementType::kUInt8, {3}, u8.data(), u8.size(), uq);

  const std::vector<int16_t> i16 = {-300, 300};
  QuantizationInfo q16;
  q16.scale = {0.01f};
  q16.zero_point = {0};
  int c16 = b.AddConstant("q16", ElementType::kInt16, {2}, i16.data(), 4, q16);

  const std::vector<int32_t> i32 = {1000, -1000};
  QuantizationInfo q32;
  q32.scale = {0.001f};
  int c32 = b.AddConstant("q32", ElementType::kInt32, {2}, i32.data(), 8, q32);
  int plain = b.AddConstantInt32("shape", {2}, {3, 2});

  QuantizationInfo act_q;
  act_q.scale = {0.02f};
  act_q.zero_point = {3};
  int x = b.AddInput("x", ElementType::kInt8, {2, 3}, act_q);
  int y = b.AddTensor("y", ElementType::kFloat32, {2, 3});
  int r = b.AddTensor("r", ElementType::kFloat32, {3, 2});
  ASSERT_TRUE(b.AddOp("DEQUANTIZE", {x}, {y}).ok());
  ASSERT_TRUE(b.AddOp("RESHAPE", {y, plain}, {r}).ok());
  b.SetOutputs({r});
  auto g = ReadBytes(*b.Finish());
  ASSERT_TRUE(g.ok()) << g.status().ToString();

  auto expect_floats = [&](int index, const std::vector<float>& want) {
    const Tensor& t = g->tensors[index];
    EXPECT_EQ(t.type, DataType::kFloat32) << t.name;
    // The quantization stays, naming the grid the values were stored on.
    EXPECT_FALSE(t.quant.empty()) << t.name;
    EXPECT_NE(t.quant.storage_type, DataType::kFloat32) << t.name;
    EXPECT_NE(t.quant.storage_type, DataType::kUnknown) << t.name;
    auto v = FloatsOf(t);
    ASSERT_EQ(v.size(), want.size()) << t.name;
    for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(v[i], want[i]) << t.name << "[" << i << "]";
  };
  expect_floats(c8, {-63.5f, 0.0f, 0.5f, 3.0f, 64.0f, 5.5f});
  // Channel of element (i, j) is j.
  expect_floats(cpc, {-128.0f, -0.5f, 4.0f, 5.0f, 31.5f, 24.0f});
  expect_floats(cu8, {-12.8f, 0.0f, 12.7f});
  expect_floats(c16, {-3.0f, 3.0f});
  expect_floats(c32, {1.0f, -1.0f});

  // Unquantized int32 constants and quantized activations stay as they are.
  EXPECT_EQ(g->tensors[plain].type, DataType::kInt32);
  EXPECT_EQ(g->tensors[plain].data.size(), 8u);
  EXPECT_EQ(g->tensors[x].type, DataType::kInt8);
  EXPECT_EQ(g->tensors[x].quant.scale, std::vector<float>{0.02f});
  EXPECT_EQ(g->tensors[x].quant.zero_point, std::vector<int64_t>{3});
}

TEST(Reader, SparseConstantsKeepTheirEncoding) {
  // A 4x4 matrix, rows dense, columns CSR: rows 0 and 2 hold two values each.
  SparsityInfo sp;
  sp.traversal_order = {0, 1};
  sp.dim_metadata.resize(2);
  sp.dim_metadata[0].dense_size = 4;
  sp.dim_metadata[1].sparse_csr = true;
  sp.dim_metadata[1].array_segments = {0, 2, 2, 4, 4};
  sp.dim_metadata[1].array_indices = {0, 3, 1, 2};
  for (int bits : {8, 16, 32}) {
    SCOPED_TRACE(bits);
    sp.index_bits = bits;
    const std::vector<uint16_t> values = {0x3c00, 0x4000, 0x4200, 0x4400};  // 1, 2, 3, 4
    ModelBuilder b;
    int s = b.AddSparseConstant("sparse_w", ElementType::kFloat16, {4, 4}, sp, values.data(), 8);
    int d = b.AddTensor("dense_w", ElementType::kFloat16, {4, 4});
    ASSERT_TRUE(b.AddOp("DENSIFY", {s}, {d}).ok());
    b.SetOutputs({d});
    auto g = ReadBytes(*b.Finish());
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    const Tensor& t = g->tensors[s];
    ASSERT_TRUE(t.sparsity.has_value());
    EXPECT_TRUE(t.is_constant);
    EXPECT_EQ(t.type, DataType::kFloat32);
    EXPECT_EQ(t.shape, (Shape{4, 4}));
    EXPECT_EQ(FloatsOf(t), (std::vector<float>{1, 2, 3, 4}));
    EXPECT_EQ(t.sparsity->traversal_order, (std::vector<int32_t>{0, 1}));
    ASSERT_EQ(t.sparsity->dim_metadata.size(), 2u);
    EXPECT_FALSE(t.sparsity->dim_metadata[0].sparse_csr);
    EXPECT_EQ(t.sparsity->dim_metadata[0].dense_size, 4);
    EXPECT_TRUE(t.sparsity->dim_metadata[1].sparse_csr);
    EXPECT_EQ(t.sparsity->dim_metadata[1].array_segments, (std::vector<int32_t>{0, 2, 2, 4, 4}));
    EXPECT_EQ(t.sparsity->dim_metadata[1].array_indices, (std::vector<int32_t>{0, 3, 1, 2}));
    // The DENSIFY output is an ordinary float16 activation.
    EXPECT_EQ(g->tensors[d].type, DataType::kFloat16);
  }
}

TEST(Reader, BlockSparseConstant) {
  // 4x4 with 2x2 blocks: block grid 2x2 (dense rows, CSR block columns),
  // block contents dense. Blocks (0,1) and (1,0) are stored.
  SparsityInfo sp;
  sp.traversal_order = {0, 1, 2, 3};
  sp.block_map = {0, 1};
  sp.dim_metadata.resize(4);
  sp.dim_metadata[0].dense_size = 2;
  sp.dim_metadata[1].sparse_csr = true;
  sp.dim_metadata[1].array_segments = {0, 1, 2};
  sp.dim_metadata[1].array_indices = {1, 0};
  sp.dim_metadata[2].dense_size = 2;
  sp.dim_metadata[3].dense_size = 2;
  std::vector<float> values(8);
  for (int i = 0; i < 8; ++i) values[i] = static_cast<float>(i + 1);
  ModelBuilder b;
  int s = b.AddSparseConstant("bs", ElementType::kFloat32, {4, 4}, sp, values.data(), 32);
  int d = b.AddTensor("d", ElementType::kFloat32, {4, 4});
  ASSERT_TRUE(b.AddOp("DENSIFY", {s}, {d}).ok());
  b.SetOutputs({d});
  auto bytes = b.Finish();
  auto g = ReadBytes(*bytes);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->tensors[s].sparsity->block_map, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(FloatsOf(g->tensors[s]), values);
}

// Sparse encodings that do not fit their shape or data.
TEST(Reader, InconsistentSparsityIsAnError) {
  struct BadCase {
    const char* what;
    std::function<void(SparsityInfo*)> mutate;
    const char* message;
  };
  const BadCase cases[] = {
      {"segments too short", [](SparsityInfo* s) { s->dim_metadata[1].array_segments = {0, 2, 4}; },
       "array_segments, expected 5"},
      {"index out of range", [](SparsityInfo* s) { s->dim_metadata[1].array_indices = {0, 4, 1, 2}; },
       "array_indices entry 1 is 4"},
      {"segments decrease", [](SparsityInfo* s) { s->dim_metadata[1].array_segments = {0, 3, 1, 4, 4}; },
       "out of order"},
      {"dense size wrong", [](SparsityInfo* s) { s->dim_metadata[0].dense_size = 5; },
       "dense_size 5 != dimension size 4"},
      {"order not a permutation", [](SparsityInfo* s) { s->traversal_order = {1, 1}; },
       "not a valid permutation"},
      {"order too short", [](SparsityInfo* s) { s->traversal_order = {0}; }, "traversal_order has 1"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.what);
    SparsityInfo sp;
    sp.traversal_order = {0, 1};
    sp.dim_metadata.resize(2);
    sp.dim_metadata[0].dense_size = 4;
    sp.dim_metadata[1].sparse_csr = true;
    sp.dim_metadata[1].array_segments = {0, 2, 2, 4, 4};
    sp.dim_metadata[1].array_indices = {0, 3, 1, 2};
    c.mutate(&sp);
    const std::vector<float> values = {1, 2, 3, 4};
    ModelBuilder b;
    int s = b.AddSparseConstant("sparse_w", ElementType::kFloat32, {4, 4}, sp, values.data(), 16);
    int d = b.AddTensor("d", ElementType::kFloat32, {4, 4});
    ASSERT_TRUE(b.AddOp("DENSIFY", {s}, {d}).ok());
    b.SetOutputs({d});
    GLD_EXPECT_ERROR(ReadBytes(*b.Finish()), "tensor 0 'sparse_w'", "sparsity", c.message);
  }
  // Right encoding, wrong number of stored values.
  SparsityInfo sp;
  sp.traversal_order = {0, 1};
  sp.dim_metadata.resize(2);
  sp.dim_metadata[0].dense_size = 4;
  sp.dim_metadata[1].sparse_csr = true;
  sp.dim_metadata[1].array_segments = {0, 2, 2, 4, 4};
  sp.dim_metadata[1].array_indices = {0, 3, 1, 2};
  const std::vector<float> values = {1, 2, 3};
  ModelBuilder b;
  int s = b.AddSparseConstant("sparse_w", ElementType::kFloat32, {4, 4}, sp, values.data(), 12);
  int d = b.AddTensor("d", ElementType::kFloat32, {4, 4});
  ASSERT_TRUE(b.AddOp("DENSIFY", {s}, {d}).ok());
  b.SetOutputs({d});
  GLD_EXPECT_ERROR(ReadBytes(*b.Finish()), "tensor 0 'sparse_w'", "holds 12 bytes", "4 stored values");
}

TEST(Reader, SubgraphsAndSignatures) {
  ConvModel m;
  BuildOptions o;
  o.extra_subgraphs = 2;
  auto g = ReadBytes(*m.b.Finish(o));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->other_subgraphs, (std::vector<std::string>{"extra_1", "extra_2"}));
  EXPECT_EQ(g->nodes.size(), 1u);

  // The main graph second: the signature points the reader at it.
  o.main_subgraph_index = 1;
  o.signature_key = "serving";
  o.signature_input_names = {"image"};
  o.signature_output_names = {"features"};
  TfliteLoadInfo info;
  g = ReadBytes(*m.b.Finish(o), &info);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(info.subgraph_index, 1);
  EXPECT_EQ(info.signature_key, "serving");
  EXPECT_EQ(g->other_subgraphs, (std::vector<std::string>{"extra_1", "extra_2"}));
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].op, OpType::kConv2d);
  // The tensors keep the file's names (LiteRT's input and output details);
  // the signature's names are a mapping of their own (was: the signature's
  // names replaced the tensors', so Python's get_input_details said 'image').
  EXPECT_EQ(g->tensors[g->inputs[0]].name, "x");
  EXPECT_EQ(g->tensors[g->outputs[0]].name, "y");
  EXPECT_EQ(g->tensors[m.w].name, "conv/weights");
  ASSERT_EQ(info.signatures.size(), 1u);
  ASSERT_EQ(info.signatures[0].inputs.size(), 1u);
  EXPECT_EQ(info.signatures[0].inputs[0].name, "image");
  EXPECT_EQ(info.signatures[0].inputs[0].tensor_index, m.x);
  ASSERT_EQ(info.signatures[0].outputs.size(), 1u);
  EXPECT_EQ(info.signatures[0].outputs[0].name, "features");
  EXPECT_EQ(info.signatures[0].outputs[0].tensor_index, m.y);
}

TEST(Reader, RanksZeroToSix) {
  ModelBuilder b;
  int s = b.AddInput("scalar", ElementType::kFloat32, {});
  int r6 = b.AddInput("r6", ElementType::kFloat32, {1, 2, 1, 2, 1, 2});
  int out = b.AddTensor("out", ElementType::kFloat32, {1, 2, 1, 2, 1, 2});
  int c0 = b.AddConstantFloat("c0", {}, {3.0f});
  int mid = b.AddTensor("mid", ElementType::kFloat32, {});
  ASSERT_TRUE(b.AddOp("MUL", {s, c0}, {mid}).ok());
  ASSERT_TRUE(b.AddOp("ADD", {r6, mid}, {out}).ok());
  b.SetOutputs({out});
  auto g = ReadBytes(*b.Finish());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_TRUE(g->tensors[s].shape.empty());
  EXPECT_EQ(g->tensors[r6].shape.size(), 6u);
  EXPECT_EQ(FloatsOf(g->tensors[c0]), std::vector<float>{3.0f});
}

// ---------------------------------------------------------------------------
// Bad files.

TEST(ReaderErrors, EmptyAndTiny) {
  std::vector<uint8_t> empty;
  GLD_EXPECT_ERROR(ReadBytes(empty), "empty");
  std::vector<uint8_t> tiny = {1, 2, 3};
  GLD_EXPECT_ERROR(ReadBytes(tiny), "3 bytes");
  std::vector<uint8_t> garbage(1000, 0xab);
  GLD_EXPECT_ERROR(ReadBytes(garbage), "verification failed");
}

TEST(ReaderErrors, TruncatedEverywhere) {
  ConvModel m;
  for (bool after : {false, true}) {
    BuildOptions o;
    o.buffers_after_flatbuffer = after;
    auto bytes = m.b.Finish(o);
    ASSERT_TRUE(bytes.ok());
    for (size_t n = 0; n < bytes->size(); ++n) {
      std::vector<uint8_t> cut(bytes->begin(), bytes->begin() + static_cast<std::ptrdiff_t>(n));
      auto g = ReadBytes(cut);
      EXPECT_FALSE(g.ok()) << "truncated to " << n << " of " << bytes->size() << " bytes";
      if (!g.ok()) {
        EXPECT_FALSE(g.status().message().empty());
      }
    }
  }
}

TEST(ReaderErrors, BitFlipsNeverCrash) {
  ConvModel m;
  auto bytes = m.b.Finish();
  ASSERT_TRUE(bytes.ok());
  std::mt19937 rng(1234);
  int errors = 0;
  for (size_t pos = 0; pos < bytes->size(); ++pos) {
    for (int bit = 0; bit < 8; bit += 3) {
      std::vector<uint8_t> flipped = *bytes;
      flipped[pos] ^= static_cast<uint8_t>(1u << bit);
      auto g = ReadBytes(flipped);
      if (!g.ok()) {
        ++errors;
        EXPECT_FALSE(g.status().message().empty());
      }
    }
  }
  // Random multi-byte damage too.
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> damaged = *bytes;
    for (int k = 0; k < 4; ++k) damaged[rng() % damaged.size()] = static_cast<uint8_t>(rng());
    auto g = ReadBytes(damaged);
    if (!g.ok()) {
      EXPECT_FALSE(g.status().message().empty());
    }
  }
  // Flips in header, offsets and vtables must be caught (data flips need not).
  EXPECT_GT(errors, static_cast<int>(bytes->size() / 4));
}

TEST(ReaderErrors, BadTensorIndex) {
  ModelBuilder b;
  b.set_allow_invalid(true);
  int x = b.AddInput("x", ElementType::kFloat32, {2});
  int y = b.AddTensor("y", ElementType::kFloat32, {2});
  ASSERT_TRUE(b.AddOp("ADD", {x, 17}, {y}).ok());
  b.SetOutputs({y});
  GLD_EXPECT_ERROR(ReadBytes(*b.Finish()), "node 0 (ADD)", "input 1 refers to tensor 17",
                   "has 2 tensors");
}

TEST(ReaderErrors, BadGraphOutputIndex) {
  ModelBuilder b;
  b.set_allow_invalid(true);
  int x = b.AddInput("x", ElementType::kFloat32, {2});
  int y = b.AddTensor("y", ElementType::kFloat32, {2});
  ASSERT_TRUE(b.AddOp("RELU", {x}, {y}).ok());
  b.SetOutputs({y, 5});
  GLD_EXPECT_ERROR(ReadBytes(*b.Finish()), "subgraph 0: output 1 refers to tensor 5");
}

TEST(ReaderErrors, RequiredInputAbsent) {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {2});
  int y = b.AddTensor("y", ElementType::kFloat32, {2});
  ASSERT_TRUE(b.AddOp("ADD", {x, -1}, {y}).ok());
  b.SetOutputs({y});
  GLD_EXPECT_ERROR(ReadBytes(*b.Finish()), "node 0 (ADD)", "input 1 is absent (-1) but required");
}

TEST(ReaderErrors, BadBufferSize) {
  ModelBuilder b;
  b.set_allow_invalid(true);
  int x = b.AddInput("x", ElementType::kFloat32, {1, 3, 3, 3});
  std::vector<float> w(25);
  int wt = b.AddConstant("conv/weights", ElementType::kFloat32, {8, 3, 3, 3}, w.data(), 100);
  int y = b.AddTensor("y", ElementType::kFloat32, {1, 3, 3, 8});
  ASSERT_TRUE(b.AddOp("CONV_2D", {x, wt}, {y}).ok());
  b.SetOutputs({y});
  GLD_EXPECT_ERROR(ReadBytes(*b.Finish()), "subgraph 0, tensor 1 'conv/weights'",
                   "holds 100 bytes", "[8, 3, 3, 3]", "float32 needs 864");
}

TEST(ReaderErrors, NegativeDimension) {
  ModelBuilder b;
  b.set_allow_invalid(true);
  int x = b.AddInput("x", ElementType::kFloat32, {1, -3, 4});
  int y = b.AddTensor("y", ElementType::kFloat32, {1, 3, 4});
  ASSERT_TRUE(b.AddOp("RELU", {x}, {y}).ok());
  b.SetOutputs({y});
  GLD_EXPECT_ERROR(ReadBytes(*b.Finish()), "tensor 0 'x'", "negative dimension -3");
}

TEST(ReaderErrors, OverflowingShape) {
  ModelBuilder b;
  b.set_allow_invalid(true);
  int x = b.AddInput("huge", ElementType::kFloat32, {65536, 65536, 65536, 65536});
  int y = b.AddTensor("y", ElementType::kFloat32, {1});
  ASSERT_TRUE(b.AddOp("RELU", {x}, {y}).ok());
  b.SetOutputs({y});
  GLD_EXPECT_ERROR(ReadBytes(*b.Finish()), "tensor 0 'huge'", "[65536, 65536, 65536, 65536]",
                   "more than");

  // Individually fine tensors that add up past the total limit.
  ModelBuilder b2;
  int prev = b2.AddInput("in", ElementType::kFloat32, {1 << 15, 1 << 15});
  for (int i = 0; i < 40; ++i) {
    int next = b2.AddTensor("t" + std::to_string(i), ElementType::kFloat32, {1 << 15, 1 << 15});
    ASSERT_TRUE(b2.AddOp("RELU", {prev}, {next}).ok());
    prev = next;
  }
  b2.SetOutputs({prev});
  GLD_EXPECT_ERROR(ReadBytes(*b2.Finish()), "bytes in total");
}

TEST(ReaderErrors, UnknownBuiltinOps) {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {2});
  int y = b.AddTensor("y", ElementType::kFloat32, {2});
  int z = b.AddTensor("z", ElementType::kFloat32, {2});
  ASSERT_TRUE(b.AddOp("RELU", {x}, {y}).ok());
  ASSERT_TRUE(b.AddOp("MATRIX_DIAG", {y}, {z}).ok());
  b.SetOutputs({z});
  GLD_EXPECT_ERROR(ReadBytes(*b.Finish()), "node 1: unsupported builtin op 'MATRIX_DIAG'");
}

// A custom_code the op table does not name is read as an app's custom op
// (OpType::kCustom) with its name, version and option bytes; whether one is
// registered is the Interpreter's question (tests/api/custom_op_test.cc).
TEST(Reader, UnknownCustomOpsAreAppCustomOps) {
  ModelBuilder c;
  int x = c.AddInput("x", ElementType::kFloat32, {2});
  int y = c.AddTensor("y", ElementType::kFloat32, {2});
  int z = c.AddTensor("z", ElementType::kFloat32, {2});
  ASSERT_TRUE(c.AddOp("RELU", {x}, {y}).ok());
  ASSERT_TRUE(c.AddCustomOp("Foo", {y}, {z}, {1, 2}, 3).ok());
  c.SetOutputs({z});
  auto g = ReadBytes(*c.Finish());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[1].op, OpType::kCustom);
  EXPECT_STREQ(NodeOpName(g->nodes[1]), "Foo");
  EXPECT_EQ(g->NodeLabel(1), "node 1 (Foo)");
  const auto& a = g->nodes[1].attrs<CustomAttributes>();
  EXPECT_EQ(a.name, "Foo");
  EXPECT_EQ(a.version, 3);
  ASSERT_NE(a.options, nullptr);
  EXPECT_EQ(*a.options, (std::vector<uint8_t>{1, 2}));
  EXPECT_EQ(a.op, nullptr);

  // A custom op named like a builtin is the app's op, not the builtin.
  ModelBuilder d;
  x = d.AddInput("x", ElementType::kFloat32, {2});
  y = d.AddTensor("y", ElementType::kFloat32, {2});
  ASSERT_TRUE(d.AddCustomOp("RELU", {x}, {y}).ok());
  d.SetOutputs({y});
  g = ReadBytes(*d.Finish());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->nodes[0].op, OpType::kCustom);
  EXPECT_EQ(g->nodes[0].attrs<CustomAttributes>().name, "RELU");
  EXPECT_EQ(g->nodes[0].attrs<CustomAttributes>().options, nullptr);
}

TEST(ReaderErrors, NodeOrderAndArity) {
  // y is read before any node writes it.
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {2});
  int y = b.AddTensor("y", ElementType::kFloat32, {2});
  int z = b.AddTensor("z", ElementType::kFloat32, {2});
  ASSERT_TRUE(b.AddOp("ADD", {x, y}, {z}).ok());
  ASSERT_TRUE(b.AddOp("RELU", {x}, {y}).ok());
  b.SetOutputs({z});
  GLD_EXPECT_ERROR(ReadBytes(*b.Finish()), "node 0 (ADD)", "input 1", "'y'",
                   "not a graph input, a constant or the output of an earlier node");

  ModelBuilder c;
  x = c.AddInput("x", ElementType::kFloat32, {2});
  y = c.AddTensor("y", ElementType::kFloat32, {2});
  ASSERT_TRUE(c.AddOp("ADD", {x}, {y}).ok());
  c.SetOutputs({y});
  GLD_EXPECT_ERROR(ReadBytes(*c.Finish()), "node 0 (ADD)", "has 1 inputs, expected 2");

  // Two nodes writing one tensor.
  ModelBuilder d;
  x = d.AddInput("x", ElementType::kFloat32, {2});
  y = d.AddTensor("y", ElementType::kFloat32, {2});
  ASSERT_TRUE(d.AddOp("RELU", {x}, {y}).ok());
  ASSERT_TRUE(d.AddOp("RELU6", {x}, {y}).ok());
  d.SetOutputs({y});
  GLD_EXPECT_ERROR(ReadBytes(*d.Finish()), "node 1 (RELU6)", "output 0");

  // A stride of 0.
  ModelBuilder e;
  x = e.AddInput("x", ElementType::kFloat32, {1, 4, 4, 1});
  y = e.AddTensor("y", ElementType::kFloat32, {1, 2, 2, 1});
  ASSERT_TRUE(e.AddOp("MAX_POOL_2D", {x}, {y}, {{"stride_w", 0}}).ok());
  e.SetOutputs({y});
  GLD_EXPECT_ERROR(ReadBytes(*e.Finish()), "node 0 (MAX_POOL_2D)", "stride_w is 0");
}

// Files the builder cannot express, written with the generated API.
struct RawModel {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers;
  std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes;
  std::vector<flatbuffers::Offset<tflite::Operator>> ops;
  std::vector<int> inputs, outputs;

  RawModel() { buffers.push_back(tflite::CreateBuffer(fbb)); }
  int Tensor(const char* name, std::vector<int> shape, uint32_t buffer = 0,
             tflite::TensorType type = tflite::TensorType::FLOAT32) {
    tensors.push_back(tflite::CreateTensor(fbb, fbb.CreateVector(shape), type, buffer, fbb.CreateString(name)));
    return static_cast<int>(tensors.size()) - 1;
  }
  std::vector<uint8_t> Finish() {
    auto sg = tflite::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(inputs),
                                     fbb.CreateVector(outputs), fbb.CreateVector(ops));
    std::vector<flatbuffers::Offset<tflite::SubGraph>> sgs = {sg};
    auto model = tflite::CreateModel(fbb, 3, fbb.CreateVector(codes), fbb.CreateVector(sgs), 0,
                                     fbb.CreateVector(buffers));
    tflite::FinishModelBuffer(fbb, model);
    return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  }
};

// A sparse dimension whose index vector names a type but has no table (the
// verifier lets this through; found by the loader fuzzer).
TEST(ReaderErrors, SparseIndexVectorWithoutTable) {
  RawModel r;
  const std::vector<float> values = {1, 2, 3, 4};
  auto data = r.fbb.CreateVector(reinterpret_cast<const uint8_t*>(values.data()), 16);
  r.buffers.push_back(tflite::CreateBuffer(r.fbb, data));
  const std::vector<int32_t> order = {0, 1};
  const std::vector<int32_t> indices = {0, 3, 1, 2};
  auto idx = tflite::CreateInt32Vector(r.fbb, r.fbb.CreateVector(indices)).Union();
  std::vector<flatbuffers::Offset<tflite::DimensionMetadata>> dims = {
      tflite::CreateDimensionMetadata(r.fbb, tflite::DimensionType::DENSE, 4),
      tflite::CreateDimensionMetadata(r.fbb, tflite::DimensionType::SPARSE_CSR, 0,
                                      tflite::SparseIndexVector::Int32Vector, 0,
                                      tflite::SparseIndexVector::Int32Vector, idx)};
  auto sparsity = tflite::CreateSparsityParameters(r.fbb, r.fbb.CreateVector(order), 0,
                                                   r.fbb.CreateVector(dims));
  const std::vector<int> shape = {4, 4};
  r.tensors.push_back(tflite::CreateTensor(r.fbb, r.fbb.CreateVector(shape), tflite::TensorType::FLOAT32,
                                           1, r.fbb.CreateString("sparse_w"), 0, false, sparsity));
  int d = r.Tensor("d", {4, 4});
  r.codes.push_back(tflite::CreateOperatorCode(r.fbb, 124, 0, 1, tflite::BuiltinOperator::DENSIFY));
  std::vector<int> in = {0}, out = {d};
  r.ops.push_back(tflite::CreateOperator(r.fbb, 0, r.fbb.CreateVector(in), r.fbb.CreateVector(out)));
  r.outputs = {d};
  GLD_EXPECT_ERROR(ReadBytes(r.Finish()), "tensor 0 'sparse_w'", "array_segments",
                   "names a vector type but has no table");
}

TEST(ReaderErrors, BadBufferAndOpcodeIndex) {
  {
    RawModel r;
    int x = r.Tensor("x", {2});
    int c = r.Tensor("weights", {2}, 9);
    int y = r.Tensor("y", {2});
    r.codes.push_back(tflite::CreateOperatorCode(r.fbb, 0, 0, 1, tflite::BuiltinOperator::ADD));
    std::vector<int> in = {x, c}, out = {y};
    r.ops.push_back(tflite::CreateOperator(r.fbb, 0, r.fbb.CreateVector(in), r.fbb.CreateVector(out)));
    r.inputs = {x};
    r.outputs = {y};
    GLD_EXPECT_ERROR(ReadBytes(r.Finish()), "tensor 1 'weights'", "buffer index 9 is out of range");
  }
  {
    RawModel r;
    int x = r.Tensor("x", {2});
    int y = r.Tensor("y", {2});
    r.codes.push_back(tflite::CreateOperatorCode(r.fbb, 19));
    std::vector<int> in = {x}, out = {y};
    r.ops.push_back(tflite::CreateOperator(r.fbb, 3, r.fbb.CreateVector(in), r.fbb.CreateVector(out)));
    r.inputs = {x};
    r.outputs = {y};
    GLD_EXPECT_ERROR(ReadBytes(r.Finish()), "node 0", "opcode_index 3 is out of range");
  }
  {
    // Unknown tensor type and a wrong options table.
    RawModel r;
    int x = r.Tensor("s", {2}, 0, tflite::TensorType::STRING);
    r.inputs = {x};
    r.outputs = {x};
    GLD_EXPECT_ERROR(ReadBytes(r.Finish()), "tensor 0 's'", "unsupported type STRING");
  }
  {
    RawModel r;
    int x = r.Tensor("x", {1, 4, 4, 1});
    int w = r.Tensor("w", {1, 1, 1, 1});
    int y = r.Tensor("y", {1, 4, 4, 1});
    r.codes.push_back(tflite::CreateOperatorCode(r.fbb, 3));
    std::vector<int> in = {x, w}, out = {y};
    auto add = tflite::CreateAddOptions(r.fbb).Union();
    r.ops.push_back(tflite::CreateOperator(r.fbb, 0, r.fbb.CreateVector(in), r.fbb.CreateVector(out),
                                           tflite::BuiltinOptions::AddOptions, add));
    r.inputs = {x, w};
    r.outputs = {y};
    GLD_EXPECT_ERROR(ReadBytes(r.Finish()), "node 0 (CONV_2D)", "has builtin options AddOptions",
                     "expected Conv2DOptions");
  }
  {
    // Deprecated byte 127 with the real code in builtin_code (GELU = 150),
    // and an old file with a garbage builtin_code lower than the byte.
    RawModel r;
    int x = r.Tensor("x", {2});
    int y = r.Tensor("y", {2});
    int z = r.Tensor("z", {2});
    r.codes.push_back(tflite::CreateOperatorCode(r.fbb, 127, 0, 1, tflite::BuiltinOperator::GELU));
    r.codes.push_back(tflite::CreateOperatorCode(r.fbb, 21, 0, 1, tflite::BuiltinOperator::ADD));
    std::vector<int> in = {x}, mid = {y}, out = {z};
    r.ops.push_back(tflite::CreateOperator(r.fbb, 0, r.fbb.CreateVector(in), r.fbb.CreateVector(mid)));
    r.ops.push_back(tflite::CreateOperator(r.fbb, 1, r.fbb.CreateVector(mid), r.fbb.CreateVector(out)));
    r.inputs = {x};
    r.outputs = {z};
    auto g = ReadBytes(r.Finish());
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(g->nodes[0].op, OpType::kGelu);
    EXPECT_EQ(g->nodes[1].op, OpType::kRelu6);
  }
  {
    // A signature def pointing at a missing subgraph.
    flatbuffers::FlatBufferBuilder fbb;
    auto sg = tflite::CreateSubGraph(fbb);
    std::vector<flatbuffers::Offset<tflite::SubGraph>> sgs = {sg};
    auto sig = tflite::CreateSignatureDef(fbb, 0, 0, fbb.CreateString("run"), 4);
    std::vector<flatbuffers::Offset<tflite::SignatureDef>> sigs = {sig};
    auto model = tflite::CreateModel(fbb, 3, 0, fbb.CreateVector(sgs), 0, 0, 0, 0, fbb.CreateVector(sigs));
    tflite::FinishModelBuffer(fbb, model);
    std::vector<uint8_t> bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
    GLD_EXPECT_ERROR(ReadBytes(bytes), "signature def 0 ('run') refers to subgraph 4");
  }
}

TEST(Reader, LargeCustomOptionsAfterTheFlatbuffer) {
  // Options stored past the flatbuffer at a fixed offset (4096), as
  // converters do for models over 2 GB.
  for (bool inside : {true, false}) {
    SCOPED_TRACE(inside);
    RawModel r;
    int x = r.Tensor("x", {1, 2, 2, 4});
    int w = r.Tensor("w", {1, 2, 2, 4});
    int bias = r.Tensor("b", {1});
    int y = r.Tensor("y", {1, 4, 4, 1});
    r.codes.push_back(tflite::CreateOperatorCode(r.fbb, 32, r.fbb.CreateString("Convolution2DTransposeBias")));
    std::vector<int> in = {x, w, bias}, out = {y};
    r.ops.push_back(tflite::CreateOperator(r.fbb, 0, r.fbb.CreateVector(in), r.fbb.CreateVector(out),
                                           tflite::BuiltinOptions::NONE, 0, 0,
                                           tflite::CustomOptionsFormat::FLEXBUFFERS, 0, 0, 4096, 12));
    r.inputs = {x, w, bias};
    r.outputs = {y};
    std::vector<uint8_t> bytes = r.Finish();
    ASSERT_LT(bytes.size(), 4096u);
    bytes.resize(4096);
    const int32_t fields[3] = {2, 3, 1};  // VALID, stride_w 3, stride_h 1
    if (inside) bytes.insert(bytes.end(), reinterpret_cast<const uint8_t*>(fields),
                             reinterpret_cast<const uint8_t*>(fields) + 12);
    auto g = ReadBytes(bytes);
    if (!inside) {
      GLD_EXPECT_ERROR(g, "node 0 (Convolution2DTransposeBias)", "custom options at offset 4096",
                       "outside the file");
      continue;
    }
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    const auto& a = g->nodes[0].attrs<TransposeConvAttributes>();
    EXPECT_EQ(a.padding, Padding::kValid);
    EXPECT_EQ(a.stride_w, 3);
    EXPECT_EQ(a.stride_h, 1);
  }
}

TEST(Reader, BuilderWritesRegisteredOpVersions) {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {1, 2});
  int shape = b.AddConstantInt32("shape", {2}, {3, 2});
  int y = b.AddTensor("y", ElementType::kFloat32, {3, 2});
  int z = b.AddTensor("z", ElementType::kFloat32, {3, 2});
  ASSERT_TRUE(b.AddOp("BROADCAST_TO", {x, shape}, {y}).ok());
  OpOptions v3;
  v3.version = 3;
  ASSERT_TRUE(b.AddOp("RELU", {y}, {z}, v3).ok());
  b.SetOutputs({z});
  TfliteLoadInfo info;
  auto g = ReadBytes(*b.Finish(), &info);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  // TFLite registers BROADCAST_TO from version 2.
  EXPECT_EQ(info.op_versions, (std::vector<int>{2, 3}));
}

TEST(ReaderErrors, MisalignedInputIsCopied) {
  ConvModel m;
  auto bytes = m.b.Finish();
  std::vector<uint8_t> shifted(bytes->size() + 1);
  std::memcpy(shifted.data() + 1, bytes->data(), bytes->size());
  auto g = ReadTfliteModel(shifted.data() + 1, bytes->size());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(FloatsOf(g->tensors[m.w]), m.weights);
}

// Window factors LiteRT would refuse: each one alone in an otherwise valid
// model gives an error naming the node, the field and the value.
struct BadFactor {
  const char* op;
  const char* field;
};

TEST(Reader, WindowFactorsPastInt16AreRefused) {
  const BadFactor cases[] = {{"CONV_2D", "dilation_w_factor"},        {"CONV_2D", "stride_h"},
                             {"DEPTHWISE_CONV_2D", "dilation_h_factor"}, {"DEPTHWISE_CONV_2D", "stride_w"},
                             {"MAX_POOL_2D", "filter_width"},            {"AVERAGE_POOL_2D", "filter_height"},
                             {"MAX_POOL_2D", "stride_w"}};
  for (const BadFactor& c : cases) {
    SCOPED_TRACE(std::string(c.op) + " " + c.field);
    ModelBuilder b;
    const int x = b.AddInput("x", ElementType::kFloat32, {1, 4, 4, 2});
    const int y = b.AddTensor("y", ElementType::kFloat32, {1, 4, 4, 2});
    const bool pool = std::string(c.op).find("POOL") != std::string::npos;
    std::vector<int> inputs = {x};
    if (!pool) inputs.push_back(b.AddConstantFloat("w", {1, 1, 1, 2}, {1, 1}));
    OpOptions options = {{"padding", "SAME"}};
    for (const char* filter : {"filter_width", "filter_height"}) {
      if (pool && std::string(filter) != c.field) options.values.push_back({filter, 1});
    }
    options.values.push_back({c.field, 2147483647});
    ASSERT_TRUE(b.AddOp(c.op, inputs, {y}, options).ok());
    b.SetOutputs({y});
    auto bytes = b.Finish();
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    const std::string value = std::string(c.field) + " is 2147483647";
    GLD_EXPECT_ERROR(ReadBytes(*bytes), "node 0", c.op, value.c_str(), "1..32767");
  }
}

TEST(Reader, FileIdentifierOtherThanTFL3IsRefused) {
  ConvModel m;
  auto bytes = m.b.Finish();
  ASSERT_TRUE(bytes.ok());
  std::vector<uint8_t> other = *bytes;
  std::memcpy(other.data() + 4, "TFL2", 4);
  GLD_EXPECT_ERROR(ReadBytes(other), "file identifier is 'TFL2', not 'TFL3'");
  std::memcpy(other.data() + 4, "\x01\x02\x03\x04", 4);
  GLD_EXPECT_ERROR(ReadBytes(other), "file identifier is 0x01020304");
}

TEST(Reader, SchemaVersionNewerThanThreeIsRefused) {
  ConvModel m;
  auto bytes = m.b.Finish();
  ASSERT_TRUE(bytes.ok());
  std::vector<uint8_t> newer = *bytes;
  const tflite::Model* model = tflite::GetModel(newer.data());
  ASSERT_EQ(model->version(), 3u);
  const uint8_t* field = reinterpret_cast<const flatbuffers::Table*>(model)->GetAddressOf(tflite::Model::VT_VERSION);
  ASSERT_NE(field, nullptr);
  const uint32_t v99 = 99;
  std::memcpy(newer.data() + (field - newer.data()), &v99, sizeof(v99));
  GLD_EXPECT_ERROR(ReadBytes(newer), "schema version 99 is newer than 3");
}

}  // namespace
}  // namespace gld
