// Generative decoders made by tools/reference/torch_decoders.py (litert-torch,
// seeded random weights) with LiteRT's greedy decode, in
// tests/data/decoders/<name>/: the `prefill` signature on an 8-token prompt,
// then 16 `decode` steps, each fed the caches the step before returned. Here
// the same through one Interpreter per signature of one Model: the tokens
// exactly LiteRT's and each step's logits within 1e-4 of LiteRT's
// (max |ours - ref| / max |ref|), on the CPU backend and on GL (fp32; what
// GL cannot run falls back to the CPU; backend gl, not auto, which keeps a
// software rasterizer such as llvmpipe off the GPU path), where each
// signature's placement (nodes, GPU nodes, segments) is also checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/app_gl_context.h"
#include "gl/gl_test_util.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/npy.hpp"
#include "models/reference_data.h"

namespace gld::testing {
namespace {

constexpr double kTolerance = 1e-4;

// Where each decoder's signatures run on GL: nodes (after the passes), GPU
// nodes and GPU segments. Both run in one segment. index_copy's int32
// position math runs on GL too (gl/codegen/int32_need.h: its values are
// provably exact); litert_gen's CPU nodes left are int32 math that depends
// only on the graph's inputs and runs at the input edge
// (partition/partition.h).
struct ExpectedPlacement {
  const char* decoder;
  const char* signature;
  int total_nodes, gpu_nodes, segments;
};
constexpr ExpectedPlacement kExpectedPlacement[] = {
    // index_copy: 127 and 135 nodes before keep_reduced_dims let
    // fuse_layer_norm take its five litert-torch LayerNorms.
    {"index_copy", "decode", 72, 72, 1},
    {"index_copy", "prefill", 80, 80, 1},
    {"litert_gen", "decode", 67, 62, 1},
    {"litert_gen", "prefill", 77, 69, 1},
};

void ExpectPlacement(const std::string& decoder, const std::string& signature, const InterpreterReport& report) {
  std::printf("[ placement] %s %s: %s\n", decoder.c_str(), signature.c_str(), report.placement_line.c_str());
  for (const ExpectedPlacement& e : kExpectedPlacement) {
    if (decoder != e.decoder || signature != e.signature) continue;
    EXPECT_EQ(report.total_nodes, e.total_nodes) << decoder << " " << signature << ": " << report.placement_line;
    EXPECT_EQ(report.gpu_nodes, e.gpu_nodes) << decoder << " " << signature << ": " << report.placement_line;
    EXPECT_EQ(report.segments, e.segments) << decoder << " " << signature << ": " << report.placement_line;
    return;
  }
  ADD_FAILURE() << "no expected placement for " << decoder << " " << signature << " (" << report.placement_line
                << "): add it to kExpectedPlacement";
}

std::string DecodersDir() { return std::string(GLD_TEST_DATA_DIR) + "/decoders"; }

template <typename T>
std::vector<T> Values(const NpyArray& a) {
  std::vector<T> v(a.data.size() / sizeof(T));
  std::memcpy(v.data(), a.data.data(), v.size() * sizeof(T));
  return v;
}

// One signature's Interpreter, its inputs and outputs by signature name.
struct Runner {
  std::unique_ptr<Interpreter> interp;
  std::map<std::string, int> in, out;  // signature name -> position in inputs() / outputs()
};

Runner MakeRunner(const Model& model, const std::string& key, const Options& options) {
  Runner r;
  auto interp = Interpreter::Create(model, options, key);
  EXPECT_TRUE(interp.ok()) << interp.status().ToString();
  if (!interp.ok()) return r;
  r.interp = std::move(*interp);
  for (const SignatureInfo& sig : model.signatures()) {
    if (sig.key != key) continue;
    for (const SignatureTensor& t : sig.inputs) {
      for (size_t i = 0; i < r.interp->inputs().size(); ++i) {
        if (r.interp->inputs()[i].index == t.tensor_index) r.in[t.name] = static_cast<int>(i);
      }
    }
    for (const SignatureTensor& t : sig.outputs) {
      for (size_t i = 0; i < r.interp->outputs().size(); ++i) {
        if (r.interp->outputs()[i].index == t.tensor_index) r.out[t.name] = static_cast<int>(i);
      }
    }
  }
  return r;
}

// The logits at the last position of output "logits".
std::vector<float> LastLogits(const Runner& r) {
  const int o = r.out.at("logits");
  const TensorInfo& info = r.interp->outputs()[static_cast<size_t>(o)];
  const auto* p = static_cast<const float*>(r.interp->OutputData(o));
  const size_t vocab = static_cast<size_t>(info.shape.back());
  const size_t n = info.bytes / sizeof(float);
  return std::vector<float>(p + n - vocab, p + n);
}

int Argmax(const std::vector<float>& v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

double RelativeError(const std::vector<float>& got, const float* want, size_t n) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(got[i]) - want[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

// Sets input `name` of `r`; the caches come from `from`'s outputs of the
// same name (or zeros when `from` is null).
void SetCaches(Runner& r, const Runner* from) {
  for (const auto& [name, i] : r.in) {
    if (name == "tokens" || name == "input_pos") continue;
    const TensorInfo& info = r.interp->inputs()[static_cast<size_t>(i)];
    if (from == nullptr) {
      std::vector<uint8_t> zeros(info.bytes, 0);
      ASSERT_TRUE(r.interp->SetInput(i, zeros.data(), zeros.size()).ok()) << name;
      continue;
    }
    ASSERT_TRUE(from->out.count(name)) << "no output '" << name << "' carries the cache";
    const int o = from->out.at(name);
    ASSERT_TRUE(r.interp->SetInput(i, from->interp->OutputData(o), info.bytes).ok()) << name;
  }
}

void SetInts(Runner& r, const std::string& name, const std::vector<int32_t>& v) {
  ASSERT_TRUE(r.in.count(name)) << "no input '" << name << "'";
  const Status s = r.interp->SetInput(r.in[name], v.data(), v.size() * sizeof(int32_t));
  ASSERT_TRUE(s.ok()) << name << ": " << s.ToString();
}

// How the caches go from one step to the next: through the host (SetInput of
// the last step's OutputData), or resident: each cache is one app buffer
// (a GL buffer on GL, host memory on the CPU) bound once as both signatures'
// cache input and cache output, which each step updates in place.
enum class Cache { kCopied, kResident };

bool IsCache(const std::string& name) { return name != "tokens" && name != "input_pos" && name != "logits"; }

// The resident caches, one per cache name, bound to `r`'s cache input and
// output of that name.
struct ResidentCaches {
  AppContext* app = nullptr;                   // GL: the buffers' context
  std::map<std::string, GLuint> buffers;       // GL
  std::map<std::string, std::vector<float>> host;  // CPU

  void Bind(Runner& r) {
    for (const auto& [name, i] : r.in) {
      if (!IsCache(name)) continue;
      ASSERT_TRUE(r.out.count(name)) << "no output '" << name << "' carries the cache";
      const int o = r.out.at(name);
      const size_t bytes = r.interp->inputs()[static_cast<size_t>(i)].bytes;
      if (app != nullptr) {
        if (!buffers.count(name)) buffers[name] = app->Buffer(bytes);
        Status s = r.interp->BindInputBuffer(i, buffers[name]);
        ASSERT_TRUE(s.ok()) << s.ToString();
        s = r.interp->BindOutputBuffer(o, buffers[name]);
        ASSERT_TRUE(s.ok()) << s.ToString();
      } else {
        std::vector<float>& v = host[name];
        if (v.empty()) v.assign(bytes / sizeof(float), 0.0f);
        Status s = r.interp->BindInputHostBuffer(i, v.data(), bytes);
        ASSERT_TRUE(s.ok()) << s.ToString();
        s = r.interp->BindOutputHostBuffer(o, v.data(), bytes);
        ASSERT_TRUE(s.ok()) << s.ToString();
      }
    }
  }
};

// The bytes one decode step moves between host and GPU. With the caches
// resident: no cache input uploaded and no cache output downloaded; the
// uploads are the token, the position and the int32 position math the CPU
// does at the input edge (a few dozen bytes), the download the logits.
void CheckStepTransfers(const std::string& name, Runner& r, Cache cache, size_t step) {
  const TransferStats st = r.interp->transfer_stats();
  uint64_t inputs_up = 0, cache_up = 0, cache_down = 0, cache_bytes = 0;
  for (const auto& [n, i] : r.in) {
    const uint64_t b = st.input_uploaded_bytes[static_cast<size_t>(i)];
    (IsCache(n) ? cache_up : inputs_up) += b;
    if (IsCache(n)) cache_bytes = std::max<uint64_t>(cache_bytes, r.interp->inputs()[static_cast<size_t>(i)].bytes);
  }
  for (const auto& [n, o] : r.out) {
    if (IsCache(n)) cache_down += st.output_downloaded_bytes[static_cast<size_t>(o)];
  }
  const uint64_t logits = r.interp->outputs()[static_cast<size_t>(r.out.at("logits"))].bytes;
  if (step == 0) {
    std::printf("[ measure  ] %s gl decode step, caches %s: %llu bytes up (graph inputs %llu, caches %llu), %llu "
                "bytes down (caches %llu)\n",
                name.c_str(), cache == Cache::kResident ? "resident" : "copied",
                static_cast<unsigned long long>(st.uploaded_bytes), static_cast<unsigned long long>(inputs_up),
                static_cast<unsigned long long>(cache_up), static_cast<unsigned long long>(st.downloaded_bytes),
                static_cast<unsigned long long>(cache_down));
  }
  if (cache != Cache::kResident) return;
  EXPECT_EQ(cache_up, 0u) << name << " decode step " << step << ": a cache was uploaded";
  EXPECT_EQ(cache_down, 0u) << name << " decode step " << step << ": a cache was downloaded";
  EXPECT_LT(st.uploaded_bytes, cache_bytes / 64) << name << " decode step " << step << ": a cache-sized upload";
  EXPECT_EQ(st.downloaded_bytes, logits) << name << " decode step " << step << ": more than the logits came back";
}

// The trace of the decode steps (Options::enable_trace) shows it too: no
// transfer event of a GL segment moves a cache's worth of bytes, each
// download is at most the logits.
void CheckTraceTransfers(const std::string& name, Runner& r, size_t steps) {
  uint64_t cache_bytes = 0;
  for (const auto& [n, i] : r.in) {
    if (IsCache(n)) cache_bytes = std::max<uint64_t>(cache_bytes, r.interp->inputs()[static_cast<size_t>(i)].bytes);
  }
  const uint64_t logits = r.interp->outputs()[static_cast<size_t>(r.out.at("logits"))].bytes;
  size_t uploads = 0, downloads = 0;
  double most_up = 0, most_down = 0;
  for (const TraceEvent& e : r.interp->trace()) {
    if (e.category != "transfer") continue;
    const auto bytes = std::find_if(e.args.begin(), e.args.end(), [](const TraceArg& a) { return a.name == "bytes"; });
    ASSERT_NE(bytes, e.args.end()) << e.name;
    const bool up = e.name.size() >= 6 && e.name.compare(e.name.size() - 6, 6, "upload") == 0;
    (up ? uploads : downloads) += 1;
    (up ? most_up : most_down) = std::max(up ? most_up : most_down, bytes->number);
    if (up) {
      EXPECT_LT(bytes->number, static_cast<double>(cache_bytes) / 64) << name << ": " << e.name << " in the trace";
    } else {
      EXPECT_LE(bytes->number, static_cast<double>(logits)) << name << ": " << e.name << " in the trace";
    }
  }
  // Every step's but the first: a segment's first run is not timed, so not
  // traced (GlSegment::CollectDispatchTimes).
  EXPECT_GE(uploads + 1, steps) << name << ": the trace holds fewer upload events than decode steps";
  EXPECT_GE(downloads + 1, steps) << name << ": the trace holds fewer download events than decode steps";
  std::printf("[ measure  ] %s gl decode trace, caches resident: %zu upload events (at most %.0f bytes), %zu "
              "download events (at most %.0f bytes; a cache is %llu)\n",
              name.c_str(), uploads, most_up, downloads, most_down, static_cast<unsigned long long>(cache_bytes));
}

// GLD_GL_LIMITS=minimum (CI's stage of the GL model tests at the GLES 3.1
// minimums): the fused attention binds 5 storage buffers, one more than
// those guarantee, so it runs on the CPU (the support check says why) and
// the signatures take more than one segment and move the attention's
// operands. The tokens and logits are checked all the same; the placement
// and the transfers only at the driver's own limits.
bool AtMinimumLimits() {
  const char* limits = std::getenv("GLD_GL_LIMITS");
  return limits != nullptr && std::string(limits) == "minimum";
}

void RunDecoder(const std::string& name, Backend backend, Cache cache = Cache::kCopied) {
  const std::string dir = DecodersDir() + "/" + name;
  auto model = Model::FromFile(dir + "/model.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto prompt_npy = ReadNpy(dir + "/prompt.npy");
  auto tokens_npy = ReadNpy(dir + "/tokens.npy");
  auto prefill_npy = ReadNpy(dir + "/logits_prefill.npy");
  auto decode_npy = ReadNpy(dir + "/logits_decode.npy");
  ASSERT_TRUE(prompt_npy.ok() && tokens_npy.ok() && prefill_npy.ok() && decode_npy.ok());
  const std::vector<int32_t> prompt = Values<int32_t>(*prompt_npy);
  const std::vector<int32_t> want_tokens = Values<int32_t>(*tokens_npy);
  const std::vector<float> want_prefill = Values<float>(*prefill_npy);
  const std::vector<float> want_decode = Values<float>(*decode_npy);
  const size_t vocab = want_prefill.size();
  const size_t steps = want_decode.size() / vocab;

  Options options;
  options.backend = backend;
  std::unique_ptr<AppContext> app;
  ResidentCaches caches;
  if (cache == Cache::kResident && backend != Backend::kCpu) {
    // The app's buffers are named in its context, which both signatures' interpreters use.
    app = std::make_unique<AppContext>();
    ASSERT_TRUE(app->ready()) << "cannot make the app's OpenGL ES 3.1 context on the surfaceless platform";
    options.context = ContextMode::kCurrent;
    options.enable_trace = true;
    caches.app = app.get();
  }
  Runner prefill = MakeRunner(**model, "prefill", options);
  Runner decode = MakeRunner(**model, "decode", options);
  ASSERT_TRUE(prefill.interp && decode.interp);
  if (cache == Cache::kResident) {
    caches.Bind(prefill);
    caches.Bind(decode);
    if (::testing::Test::HasFatalFailure()) return;
  }
  const bool driver_limits = !AtMinimumLimits();
  if (!driver_limits) std::printf("[ note     ] GLD_GL_LIMITS=minimum: placement and transfers not checked\n");
  if (backend != Backend::kCpu && driver_limits) {
    ExpectPlacement(name, "prefill", prefill.interp->report());
    ExpectPlacement(name, "decode", decode.interp->report());
  }
  std::vector<int32_t> positions(prompt.size());
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int32_t>(i);
  SetInts(prefill, "tokens", prompt);
  SetInts(prefill, "input_pos", positions);
  if (cache == Cache::kCopied) SetCaches(prefill, nullptr);
  const Status ran = prefill.interp->Invoke();
  ASSERT_TRUE(ran.ok()) << ran.ToString();
  std::vector<float> logits = LastLogits(prefill);
  double worst = RelativeError(logits, want_prefill.data(), vocab);
  std::vector<int32_t> tokens = {Argmax(logits)};
  const Runner* last = &prefill;
  for (size_t s = 0; s < steps; ++s) {
    SetInts(decode, "tokens", {tokens.back()});
    SetInts(decode, "input_pos", {static_cast<int32_t>(prompt.size() + s)});
    if (cache == Cache::kCopied) SetCaches(decode, last);
    const Status st = decode.interp->Invoke();
    ASSERT_TRUE(st.ok()) << st.ToString();
    if (backend != Backend::kCpu && driver_limits) CheckStepTransfers(name, decode, cache, s);
    logits = LastLogits(decode);
    worst = std::max(worst, RelativeError(logits, want_decode.data() + s * vocab, vocab));
    tokens.push_back(Argmax(logits));
    last = &decode;
  }
  if (cache == Cache::kResident && backend != Backend::kCpu && driver_limits) CheckTraceTransfers(name, decode, steps);
  std::printf("[ measure  ] %s %s, caches %s: logits max rel error %.3g over %zu steps\n", name.c_str(),
              backend == Backend::kCpu ? "cpu" : "gl", cache == Cache::kResident ? "resident" : "copied", worst,
              steps + 1);
  EXPECT_EQ(tokens, want_tokens);
  EXPECT_LE(worst, kTolerance);
}

std::vector<std::string> DecoderNames() { return ListCaseDirs(DecodersDir()); }

class DecoderTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DecoderTest, CpuMatchesLiteRt) { RunDecoder(GetParam(), Backend::kCpu); }

TEST_P(DecoderTest, GlMatchesLiteRt) {
  GLD_REQUIRE_GL(env);
  (void)env;
  RunDecoder(GetParam(), Backend::kGl);
}

TEST_P(DecoderTest, CpuResidentCacheMatchesLiteRt) { RunDecoder(GetParam(), Backend::kCpu, Cache::kResident); }

TEST_P(DecoderTest, GlResidentCacheMovesOnlyTokensAndLogits) {
  GLD_REQUIRE_GL(env);
  (void)env;
  RunDecoder(GetParam(), Backend::kGl, Cache::kResident);
}

INSTANTIATE_TEST_SUITE_P(Decoders, DecoderTest, ::testing::ValuesIn(DecoderNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gld::testing
