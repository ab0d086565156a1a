// DEQUANTIZE, QUANTIZE (incl. the float view), DENSIFY / DensifyTensor.
#include <algorithm>
#include <cmath>
#include <limits>
#include <fstream>
#include <iterator>

#include "cpu_kernels/ops/densify.h"
#include "model/tflite_reader.h"
#include "op_test_util.h"
#include "common/model_paths.h"

namespace gld::testing {
namespace {

TEST(Dequantize, Int8AndUint8PerTensor) {
  OpTest t;
  const int a = t.Input<int8_t>({3}, {-128, 0, 127});
  t.graph.tensors[static_cast<size_t>(a)].quant = Quant(0.5f, -1);
  const int b = t.Input<uint8_t>({3}, {0, 128, 255});
  t.graph.tensors[static_cast<size_t>(b)].quant = Quant(1.f / 128, 128);
  const int oa = t.Output(), ob = t.Output();
  t.Node(OpType::kDequantize, {a}, {oa});
  t.Node(OpType::kDequantize, {b}, {ob});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.TypeOfTensor(oa), DataType::kFloat32);
  ExpectNear(t.Get(oa), {-63.5f, 0.5f, 64});
  ExpectNear(t.Get(ob), {-1, 0, 127.f / 128});
}

// Every 8-bit value of a per-tensor quantization (looked up in a table of
// the 256 results from 256 values on, computed one by one below):
// float(double(v - zero point) * scale), bit for bit.
TEST(Dequantize, Every8BitValueExactly) {
  for (bool int8 : {true, false}) {
    for (int chunk : {256, 16}) {
      const float scale = 0.0173f;
      const int zp = int8 ? -7 : 133;
      for (int first = 0; first < 256; first += chunk) {
        OpTest t;
        std::vector<int> values(static_cast<size_t>(chunk));
        for (int v = 0; v < chunk; ++v) values[static_cast<size_t>(v)] = first + v - (int8 ? 128 : 0);
        const int in = int8 ? t.Input<int8_t>({chunk}, std::vector<int8_t>(values.begin(), values.end()))
                            : t.Input<uint8_t>({chunk}, std::vector<uint8_t>(values.begin(), values.end()));
        t.graph.tensors[static_cast<size_t>(in)].quant = Quant(scale, zp);
        const int out = t.Output();
        t.Node(OpType::kDequantize, {in}, {out});
        GLD_ASSERT_OK(t.Run());
        const std::vector<float> got = t.Get(out);
        for (int v = 0; v < chunk; ++v) {
          const float want = static_cast<float>(static_cast<double>(values[static_cast<size_t>(v)] - zp) *
                                                static_cast<double>(scale));
          EXPECT_EQ(got[static_cast<size_t>(v)], want)
              << "value " << values[static_cast<size_t>(v)] << " chunk " << chunk;
        }
      }
    }
  }
}

TEST(Dequantize, PerChannelBothDims) {
  for (int32_t dim : {0, 1}) {
    OpTest t;
    const int a = t.Input<int8_t>({2, 2}, {1, 2, 3, 4});
    t.graph.tensors[static_cast<size_t>(a)].quant = Quant({1, 10}, {0, 1}, dim);
    const int o = t.Output();
    t.Node(OpType::kDequantize, {a}, {o});
    GLD_ASSERT_OK(t.Run());
    if (dim == 0) {
      ExpectNear(t.Get(o), {1, 2, 20, 30});
    } else {
      ExpectNear(t.Get(o), {1, 10, 3, 30});
    }
  }
}

TEST(Dequantize, Float16AndMissingParams) {
  OpTest t;
  // 1.0, -2.0, 0.333251953125, +inf, smallest subnormal 2^-24
  const int a = t.Input<uint16_t>({5}, {0x3C00, 0xC000, 0x3555, 0x7C00, 0x0001});
  const int o = t.Output();
  t.Node(OpType::kDequantize, {a}, {o});
  GLD_ASSERT_OK(t.Run());
  const auto v = t.Get(o);
  EXPECT_EQ(v[0], 1.f);
  EXPECT_EQ(v[1], -2.f);
  EXPECT_EQ(v[2], 0.333251953125f);
  EXPECT_TRUE(std::isinf(v[3]) && v[3] > 0);
  EXPECT_EQ(v[4], std::ldexp(1.f, -24));
  OpTest u;
  const int b = u.Input<int8_t>({2}, {1, 2});
  const int ob = u.Output();
  u.Node(OpType::kDequantize, {b}, {ob});
  Status s = u.Run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("DEQUANTIZE"), std::string::npos);
}

TEST(Quantize, FloatToInt8AndUint8) {
  const std::vector<float> x{0.2f, -1.3f, 100, -100, 0.25f, -0.25f};
  {
    OpTest t;
    const int in = t.Input<float>({6}, x);
    const int out = t.Output(DataType::kInt8);
    t.graph.tensors[static_cast<size_t>(out)].quant = Quant(0.5f, 1);
    t.Node(OpType::kQuantize, {in}, {out});
    GLD_ASSERT_OK(t.Run());
    EXPECT_EQ(t.TypeOfTensor(out), DataType::kInt8);
    // round(x / 0.5) half away from zero, + 1, clamped to [-128, 127]
    EXPECT_EQ(t.Get<int8_t>(out), (std::vector<int8_t>{1, -2, 127, -128, 2, 0}));
  }
  {
    OpTest t;
    const int in = t.Input<float>({6}, x);
    const int out = t.Output(DataType::kUInt8);
    t.graph.tensors[static_cast<size_t>(out)].quant = Quant(1.f, 128);
    t.Node(OpType::kQuantize, {in}, {out});
    GLD_ASSERT_OK(t.Run());
    EXPECT_EQ(t.Get<uint8_t>(out), (std::vector<uint8_t>{128, 127, 228, 28, 128, 128}));
  }
}

TEST(Quantize, FloatViewRoundsToGridAndClamps) {
  OpTest t;
  const int in = t.Input<float>({6}, {0.2f, -1.3f, 100, -100, 0.25f, -0.25f});
  const int out = t.Output(DataType::kFloat32);
  t.graph.tensors[static_cast<size_t>(out)].quant = Quant(0.5f, 1);
  t.Node(OpType::kQuantize, {in}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.TypeOfTensor(out), DataType::kFloat32);
  // (q - 1) * 0.5 with q from the int8 grid above
  ExpectNear(t.Get(out), {0, -1.5f, 63, -64.5f, 0.5f, -0.5f});
}

// The vectorized pass against TFLite's formula, round(x / scale) + zp half
// away from zero, clamped (NaN to the lowest value), element by element: every
// tie of the grid, values past both ends, infinities, per tensor and per
// channel along the last and a middle dimension, each output type.
TEST(Quantize, VectorizedMatchesTfliteFormula) {
  std::vector<float> x;
  for (int k = -700; k <= 700; ++k) x.push_back(0.25f * static_cast<float>(k) * 0.37f);  // ties of scale 0.37/2
  for (int k = -300; k <= 300; ++k) x.push_back(static_cast<float>(k) * 0.0731f + 0.001f);
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-std::numeric_limits<float>::infinity());
  x.push_back(1e30f);
  while (x.size() % 6 != 0) x.push_back(0.5f);
  const int64_t n = static_cast<int64_t>(x.size());
  auto expected = [&](float v, float scale, int64_t zp, int64_t lo, int64_t hi) {
    double q = static_cast<double>(std::round(v / scale)) + static_cast<double>(zp);
    if (!(q >= static_cast<double>(lo))) q = static_cast<double>(lo);
    if (q > static_cast<double>(hi)) q = static_cast<double>(hi);
    return static_cast<int64_t>(q);
  };
  struct Case {
    DataType type;
    int64_t lo, hi;
    std::vector<float> scale;
    std::vector<int64_t> zp;
    int32_t dim;
    Shape shape;
  };
  const Shape flat{static_cast<int>(n)};
  const Shape rows{static_cast<int>(n / 6), 2, 3};
  const std::vector<Case> cases = {
      {DataType::kInt8, -128, 127, {0.185f}, {3}, 0, flat},
      {DataType::kUInt8, 0, 255, {0.37f}, {128}, 0, flat},
      {DataType::kInt16, -32768, 32767, {0.0185f}, {0}, 0, flat},
      {DataType::kInt8, -128, 127, {0.185f, 0.37f, 0.05f}, {0, -5, 7}, 2, rows},
      {DataType::kInt8, -128, 127, {0.185f, 0.5f}, {1, -1}, 1, rows},
  };
  for (const Case& c : cases) {
    for (bool float_view : {false, true}) {
      OpTest t;
      const int in = t.Input<float>(c.shape, x);
      const int out = t.Output(float_view ? DataType::kFloat32 : c.type);
      t.graph.tensors[static_cast<size_t>(out)].quant = Quant(c.scale, c.zp, c.dim);
      t.graph.tensors[static_cast<size_t>(out)].quant.storage_type = c.type;
      t.Node(OpType::kQuantize, {in}, {out});
      GLD_ASSERT_OK(t.Run());
      int64_t inner = 1;
      for (size_t d = static_cast<size_t>(c.dim) + 1; d < c.shape.size(); ++d) inner *= c.shape[d];
      const std::vector<float> got_view = float_view ? t.Get(out) : std::vector<float>{};
      for (int64_t i = 0; i < n; ++i) {
        const size_t ch = c.scale.size() == 1 ? 0 : static_cast<size_t>((i / inner) % static_cast<int64_t>(c.scale.size()));
        const int64_t want = expected(x[static_cast<size_t>(i)], c.scale[ch], c.zp[ch], c.lo, c.hi);
        int64_t got = 0;
        if (float_view) {
          const float want_view = static_cast<float>(want - c.zp[ch]) * c.scale[ch];
          ASSERT_EQ(got_view[static_cast<size_t>(i)], want_view) << "element " << i << " x=" << x[static_cast<size_t>(i)];
          continue;
        }
        switch (c.type) {
          case DataType::kInt8: got = t.Get<int8_t>(out)[static_cast<size_t>(i)]; break;
          case DataType::kUInt8: got = t.Get<uint8_t>(out)[static_cast<size_t>(i)]; break;
          default: got = t.Get<int16_t>(out)[static_cast<size_t>(i)]; break;
        }
        ASSERT_EQ(got, want) << DataTypeName(c.type) << " element " << i << " x=" << x[static_cast<size_t>(i)];
      }
    }
  }
}

// Values within a few ulps of the grid's half steps, where a product by
// 1/scale and the quotient x / scale can round apart (the AVX-512 pass
// multiplies and must divide there), and random values over the whole
// range: every one quantized as round(x / scale) half away from zero.
TEST(Quantize, NearTiesQuantizeAsTheQuotient) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&]() {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  for (const float scale : {0.00784308f, 0.1f, 0.37f, 1.0f / 3.0f, 3.7e-5f, 12.5f}) {
    std::vector<float> x;
    for (int k = -40000; k <= 40000; k += 7) {
      const float tie = (static_cast<float>(k) + 0.5f) * scale;
      for (int ulps = -3; ulps <= 3; ++ulps) {
        float v = tie;
        for (int u = 0; u < std::abs(ulps); ++u) v = std::nextafter(v, ulps < 0 ? -INFINITY : INFINITY);
        x.push_back(v);
      }
    }
    for (int i = 0; i < 20000; ++i) {
      const double u = static_cast<double>(next() >> 11) * 0x1p-53;
      x.push_back(static_cast<float>((u * 2 - 1) * 33000.0 * static_cast<double>(scale)));
    }
    const int64_t n = static_cast<int64_t>(x.size());
    OpTest t;
    const int in = t.Input<float>({static_cast<int>(n)}, x);
    const int out = t.Output(DataType::kInt16);
    t.graph.tensors[static_cast<size_t>(out)].quant = Quant(scale, 5);
    t.Node(OpType::kQuantize, {in}, {out});
    GLD_ASSERT_OK(t.Run());
    const std::vector<int16_t> got = t.Get<int16_t>(out);
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[static_cast<size_t>(i)];
      const double q = std::clamp(static_cast<double>(std::round(v / scale)) + 5.0, -32768.0, 32767.0);
      ASSERT_EQ(got[static_cast<size_t>(i)], static_cast<int16_t>(q)) << "scale " << scale << " x=" << v;
    }
  }
}

TEST(Quantize, RequantizeInt8) {
  OpTest t;
  const int in = t.Input<int8_t>({3}, {-100, 0, 100});
  t.graph.tensors[static_cast<size_t>(in)].quant = Quant(0.1f, 0);
  const int out = t.Output(DataType::kInt8);
  t.graph.tensors[static_cast<size_t>(out)].quant = Quant(0.2f, -10);
  t.Node(OpType::kQuantize, {in}, {out});
  GLD_ASSERT_OK(t.Run());
  // reals -10, 0, 10 -> -50 - 10, -10, 50 - 10
  EXPECT_EQ(t.Get<int8_t>(out), (std::vector<int8_t>{-60, -10, 40}));
}

// Every 8-bit value requantized between int8 and uint8 (the table path):
// round(real / out_scale) + out_zp of the input's real value, clamped. With
// one scale and zero points 128 apart (a uint8 model's int8 body) the table
// is one addition to every byte, which runs as that addition.
TEST(Quantize, RequantizesEvery8BitValue) {
  for (bool shift : {false, true}) {
    for (bool from_int8 : {true, false}) {
      OpTest t;
      std::vector<int> values(256);
      for (int v = 0; v < 256; ++v) values[static_cast<size_t>(v)] = from_int8 ? v - 128 : v;
      int in = -1;
      if (from_int8) {
        in = t.Input<int8_t>({256}, std::vector<int8_t>(values.begin(), values.end()));
      } else {
        in = t.Input<uint8_t>({256}, std::vector<uint8_t>(values.begin(), values.end()));
      }
      const double in_zp = from_int8 ? -3.0 : 131.0;
      const float in_scale = 0.05f, out_scale = shift ? 0.05f : 0.07f;
      const double out_zp = shift ? in_zp + (from_int8 ? 128 : -128) : (from_int8 ? 120 : 5);
      t.graph.tensors[static_cast<size_t>(in)].quant = Quant(in_scale, static_cast<int64_t>(in_zp));
      const int out = t.Output(from_int8 ? DataType::kUInt8 : DataType::kInt8);
      t.graph.tensors[static_cast<size_t>(out)].quant = Quant(out_scale, static_cast<int64_t>(out_zp));
      t.Node(OpType::kQuantize, {in}, {out});
      GLD_ASSERT_OK(t.Run());
      for (int v = 0; v < 256; ++v) {
        const double real = (values[static_cast<size_t>(v)] - in_zp) * in_scale;
        double q = std::round(static_cast<float>(real) / out_scale) + out_zp;
        q = std::min(std::max(q, from_int8 ? 0.0 : -128.0), from_int8 ? 255.0 : 127.0);
        const int got =
            from_int8 ? t.Get<uint8_t>(out)[static_cast<size_t>(v)] : t.Get<int8_t>(out)[static_cast<size_t>(v)];
        EXPECT_EQ(got, static_cast<int>(q)) << "input " << values[static_cast<size_t>(v)] << (shift ? " (shift)" : "");
      }
    }
  }
}

// ---- DENSIFY -----------------------------------------------------------------

Tensor SparseCsr2d() {
  // dense [3, 4]: row 0 has cols 0, 3; row 1 empty; row 2 has col 1.
  Tensor t;
  t.name = "sparse";
  t.type = DataType::kFloat32;
  t.shape = {3, 4};
  t.is_constant = true;
  t.data = ToBytes(std::vector<float>{1, 2, 3});
  SparsityParams sp;
  sp.traversal_order = {0, 1};
  SparseDimension d0;
  d0.dense_size = 3;
  SparseDimension d1;
  d1.sparse_csr = true;
  d1.array_segments = {0, 2, 2, 3};
  d1.array_indices = {0, 3, 1};
  sp.dim_metadata = {d0, d1};
  t.sparsity = sp;
  return t;
}

std::vector<float> AsFloats(const std::vector<uint8_t>& b) {
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

TEST(DensifyTensor, CsrRows) {
  std::vector<uint8_t> dense;
  GLD_ASSERT_OK(cpu::DensifyTensor(SparseCsr2d(), &dense));
  ExpectNear(AsFloats(dense), {1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0});
}

// dense [4, 4], dim 1 split into blocks of 2: levels (row DENSE 4, column
// block CSR over 2 blocks, in-block DENSE 2); the metadata addresses 6 values.
Tensor BlockedColumns(const std::vector<float>& values) {
  Tensor t;
  t.name = "blocked";
  t.type = DataType::kFloat32;
  t.shape = {4, 4};
  t.is_constant = true;
  t.data = ToBytes(values);
  SparsityParams sp;
  sp.traversal_order = {0, 1, 2};
  sp.block_map = {1};
  SparseDimension rows, blocks, inner;
  rows.dense_size = 4;
  blocks.sparse_csr = true;
  blocks.array_segments = {0, 1, 1, 2, 3};
  blocks.array_indices = {1, 0, 1};
  inner.dense_size = 2;
  sp.dim_metadata = {rows, blocks, inner};
  t.sparsity = sp;
  return t;
}

TEST(DensifyTensor, BlockedColumns) {
  std::vector<uint8_t> dense;
  GLD_ASSERT_OK(cpu::DensifyTensor(BlockedColumns({1, 2, 3, 4, 5, 6}), &dense));
  ExpectNear(AsFloats(dense), {0, 0, 1, 2, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 5, 6});
}

TEST(DensifyTensor, ColumnMajorTraversal) {
  // traversal (1, 0): columns outer, both DENSE -> values stored transposed.
  Tensor t;
  t.name = "colmajor";
  t.type = DataType::kFloat32;
  t.shape = {2, 3};
  t.is_constant = true;
  t.data = ToBytes(std::vector<float>{1, 4, 2, 5, 3, 6});
  SparsityParams sp;
  sp.traversal_order = {1, 0};
  SparseDimension a, b;
  a.dense_size = 3;
  b.dense_size = 2;
  sp.dim_metadata = {a, b};
  t.sparsity = sp;
  std::vector<uint8_t> dense;
  GLD_ASSERT_OK(cpu::DensifyTensor(t, &dense));
  ExpectNear(AsFloats(dense), {1, 2, 3, 4, 5, 6});
}

TEST(DensifyTensor, RejectsBadMetadata) {
  std::vector<uint8_t> dense;
  Tensor t = SparseCsr2d();
  t.sparsity->dim_metadata[1].array_indices[2] = 4;  // column out of range
  Status s = cpu::DensifyTensor(t, &dense);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'sparse'"), std::string::npos) << s.message();
  t = SparseCsr2d();
  t.data = std::vector<uint8_t>(t.data.begin(), t.data.begin() + 8);  // two values for three indices
  EXPECT_FALSE(cpu::DensifyTensor(t, &dense).ok());
  t = SparseCsr2d();
  t.sparsity->traversal_order = {0, 0};
  EXPECT_FALSE(cpu::DensifyTensor(t, &dense).ok());
  t = SparseCsr2d();
  t.sparsity->dim_metadata[1].array_segments = {0, 2, 1, 3};  // decreasing
  EXPECT_FALSE(cpu::DensifyTensor(t, &dense).ok());
  t = SparseCsr2d();
  t.sparsity->dim_metadata[1].array_segments = {0, 2};  // too few segments
  EXPECT_FALSE(cpu::DensifyTensor(t, &dense).ok());
  t = SparseCsr2d();
  t.sparsity->dim_metadata[0].dense_size = 5;
  EXPECT_FALSE(cpu::DensifyTensor(t, &dense).ok());
  t = SparseCsr2d();
  t.sparsity.reset();
  EXPECT_FALSE(cpu::DensifyTensor(t, &dense).ok());
}

TEST(DensifyTensor, OneByteValues) {
  // The innermost level copies runs of values of any element size.
  Tensor t = SparseCsr2d();
  t.type = DataType::kInt8;
  t.data = std::vector<uint8_t>{7, 8, 9};
  std::vector<uint8_t> dense;
  GLD_ASSERT_OK(cpu::DensifyTensor(t, &dense));
  EXPECT_EQ(dense, (std::vector<uint8_t>{7, 0, 0, 8, 0, 0, 0, 0, 0, 9, 0, 0}));
}

TEST(DensifyTensor, TooFewValuesForADenseRunIsAnError) {
  std::vector<uint8_t> dense;
  Status s = cpu::DensifyTensor(BlockedColumns({1, 2, 3, 4, 5}), &dense);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("more than the 5 stored values"), std::string::npos) << s.message();
}

TEST(Densify, KernelProducesDenseOutput) {
  OpTest t;
  t.graph.tensors.push_back(SparseCsr2d());
  const int in = static_cast<int>(t.graph.tensors.size()) - 1;
  const int out = t.Output();
  t.Node(OpType::kDensify, {in}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{3, 4}));
  ExpectNear(t.Get(out), {1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0});
}

TEST(DensifyTensor, PoseDetectionSparseWeights) {
  if (!SharedModelsPresent()) GTEST_SKIP() << MissingModelsMessage();
  std::ifstream f(ModelPath("pose_detection.tflite"), std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto graph = ReadTfliteModel(bytes.data(), bytes.size());
  GLD_ASSERT_OK(graph.status());
  int densify_nodes = 0;
  for (const Node& n : graph->nodes) {
    if (n.op != OpType::kDensify) continue;
    ++densify_nodes;
    const Tensor& sparse = graph->tensors[static_cast<size_t>(n.inputs[0])];
    ASSERT_TRUE(sparse.sparsity.has_value()) << sparse.name;
    std::vector<uint8_t> dense;
    GLD_ASSERT_OK(cpu::DensifyTensor(sparse, &dense));
    ASSERT_EQ(sparse.type, DataType::kFloat32);
    ASSERT_EQ(dense.size(), static_cast<size_t>(sparse.num_elements()) * 4) << sparse.name;
    // Every stored value lands somewhere: the dense tensor holds the same
    // multiset of non-zero values as the compressed buffer.
    std::vector<float> stored = AsFloats(sparse.data.ToVector()), got = AsFloats(dense);
    std::vector<float> nz_stored, nz_got;
    for (float v : stored) if (v != 0.f) nz_stored.push_back(v);
    for (float v : got) if (v != 0.f) nz_got.push_back(v);
    std::sort(nz_stored.begin(), nz_stored.end());
    std::sort(nz_got.begin(), nz_got.end());
    EXPECT_EQ(nz_stored, nz_got) << sparse.name;
    EXPECT_LT(nz_got.size(), got.size()) << sparse.name << " is not sparse at all";
  }
  EXPECT_EQ(densify_nodes, 38);
}

}  // namespace
}  // namespace gld::testing
