// A greedy decode loop over a generative decoder with `prefill` and `decode`
// signatures and its KV cache as inputs and outputs (litert-torch's export;
// tests/data/decoders/ has two small ones):
//
//   gld_example_decode_loop MODEL.tflite [cpu|gl|auto] [N] [TOKEN... | PROMPT.npy] [--expect=TOKENS.npy]
//
// prefills the prompt (default: tokens 1..8, padded to the prefill
// signature's length; or the int32 values of PROMPT.npy), then decodes N
// tokens (default 16), each the argmax of the step before, and prints the
// tokens and tokens/s of both phases. With --expect, the tokens must equal
// those of TOKENS.npy (exit status 1 otherwise).
//
// One Interpreter per signature of one Model (the weights shared). The
// caches stay resident: each cache is ONE buffer bound as both signatures'
// cache input and cache output, which every step updates in place, so only
// the token and the position go in and the logits come out. On the GL
// backend the buffers are the app's GL storage buffers (BindInputBuffer +
// BindOutputBuffer, in the app's context: ContextMode::kCurrent); on the CPU
// they are the app's host memory (BindInputHostBuffer + BindOutputHostBuffer).
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl31.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"

namespace {

// The exit status when --backend gl has no OpenGL ES 3.1 context (CTest's
// SKIP_RETURN_CODE).
constexpr int kNoGl = 77;

// The app's GL context, current on this thread while it lives, and the
// buffers it made.
struct AppContext {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  std::vector<GLuint> buffers;

  bool Make() {
    auto get_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (get_display == nullptr) return false;
    display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, nullptr, nullptr)) return false;
    eglBindAPI(EGL_OPENGL_ES_API);
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE};
    context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
    return context != EGL_NO_CONTEXT && eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
  }
  // A zeroed storage buffer of `bytes`.
  GLuint ZeroBuffer(size_t bytes) {
    const std::vector<uint8_t> zeros(bytes, 0);
    GLuint b = 0;
    glGenBuffers(1, &b);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes), zeros.data(), GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    buffers.push_back(b);
    return b;
  }
  ~AppContext() {
    if (context != EGL_NO_CONTEXT) {
      if (!buffers.empty()) glDeleteBuffers(static_cast<GLsizei>(buffers.size()), buffers.data());
      eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(display, context);
    }
    if (display != EGL_NO_DISPLAY) eglTerminate(display);
  }
};

// The int32 values of a .npy file ('<i4', C order, any shape).
gld::StatusOr<std::vector<int32_t>> ReadInt32Npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return gld::InvalidArgumentError("cannot open '" + path + "'");
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < 12 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    return gld::InvalidArgumentError("'" + path + "' is not a .npy file");
  }
  const auto u8 = [&](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(bytes[i])); };
  const bool v1 = bytes[6] == 1;
  const size_t start = v1 ? 10 : 12;
  const size_t header = v1 ? u8(8) | u8(9) << 8 : u8(8) | u8(9) << 8 | u8(10) << 16 | u8(11) << 24;
  if (start + header > bytes.size() || (bytes.size() - start - header) % sizeof(int32_t) != 0) {
    return gld::InvalidArgumentError("'" + path + "' is cut short");
  }
  std::string dict = bytes.substr(start, header);
  dict.erase(dict.find_last_not_of(" \n") + 1);
  if (dict.find("'descr': '<i4'") == std::string::npos || dict.find("'fortran_order': False") == std::string::npos) {
    return gld::InvalidArgumentError("'" + path + "' does not hold int32 values in C order: " + dict);
  }
  std::vector<int32_t> v((bytes.size() - start - header) / sizeof(int32_t));
  std::memcpy(v.data(), bytes.data() + start + header, v.size() * sizeof(int32_t));
  return v;
}

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

// The caches, one buffer per cache name, zeroed: a GL buffer of the app's
// context (`app` not null) or host memory. Bind() binds each as `r`'s cache
// input and cache output of that name; prefill and decode share them.
struct ResidentCaches {
  AppContext* app = nullptr;
  std::map<std::string, GLuint> gl;
  std::map<std::string, std::vector<float>> host;

  gld::Status Bind(Runner& r) {
    for (const auto& [name, i] : r.in) {
      if (name == "tokens" || name == "input_pos") continue;
      if (!r.out.count(name)) return gld::InvalidArgumentError("no output carries cache input '" + name + "'");
      const int o = r.out.at(name);
      const size_t bytes = r.interp->inputs()[static_cast<size_t>(i)].bytes;
      if (app != nullptr) {
        if (!gl.count(name)) gl[name] = app->ZeroBuffer(bytes);
        GLD_RETURN_IF_ERROR(r.interp->BindInputBuffer(i, gl[name]));
        GLD_RETURN_IF_ERROR(r.interp->BindOutputBuffer(o, gl[name]));
      } else {
        std::vector<float>& v = host[name];
        if (v.empty()) v.assign(bytes / sizeof(float), 0.0f);
        GLD_RETURN_IF_ERROR(r.interp->BindInputHostBuffer(i, v.data(), bytes));
        GLD_RETURN_IF_ERROR(r.interp->BindOutputHostBuffer(o, v.data(), bytes));
      }
    }
    return gld::OkStatus();
  }
};

int32_t LastArgmax(const Runner& r) {
  const int o = r.out.at("logits");
  const gld::TensorInfo& info = r.interp->outputs()[static_cast<size_t>(o)];
  const auto* p = static_cast<const float*>(r.interp->OutputData(o));
  const size_t vocab = static_cast<size_t>(info.shape.back()), n = info.bytes / sizeof(float);
  return static_cast<int32_t>(std::max_element(p + n - vocab, p + n) - (p + n - vocab));
}

struct Args {
  std::string model;
  gld::Backend backend = gld::Backend::kCpu;
  int steps = 16;
  std::vector<int32_t> prompt;
  std::string expect;  // --expect=TOKENS.npy
};

// Prefill, then `args.steps` decode steps; the tokens and the timings.
gld::Status Decode(const Args& args, Runner& prefill, Runner& decode, std::vector<int32_t> prompt) {
  const size_t length = prefill.interp->inputs()[static_cast<size_t>(prefill.in["tokens"])].bytes / sizeof(int32_t);
  if (prompt.empty()) {
    for (size_t i = 0; i < length; ++i) prompt.push_back(static_cast<int32_t>(i + 1));
  }
  if (prompt.size() != length) {
    return gld::InvalidArgumentError("the prefill signature takes " + std::to_string(length) + " tokens, got " +
                                     std::to_string(prompt.size()));
  }
  std::vector<int32_t> positions(length);
  for (size_t i = 0; i < length; ++i) positions[i] = static_cast<int32_t>(i);
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  GLD_RETURN_IF_ERROR(SetInts(prefill, "tokens", prompt));
  GLD_RETURN_IF_ERROR(SetInts(prefill, "input_pos", positions));
  GLD_RETURN_IF_ERROR(prefill.interp->Invoke());
  std::vector<int32_t> tokens = {LastArgmax(prefill)};
  const auto t1 = Clock::now();
  for (int s = 0; s < args.steps; ++s) {
    GLD_RETURN_IF_ERROR(SetInts(decode, "tokens", {tokens.back()}));
    GLD_RETURN_IF_ERROR(SetInts(decode, "input_pos", {static_cast<int32_t>(length) + s}));
    GLD_RETURN_IF_ERROR(decode.interp->Invoke());
    tokens.push_back(LastArgmax(decode));
  }
  const auto t2 = Clock::now();
  std::printf("%s\ntokens:", decode.interp->report().placement_line.c_str());
  for (int32_t t : tokens) std::printf(" %d", t);
  const double prefill_s = std::chrono::duration<double>(t1 - t0).count();
  const double decode_s = std::chrono::duration<double>(t2 - t1).count();
  std::printf("\nprefill: %zu tokens in %.3f ms (%.1f tokens/s)\n", length, prefill_s * 1e3, length / prefill_s);
  std::printf("decode: %d tokens in %.3f ms (%.1f tokens/s)\n", args.steps, decode_s * 1e3,
              args.steps > 0 ? args.steps / decode_s : 0.0);
  const gld::TransferStats st = decode.interp->transfer_stats();
  if (args.steps > 0 && st.uploaded_bytes + st.downloaded_bytes > 0) {
    std::printf("last decode step: %llu bytes to the GPU, %llu back (the caches stay resident)\n",
                static_cast<unsigned long long>(st.uploaded_bytes), static_cast<unsigned long long>(st.downloaded_bytes));
  }
  if (!args.expect.empty()) {
    GLD_ASSIGN_OR_RETURN(std::vector<int32_t> want, ReadInt32Npy(args.expect));
    if (want != tokens) return gld::InternalError("the tokens differ from " + args.expect);
    std::printf("tokens equal %s\n", args.expect.c_str());
  }
  return gld::OkStatus();
}

gld::Status Run(const Args& args, AppContext* app) {
  GLD_ASSIGN_OR_RETURN(auto model, gld::Model::FromFile(args.model));
  gld::Options options;
  options.backend = args.backend;
  // The caches' GL buffers are the app's: the library works in its context.
  if (app != nullptr) options.context = gld::ContextMode::kCurrent;
  GLD_ASSIGN_OR_RETURN(Runner prefill, MakeRunner(*model, options, "prefill"));
  GLD_ASSIGN_OR_RETURN(Runner decode, MakeRunner(*model, options, "decode"));
  ResidentCaches caches;
  // GL buffers where the signatures run on GL (auto may have chosen the CPU).
  if (app != nullptr && prefill.interp->report().backend == gld::Backend::kGl &&
      decode.interp->report().backend == gld::Backend::kGl) {
    caches.app = app;
  }
  GLD_RETURN_IF_ERROR(caches.Bind(prefill));
  GLD_RETURN_IF_ERROR(caches.Bind(decode));
  std::printf("caches: %zu, resident in %s\n", caches.app ? caches.gl.size() : caches.host.size(),
              caches.app ? "GL buffers" : "host memory");
  return Decode(args, prefill, decode, args.prompt);
}

gld::StatusOr<Args> ParseArgs(int argc, char** argv) {
  Args a;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--expect=", 0) == 0) {
      a.expect = arg.substr(9);
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.empty()) return gld::InvalidArgumentError("no model given");
  a.model = positional[0];
  const std::string backend = positional.size() > 1 ? positional[1] : "cpu";
  if (backend != "cpu" && backend != "gl" && backend != "auto") {
    return gld::InvalidArgumentError("unknown backend '" + backend + "' (cpu, gl or auto)");
  }
  a.backend = backend == "gl" ? gld::Backend::kGl : backend == "auto" ? gld::Backend::kAuto : gld::Backend::kCpu;
  if (positional.size() > 2) a.steps = std::atoi(positional[2].c_str());
  for (size_t i = 3; i < positional.size(); ++i) {
    const std::string& t = positional[i];
    if (t.size() > 4 && t.compare(t.size() - 4, 4, ".npy") == 0) {
      GLD_ASSIGN_OR_RETURN(std::vector<int32_t> file, ReadInt32Npy(t));
      a.prompt.insert(a.prompt.end(), file.begin(), file.end());
    } else {
      a.prompt.push_back(static_cast<int32_t>(std::atoi(t.c_str())));
    }
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const gld::StatusOr<Args> args = ParseArgs(argc, argv);
  if (!args.ok()) {
    std::fprintf(stderr, "%s: %s\nusage: %s MODEL.tflite [cpu|gl|auto] [N] [TOKEN... | PROMPT.npy] "
                 "[--expect=TOKENS.npy]\n", argv[0], args.status().message().c_str(), argv[0]);
    return 2;
  }
  std::unique_ptr<AppContext> app;
  if (args->backend != gld::Backend::kCpu) {
    app = std::make_unique<AppContext>();
    if (!app->Make()) {
      if (args->backend == gld::Backend::kGl) {
        std::fprintf(stderr, "%s: no OpenGL ES 3.1 context on EGL's surfaceless platform\n", argv[0]);
        return kNoGl;
      }
      app.reset();  // auto: the caches in host memory
    }
  }
  const gld::Status s = Run(*args, app.get());
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[0], s.ToString().c_str());
    return 1;
  }
  return 0;
}
