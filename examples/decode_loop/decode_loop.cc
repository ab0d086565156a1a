// A greedy decode loop over a generative decoder with `prefill` and `decode`
// signatures and its KV cache as inputs and outputs (litert-torch's export;
// tests/data/decoders/ has two small ones):
//
//   gld_example_decode_loop MODEL.tflite [cpu|gl|auto] [N] [TOKEN...]
//
// prefills the prompt (default: tokens 1..8, padded to the prefill
// signature's length), then decodes N tokens (default 16), each the argmax
// of the step before, and prints the tokens and tokens/s of both phases. One
// Interpreter per signature of one Model (the weights shared); the caches a
// step returns are the next step's inputs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"

namespace {

struct Runner {
  std::unique_ptr<gld::Interpreter> interp;
  std::map<std::string, int> in, out;  // signature name -> input / output position
};

gld::StatusOr<Runner> MakeRunner(const gld::Model& model, const gld::Options& options, const std::string& key) {
  GLD_ASSIGN_OR_RETURN(auto interp, gld::Interpreter::Create(model, options, key));
  Runner r;
  r.interp = std::move(interp);
  // The signature maps its names to tensors (the tensors keep the file's
  // names, as LiteRT's get_input_details gives them).
  auto position = [](const std::vector<gld::TensorInfo>& io, int tensor) {
    for (size_t i = 0; i < io.size(); ++i) {
      if (io[i].index == tensor) return static_cast<int>(i);
    }
    return -1;
  };
  for (const gld::SignatureInfo& sig : model.signatures()) {
    if (sig.key != key) continue;
    for (const gld::SignatureTensor& t : sig.inputs) r.in[t.name] = position(r.interp->inputs(), t.tensor_index);
    for (const gld::SignatureTensor& t : sig.outputs) r.out[t.name] = position(r.interp->outputs(), t.tensor_index);
  }
  if (!r.in.count("tokens") || !r.in.count("input_pos") || !r.out.count("logits")) {
    return gld::InvalidArgumentError("signature '" + key + "' has no tokens, input_pos or logits");
  }
  return r;
}

gld::Status SetInts(Runner& r, const char* name, const std::vector<int32_t>& v) {
  return r.interp->SetInput(r.in[name], v.data(), v.size() * sizeof(int32_t));
}

// The caches: zeros, or the outputs of the same names of `from`.
gld::Status SetCaches(Runner& r, const Runner* from) {
  for (const auto& [name, i] : r.in) {
    if (name == "tokens" || name == "input_pos") continue;
    const size_t bytes = r.interp->inputs()[static_cast<size_t>(i)].bytes;
    if (from == nullptr) {
      std::vector<uint8_t> zeros(bytes, 0);
      GLD_RETURN_IF_ERROR(r.interp->SetInput(i, zeros.data(), bytes));
    } else if (from->out.count(name)) {
      GLD_RETURN_IF_ERROR(r.interp->SetInput(i, from->interp->OutputData(from->out.at(name)), bytes));
    } else {
      return gld::InvalidArgumentError("no output carries cache input '" + name + "'");
    }
  }
  return gld::OkStatus();
}

int32_t LastArgmax(const Runner& r) {
  const int o = r.out.at("logits");
  const gld::TensorInfo& info = r.interp->outputs()[static_cast<size_t>(o)];
  const auto* p = static_cast<const float*>(r.interp->OutputData(o));
  const size_t vocab = static_cast<size_t>(info.shape.back()), n = info.bytes / sizeof(float);
  return static_cast<int32_t>(std::max_element(p + n - vocab, p + n) - (p + n - vocab));
}

gld::Status Run(const std::string& path, gld::Backend backend, int steps, std::vector<int32_t> prompt) {
  GLD_ASSIGN_OR_RETURN(auto model, gld::Model::FromFile(path));
  gld::Options options;
  options.backend = backend;
  GLD_ASSIGN_OR_RETURN(Runner prefill, MakeRunner(*model, options, "prefill"));
  GLD_ASSIGN_OR_RETURN(Runner decode, MakeRunner(*model, options, "decode"));
  const size_t length = prefill.interp->inputs()[static_cast<size_t>(prefill.in["tokens"])].bytes / sizeof(int32_t);
  if (prompt.empty()) {
    for (size_t i = 0; i < length; ++i) prompt.push_back(static_cast<int32_t>(i + 1));
  }
  if (prompt.size() != length) {
    return gld::InvalidArgumentError("the prefill signature takes " + std::to_string(length) + " tokens");
  }
  std::vector<int32_t> positions(length);
  for (size_t i = 0; i < length; ++i) positions[i] = static_cast<int32_t>(i);
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  GLD_RETURN_IF_ERROR(SetInts(prefill, "tokens", prompt));
  GLD_RETURN_IF_ERROR(SetInts(prefill, "input_pos", positions));
  GLD_RETURN_IF_ERROR(SetCaches(prefill, nullptr));
  GLD_RETURN_IF_ERROR(prefill.interp->Invoke());
  std::vector<int32_t> tokens = {LastArgmax(prefill)};
  const auto t1 = Clock::now();
  const Runner* last = &prefill;
  for (int s = 0; s < steps; ++s) {
    GLD_RETURN_IF_ERROR(SetInts(decode, "tokens", {tokens.back()}));
    GLD_RETURN_IF_ERROR(SetInts(decode, "input_pos", {static_cast<int32_t>(length) + s}));
    GLD_RETURN_IF_ERROR(SetCaches(decode, last));
    GLD_RETURN_IF_ERROR(decode.interp->Invoke());
    tokens.push_back(LastArgmax(decode));
    last = &decode;
  }
  const auto t2 = Clock::now();
  std::printf("%s\ntokens:", decode.interp->report().placement_line.c_str());
  for (int32_t t : tokens) std::printf(" %d", t);
  const double prefill_s = std::chrono::duration<double>(t1 - t0).count();
  const double decode_s = std::chrono::duration<double>(t2 - t1).count();
  std::printf("\nprefill: %zu tokens in %.3f ms (%.1f tokens/s)\n", length, prefill_s * 1e3, length / prefill_s);
  std::printf("decode: %d tokens in %.3f ms (%.1f tokens/s)\n", steps, decode_s * 1e3,
              steps > 0 ? steps / decode_s : 0.0);
  return gld::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.tflite [cpu|gl|auto] [N] [TOKEN...]\n", argv[0]);
    return 2;
  }
  const std::string backend_name = argc > 2 ? argv[2] : "cpu";
  const gld::Backend backend = backend_name == "gl" ? gld::Backend::kGl
                               : backend_name == "auto" ? gld::Backend::kAuto
                                                        : gld::Backend::kCpu;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 16;
  std::vector<int32_t> prompt;
  for (int i = 4; i < argc; ++i) prompt.push_back(static_cast<int32_t>(std::atoi(argv[i])));
  const gld::Status s = Run(argv[1], backend, steps, prompt);
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[0], s.ToString().c_str());
    return 1;
  }
  return 0;
}
