// The figures of issue 5 on the six shared models, GL backend in fp32:
//  - over the six together, GL dispatches per inference <= 0.65 x the nodes
//    left after folding DEQUANTIZE/DENSIFY (counted from the pass log: each
//    fold removes one node and logs one line);
//  - on each model, planned GPU bytes <= 1.15 x the lower bound (the most
//    bytes alive at one dispatch, plus constants and staging);
//  - every elementwise node that kept a dispatch of its own says why, and the
//    reason is one that fusion must respect: its inputs have other readers,
//    come from outside the segment, must exist as segment outputs, or are
//    smaller than its output (a broadcast).
// Outputs matching the CPU backend is tests/gl/shared_models_gl_test.cc's job.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "common/model_paths.h"

namespace gld::testing {
namespace {

int NodesAfterFolding(const InterpreterReport& r) {
  int folded = 0;
  for (const std::string& line : r.pass_log) {
    if (line.rfind("fold_constant_dequantize: ", 0) == 0 || line.rfind("fold_constant_densify: ", 0) == 0) ++folded;
  }
  return r.original_nodes - folded;
}

bool AcceptedReason(const std::string& why) {
  for (const char* ok : {" readers", "comes from outside this GPU segment", "must exist (a segment output)",
                         "is not the fused input's shape"}) {
    if (why.find(ok) != std::string::npos) return true;
  }
  return false;
}

TEST(SharedModelFigures, DispatchesMemoryAndFusion) {
  if (!SharedModelsPresent()) GTEST_SKIP() << MissingModelsMessage();
  int total_dispatches = 0, total_folded = 0;
  std::printf("%-28s %8s %8s %8s %10s %12s %12s %12s\n", "model", "original", "folded", "passes", "dispatches",
              "planned", "naive", "lower_bound");
  for (const std::string& name : SharedModelNames()) {
    SCOPED_TRACE(name);
    auto model = Model::FromFile(ModelPath(name));
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    Options options;
    options.backend = Backend::kGl;
    options.precision = Precision::kFp32;
    auto interp = Interpreter::Create(**model, options);
    ASSERT_TRUE(interp.ok()) << interp.status().ToString();
    const InterpreterReport& r = (*interp)->report();
    ASSERT_EQ(r.backend, Backend::kGl);
    EXPECT_EQ(r.gpu_nodes, r.total_nodes) << r.placement_line;
    const int folded = NodesAfterFolding(r);
    std::printf("%-28s %8d %8d %8d %10d %12llu %12llu %12llu\n", name.c_str(), r.original_nodes, folded,
                r.total_nodes, r.dispatches, static_cast<unsigned long long>(r.gpu_bytes_planned),
                static_cast<unsigned long long>(r.gpu_bytes_naive),
                static_cast<unsigned long long>(r.gpu_bytes_lower_bound));
    EXPECT_LE(r.total_nodes, folded);
    EXPECT_GT(r.dispatches, 0);
    total_dispatches += r.dispatches;
    total_folded += folded;
    EXPECT_GT(r.gpu_bytes_lower_bound, 0u);
    EXPECT_LE(r.gpu_bytes_lower_bound, r.gpu_bytes_planned);
    EXPECT_LE(r.gpu_bytes_planned, r.gpu_bytes_naive);
    EXPECT_LE(static_cast<double>(r.gpu_bytes_planned), 1.15 * static_cast<double>(r.gpu_bytes_lower_bound));
    for (const std::string& line : r.unfused_elementwise) {
      const size_t colon = line.find("): ");
      ASSERT_NE(colon, std::string::npos) << line;
      // One clause per input, "; " between them: each must be acceptable.
      std::string rest = line.substr(colon + 3);
      for (size_t end; !rest.empty(); rest = end == std::string::npos ? "" : rest.substr(end + 2)) {
        end = rest.find("; ");
        EXPECT_TRUE(AcceptedReason(rest.substr(0, end))) << line;
      }
    }
  }
  std::printf("total: %d dispatches for %d nodes after folding (ratio %.3f)\n", total_dispatches, total_folded,
              static_cast<double>(total_dispatches) / total_folded);
  EXPECT_LE(static_cast<double>(total_dispatches), 0.65 * total_folded);
}

}  // namespace
}  // namespace gld::testing
