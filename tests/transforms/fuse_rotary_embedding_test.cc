// fuse_rotary_embedding: the converter's rotary embedding chain (two SLICEs,
// four MULs, SUB, ADD, CONCATENATION; in a decode step between two RESHAPEs)
// as one GLD_ROTARY_EMBEDDING node. The chain run node by node on the CPU
// kernels is the reference for the fused node on the CPU and on GL; chains
// that only look like it (other pairings, other slices, an intermediate read
// elsewhere) stay as they are, with the reason in the pass log.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gl/gl_test_util.h"
#include "graph_runner.h"
#include "transforms/pass.h"

namespace gld::testing {
namespace {

enum class Form {
  kDecode,       // x [1, 1, 2, 16] -> RESHAPE [1, 2, 1, 16] -> chain -> RESHAPE back; cos, sin [1, 8]
  kPrefill,      // x [1, 2, 3, 16] (after its TRANSPOSE); cos, sin [3, 8]
  kRowsDiffer,   // x [1, 2, 1, 16] -> RESHAPE [1, 1, 2, 16] -> chain -> RESHAPE back; cos, sin [2, 8]
};

// How the chain is written. The first three are forms of rotary embedding;
// the others are near misses that compute something else.
struct Variant {
  bool table_first = false;     // MUL(cos, x1) instead of MUL(x1, cos)
  bool add_swapped = false;     // ADD(x1 * sin, x2 * cos)
  bool size_to_end = false;     // the second SLICE's last size -1
  bool sub_reversed = false;    // SUB(x2 * sin, x1 * cos)
  bool tables_crossed = false;  // ADD(x2 * sin, x1 * cos)
  bool slices_overlap = false;  // x2 = x[..., h - 1 : 2h - 1]
  bool product_exported = false;  // x1 * cos is a graph output too
};

struct RopeChain {
  GlOpTest t;
  int x_in = -1, out = -1, product = -1;

  RopeChain(Form form, const Variant& v) : t(11) {
    const Shape in_shape = form == Form::kDecode ? Shape{1, 1, 2, 16} : form == Form::kPrefill ? Shape{1, 2, 3, 16}
                                                                                            : Shape{1, 2, 1, 16};
    const Shape x_shape = form == Form::kDecode ? Shape{1, 2, 1, 16} : form == Form::kPrefill ? Shape{1, 2, 3, 16}
                                                                                           : Shape{1, 1, 2, 16};
    const Shape table = form == Form::kDecode ? Shape{1, 8} : form == Form::kPrefill ? Shape{3, 8} : Shape{2, 8};
    x_in = t.Input(in_shape);
    const int cos = t.Input(table, -1.f, 1.f), sin = t.Input(table, -1.f, 1.f);
    int x = x_in;
    if (form != Form::kPrefill) x = Reshape(x_in, x_shape);
    Shape size = x_shape;
    size.back() = 8;
    const int x1 = Slice(x, {0, 0, 0, 0}, size);
    const int second = v.slices_overlap ? 7 : 8;
    if (v.size_to_end) size.back() = -1;
    const int x2 = Slice(x, {0, 0, 0, second}, size);
    auto mul = [&](int a, int table_operand) {
      return t.Op(OpType::kMul, v.table_first ? std::vector<int>{table_operand, a} : std::vector<int>{a, table_operand},
                  BinaryAttributes{});
    };
    product = mul(x1, cos);
    const int x2_sin = mul(x2, sin);
    const int diff = t.Op(OpType::kSub, v.sub_reversed ? std::vector<int>{x2_sin, product}
                                                       : std::vector<int>{product, x2_sin},
                          BinaryAttributes{});
    const int x2_c = mul(x2, v.tables_crossed ? sin : cos);
    const int x1_s = mul(x1, v.tables_crossed ? cos : sin);
    const int sum = t.Op(OpType::kAdd, v.add_swapped ? std::vector<int>{x1_s, x2_c} : std::vector<int>{x2_c, x1_s},
                         BinaryAttributes{});
    out = t.Op(OpType::kConcatenation, {diff, sum}, ConcatenationAttributes{-1, Activation::kNone});
    if (form != Form::kPrefill) out = Reshape(out, in_shape);
    // Only the last tensor is the graph's output (t.Op marks each).
    t.graph.outputs = {out};
    if (v.product_exported) t.graph.outputs.push_back(product);
  }

  int Reshape(int in, const Shape& shape) {
    std::vector<int32_t> dims(shape.begin(), shape.end());
    return t.Op(OpType::kReshape, {in, t.ConstInts<int32_t>({4}, dims)}, ReshapeAttributes{});
  }
  int Slice(int in, const std::vector<int32_t>& begin, const Shape& size) {
    std::vector<int32_t> s(size.begin(), size.end());
    return t.Op(OpType::kSlice, {in, t.ConstInts<int32_t>({4}, begin), t.ConstInts<int32_t>({4}, s)});
  }

  // The graph's input values, in graph.inputs order.
  std::vector<std::vector<float>> Inputs() const {
    std::vector<std::vector<float>> v;
    for (int i : t.graph.inputs) {
      const std::vector<uint8_t> b = t.HostBytes(i);
      v.emplace_back(b.size() / sizeof(float));
      std::memcpy(v.back().data(), b.data(), b.size());
    }
    return v;
  }
};

// Infers the chain's shapes, runs it node by node (the reference), fuses it.
std::string Fuse(RopeChain& m, std::vector<std::vector<float>>* reference = nullptr) {
  EXPECT_TRUE(m.t.RunCpu().ok());
  if (reference != nullptr) {
    auto r = RunOnCpu(m.t.graph, m.Inputs());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) *reference = std::move(*r);
  }
  PassLog log;
  EXPECT_TRUE(FuseRotaryEmbedding(m.t.graph, log).ok());
  std::string lines;
  for (const std::string& l : log.lines) lines += l + "\n";
  return lines;
}

size_t CountOps(const Graph& g, OpType op) {
  return static_cast<size_t>(std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op == op; }));
}

// The fused graph on the CPU gives the chain's values (the same products,
// difference and sum: within a rounding of the largest value).
void ExpectCpuMatches(RopeChain& m, const std::vector<std::vector<float>>& reference) {
  auto got = RunOnCpu(m.t.graph, m.Inputs());
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), reference.size());
  for (size_t o = 0; o < reference.size(); ++o) {
    const std::vector<float>& a = reference[o];
    const std::vector<float>& b = (*got)[o];
    ASSERT_EQ(a.size(), b.size());
    float scale = 1.0f;
    for (float x : a) scale = std::max(scale, std::fabs(x));
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-6f * scale) << "output " << o << " element " << i;
  }
}

TEST(FuseRotaryEmbedding, EachFormBecomesOneNodeComputingTheChainOnCpu) {
  const Variant variants[] = {{}, {true, false, false}, {false, true, false}, {true, true, true}};
  for (Form form : {Form::kDecode, Form::kPrefill}) {
    for (const Variant& v : variants) {
      SCOPED_TRACE(std::string(form == Form::kDecode ? "decode" : "prefill") + (v.table_first ? " table first" : "") +
                   (v.add_swapped ? " add swapped" : "") + (v.size_to_end ? " size -1" : ""));
      RopeChain m(form, v);
      std::vector<std::vector<float>> reference;
      const std::string log = Fuse(m, &reference);
      // The decode form's RESHAPEs come in too: cos and sin are one row.
      ASSERT_EQ(m.t.graph.nodes.size(), 1u) << log;
      const Node& n = m.t.graph.nodes[0];
      EXPECT_EQ(n.op, OpType::kRotaryEmbedding);
      EXPECT_EQ(n.inputs[0], m.x_in);
      EXPECT_EQ(n.outputs[0], m.out) << "the graph output keeps its tensor";
      EXPECT_NE(log.find("became one GLD_ROTARY_EMBEDDING"), std::string::npos) << log;
      ExpectCpuMatches(m, reference);
    }
  }
}

TEST(FuseRotaryEmbedding, RowsOfOtherTablesKeepTheirReshapes) {
  // cos and sin [2, 8] index the RESHAPE's rows: the op runs between them.
  RopeChain m(Form::kRowsDiffer, {});
  std::vector<std::vector<float>> reference;
  const std::string log = Fuse(m, &reference);
  ASSERT_EQ(m.t.graph.nodes.size(), 3u) << log;
  EXPECT_EQ(CountOps(m.t.graph, OpType::kRotaryEmbedding), 1u);
  EXPECT_EQ(CountOps(m.t.graph, OpType::kReshape), 2u);
  ExpectCpuMatches(m, reference);
}

TEST(FuseRotaryEmbedding, FusedNodeOnGlMatchesTheChain) {
  GLD_REQUIRE_GL(env);
  for (Form form : {Form::kDecode, Form::kPrefill, Form::kRowsDiffer}) {
    for (Precision p : BothPrecisions()) {
      RopeChain m(form, {});
      Fuse(m);  // RunCpu kept the chain's values as the reference
      ASSERT_EQ(CountOps(m.t.graph, OpType::kRotaryEmbedding), 1u);
      m.t.ExpectGpuMatchesCpu(*env, p, "form " + std::to_string(static_cast<int>(form)));
    }
  }
}

TEST(FuseRotaryEmbedding, NearMissesStayAsTheyAre) {
  struct Case {
    Variant v;
    const char* why;
  };
  const Case cases[] = {
      {{false, false, false, /*sub_reversed=*/true}, "do not pair the halves"},
      {{false, false, false, false, /*tables_crossed=*/true}, "do not pair the halves"},
      {{false, false, false, false, false, /*slices_overlap=*/true}, "do not pair the halves"},
      {{false, false, false, false, false, false, /*product_exported=*/true}, "read elsewhere or is a graph output"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    RopeChain m(Form::kPrefill, c.v);
    const size_t before = m.t.graph.nodes.size();
    const std::string log = Fuse(m);
    EXPECT_EQ(m.t.graph.nodes.size(), before);
    EXPECT_EQ(CountOps(m.t.graph, OpType::kRotaryEmbedding), 0u);
    EXPECT_NE(log.find("(CONCATENATION) is left as it is: "), std::string::npos) << log;
    EXPECT_NE(log.find(c.why), std::string::npos) << log;
  }
}

}  // namespace
}  // namespace gld::testing
