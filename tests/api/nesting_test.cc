// Chains of nested subgraph calls (CALL_ONCE: subgraph 1 calls 2, 2 calls
// 3, ...; no recursion): each level prepares and runs inside its caller's
// frames, so the reader refuses a chain longer than kMaxSubgraphNesting
// (a chain of 2,000 used to overflow an 8 MiB stack), and a chain at the
// limit runs, also on a thread with a small stack.
#include <gtest/gtest.h>
#include <pthread.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/control_flow_models.h"
#include "gldelegate/gldelegate.hpp"
#include "graph/graph_check.h"

namespace gld {
namespace {

// Loads, creates (CPU) and runs a chain of `depth` calls: x = 1.5 gives 3.
Status RunChain(int depth) {
  const std::vector<uint8_t> bytes = testing::CallOnceChainModel(depth);
  GLD_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Model::FromBuffer(bytes.data(), bytes.size()));
  Options options;
  options.backend = Backend::kCpu;
  GLD_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> it, Interpreter::Create(*model, options));
  const float x = 1.5f;
  GLD_RETURN_IF_ERROR(it->SetInput(0, &x, sizeof(x)));
  GLD_RETURN_IF_ERROR(it->Invoke());
  float y = 0;
  GLD_RETURN_IF_ERROR(it->GetOutput(0, &y, sizeof(y)));
  if (y != 3.f) return InternalError("y = " + std::to_string(y) + ", expected 3");
  return it->Invoke();  // CALL_ONCE's second run calls nothing
}

struct ThreadRun {
  int depth = 0;
  Status status;
};

#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kSanitizedStackFactor = 8;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr size_t kSanitizedStackFactor = 8;
#else
constexpr size_t kSanitizedStackFactor = 1;
#endif
#else
constexpr size_t kSanitizedStackFactor = 1;
#endif

// RunChain(depth) on a thread of `stack_bytes` of stack.
Status RunChainOnThread(int depth, size_t stack_bytes) {
  ThreadRun run{depth, OkStatus()};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  EXPECT_EQ(pthread_attr_setstacksize(&attr, stack_bytes), 0);
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* r = static_cast<ThreadRun*>(p);
        r->status = RunChain(r->depth);
        return nullptr;
      },
      &run);
  pthread_attr_destroy(&attr);
  if (rc != 0) return InternalError("pthread_create failed");
  pthread_join(thread, nullptr);
  return run.status;
}

TEST(SubgraphNesting, ChainAtTheLimitRunsOnASmallThreadStack) {
  const Status main_stack = RunChain(kMaxSubgraphNesting);
  EXPECT_TRUE(main_stack.ok()) << main_stack.ToString();
  // 512 KiB: below the 8 MiB of a main thread, as apps give their workers.
  // AddressSanitizer's redzones make every frame several times larger: under
  // it the same chain gets 4 MiB (still half a main thread's stack).
  const Status small = RunChainOnThread(kMaxSubgraphNesting, size_t{kSanitizedStackFactor * 512} << 10);
  EXPECT_TRUE(small.ok()) << small.ToString();
}

TEST(SubgraphNesting, DeeperChainsAreRefusedAtLoad) {
  for (int depth : {kMaxSubgraphNesting + 1, 2000, 5000}) {
    const std::vector<uint8_t> bytes = testing::CallOnceChainModel(depth);
    auto model = Model::FromBuffer(bytes.data(), bytes.size());
    ASSERT_FALSE(model.ok()) << depth;
    EXPECT_EQ(model.status().code(), StatusCode::kInvalidArgument);
    const std::string& m = model.status().message();
    for (const std::string& part : {std::string("subgraph 0 ('main') starts a chain of ") + std::to_string(depth) +
                                        " nested subgraph calls",
                                    std::string("more than the ") + std::to_string(kMaxSubgraphNesting)}) {
      EXPECT_NE(m.find(part), std::string::npos) << part << " not in: " << m;
    }
  }
}

}  // namespace
}  // namespace gld
