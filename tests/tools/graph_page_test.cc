// gld_inspect --html's layout and page (tools/common/graph_page.h) on
// graphs made here: every edge points down a layer, each layer's order is a
// permutation, a 700-node graph with branches lays out quickly with one
// element per node, and the page fetches nothing.
#include <gtest/gtest.h>

#ifdef GLD_HAVE_TOOL_COMMON
#include <chrono>
#include <set>
#include <string>

#include "common/graph_page.h"

namespace gld::tools {
namespace {

// A chain of `n` nodes where every fifth node also feeds the node three
// further on (a residual branch), and node k's output is tensor k.
std::vector<PlacementInfo> Graph(int n) {
  std::vector<PlacementInfo> nodes(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    PlacementInfo& p = nodes[static_cast<size_t>(i)];
    p.index = i;
    p.op = i % 5 == 0 ? "ADD" : "CONV_2D";
    p.label = "node " + std::to_string(i) + " (" + p.op + ")";
    p.output_tensors = {i};
    p.output_shapes = {{1, 8, 8, 4}};
    if (i > 0) p.input_tensors.push_back(i - 1);
    if (i >= 3 && (i - 3) % 5 == 0) p.input_tensors.push_back(i - 3);
    p.input_tensors.push_back(-1);  // an absent optional input
    p.on_gpu = (i / 100) % 2 == 0;
    p.segment = p.on_gpu ? i / 200 : -1;
    if (!p.on_gpu) p.reason = "denied <by> \"test\"";
  }
  return nodes;
}

TEST(GraphPage, LayersPointDownAndOrdersArePermutations) {
  const std::vector<PlacementInfo> nodes = Graph(40);
  const GraphLayout layout = LayOutGraph(nodes);
  ASSERT_EQ(layout.layer.size(), nodes.size());
  for (const auto& [from, to] : layout.edges) EXPECT_LT(layout.layer[from], layout.layer[to]);
  size_t placed = 0;
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    std::set<int> seen(layout.layers[l].begin(), layout.layers[l].end());
    EXPECT_EQ(seen.size(), layout.layers[l].size());
    for (size_t p = 0; p < layout.layers[l].size(); ++p) {
      EXPECT_EQ(layout.layer[layout.layers[l][p]], static_cast<int>(l));
      EXPECT_EQ(layout.position[layout.layers[l][p]], static_cast<int>(p));
    }
    placed += layout.layers[l].size();
  }
  EXPECT_EQ(placed, nodes.size());
}

TEST(GraphPage, SevenHundredNodesRenderOneElementEach) {
  const std::vector<PlacementInfo> nodes = Graph(700);
  InterpreterReport report;
  report.nodes = nodes;
  report.total_nodes = 700;
  report.segments = 4;
  GraphPageInput input;
  input.model_path = "big <model>.tflite";
  input.report = &report;
  input.times[3].time_us = 12.5;
  const auto start = std::chrono::steady_clock::now();
  const std::string page = RenderGraphPage(input);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  size_t groups = 0;
  for (size_t at = page.find("<g class=\"node "); at != std::string::npos; at = page.find("<g class=\"node ", at + 1)) {
    ++groups;
  }
  EXPECT_EQ(groups, 700u);
  EXPECT_NE(page.find("data-nodes=\"700\""), std::string::npos);
  EXPECT_NE(page.find("class=\"segment-box\""), std::string::npos);
  EXPECT_NE(page.find("edge cross"), std::string::npos);  // chain steps from GPU to CPU at node 100
  EXPECT_NE(page.find("data-time-us=\"12.5\""), std::string::npos);
  EXPECT_NE(page.find("big &lt;model&gt;.tflite"), std::string::npos);
  EXPECT_EQ(page.find("denied <by>"), std::string::npos) << "unescaped reason";
  // Self-contained: no script, style or image from elsewhere.
  // (Plain scans, not std::regex: GCC 12 under ASan warns inside it, and CI
  // builds with -Werror.)
  for (const char* attribute : {"src", "href"}) {
    for (size_t at = page.find(attribute); at != std::string::npos; at = page.find(attribute, at + 1)) {
      const size_t next = page.find_first_not_of(" \t\n", at + std::string(attribute).size());
      EXPECT_FALSE(next != std::string::npos && page[next] == '=') << attribute << " at " << at;
    }
  }
  // The only URL is the SVG namespace's name.
  std::string rest = page;
  const std::string svg_namespace = "xmlns=\"http://www.w3.org/2000/svg\"";
  for (size_t at = rest.find(svg_namespace); at != std::string::npos; at = rest.find(svg_namespace, at)) {
    rest.erase(at, svg_namespace.size());
  }
  EXPECT_EQ(rest.find("http"), std::string::npos);
}

}  // namespace
}  // namespace gld::tools
#endif
