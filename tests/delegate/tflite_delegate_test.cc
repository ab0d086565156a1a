// The TFLite delegate against a TfLiteContext of the test's own (the ABI of
// model/tflite_abi.h), without LiteRT: options from strings, the C option
// structs through the reader's parsers, the context checks, and a delegate
// Prepare that takes what it can run and leaves the rest, its kernel run
// through the registration it handed TFLite. LiteRT's own interpreter runs
// it in python/tests/test_delegate.py.
#include <gtest/gtest.h>

#include <flatbuffers/flexbuffers.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "delegate/delegate_options.h"
#include "delegate/tflite_delegate.h"
#include "delegate/tflite_graph.h"
#include "graph/graph.h"
#include "gldelegate/tflite_delegate.h"
#include "model/tflite_ops.h"

namespace gld {
namespace {

using delegate::SetDelegateOption;

TEST(DelegateOptions, KeysOfTheTableByKind) {
  Options o;
  std::vector<std::string> notes;
  ASSERT_TRUE(SetDelegateOption(&o, "backend", "cpu", &notes).ok());
  ASSERT_TRUE(SetDelegateOption(&o, "precision", "fp16", &notes).ok());
  ASSERT_TRUE(SetDelegateOption(&o, "num_threads", "-1", &notes).ok());
  ASSERT_TRUE(SetDelegateOption(&o, "gpu_deny_ops", "ADD, MUL", &notes).ok());
  ASSERT_TRUE(SetDelegateOption(&o, "enable_profiling", "true", &notes).ok());
  ASSERT_TRUE(SetDelegateOption(&o, "serialization_dir", "/tmp/x", &notes).ok());
  EXPECT_EQ(o.backend, Backend::kCpu);
  EXPECT_EQ(o.precision, Precision::kFp16);
  EXPECT_EQ(o.num_threads, -1);
  EXPECT_EQ(o.gpu_deny_ops, (std::vector<std::string>{"ADD", "MUL"}));
  EXPECT_TRUE(o.enable_profiling);
  EXPECT_EQ(o.cache_dir, "/tmp/x");
  ASSERT_TRUE(SetDelegateOption(&o, "is_precision_loss_allowed", "0", &notes).ok());
  EXPECT_EQ(o.precision, Precision::kFp32);
  ASSERT_TRUE(SetDelegateOption(&o, "inference_preference", "1", &notes).ok());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("ignored"), std::string::npos);
}

// gpu_deny_ops as a delegate option string: empty items and unknown names
// are errors naming them (they were dropped or taken).
TEST(DelegateOptions, DenyListTyposAreErrors) {
  Options o;
  std::vector<std::string> notes;
  Status s = SetDelegateOption(&o, "gpu_deny_ops", ",,,", &notes);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("gpu_deny_ops item 1 of 4 is empty"), std::string::npos) << s.message();
  s = SetDelegateOption(&o, "gpu_deny_ops", "ADD,CONV2D", &notes);
  EXPECT_NE(s.message().find("unknown op 'CONV2D' (did you mean CONV_2D?)"), std::string::npos) << s.message();
  EXPECT_TRUE(o.gpu_deny_ops.empty());
  ASSERT_TRUE(SetDelegateOption(&o, "gpu_deny_ops", "", &notes).ok());
  EXPECT_TRUE(o.gpu_deny_ops.empty());
}

TEST(DelegateOptions, BadKeysAndValuesNameThemselves) {
  Options o;
  std::vector<std::string> notes;
  Status s = SetDelegateOption(&o, "no_such", "1", &notes);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unknown option 'no_such'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("backend, precision"), std::string::npos) << s.message();
  s = SetDelegateOption(&o, "num_threads", "0", &notes);
  EXPECT_NE(s.message().find("num_threads must be -1"), std::string::npos) << s.message();
  EXPECT_EQ(o.num_threads, 1);  // unchanged
  EXPECT_FALSE(SetDelegateOption(&o, "num_threads", "two", &notes).ok());
  EXPECT_FALSE(SetDelegateOption(&o, "backend", "vulkan", &notes).ok());
  EXPECT_FALSE(SetDelegateOption(&o, "enable_profiling", "maybe", &notes).ok());
  EXPECT_FALSE(SetDelegateOption(&o, "share_egl_context", "0x1", &notes).ok());
}

TEST(DelegateOptions, PluginEntryReportsAndReturnsNull) {
  static std::string reported;
  reported.clear();
  char key[] = "bogus", value[] = "1";
  char* keys[] = {key};
  char* values[] = {value};
  TfLiteDelegate* d = tflite_plugin_create_delegate(keys, values, 1, [](const char* m) { reported = m; });
  EXPECT_EQ(d, nullptr);
  EXPECT_NE(reported.find("gldelegate: unknown option 'bogus'"), std::string::npos) << reported;
  char key2[] = "backend", value2[] = "cpu";
  char* keys2[] = {key2};
  char* values2[] = {value2};
  d = tflite_plugin_create_delegate(keys2, values2, 1, nullptr);
  ASSERT_NE(d, nullptr);
  tflite_plugin_destroy_delegate(d);
}

TEST(OptionParsers, CStructsMapAsTheFileOptionsDo) {
  TfLiteConvParams conv = {kTfLitePaddingSame, 2, 3, kTfLiteActRelu6, 1, 2};
  Attributes a;
  ASSERT_TRUE(tflite_ops::ParseBuiltinData(OpType::kConv2d, &conv, &a).ok());
  const auto& c = std::get<Conv2dAttributes>(a);
  EXPECT_EQ(c.padding, Padding::kSame);
  EXPECT_EQ(c.stride_w, 2);
  EXPECT_EQ(c.stride_h, 3);
  EXPECT_EQ(c.dilation_h, 2);
  EXPECT_EQ(c.activation, Activation::kRelu6);
  conv.padding = kTfLitePaddingUnknown;
  EXPECT_FALSE(tflite_ops::ParseBuiltinData(OpType::kConv2d, &conv, &a).ok());
  conv = {kTfLitePaddingValid, 0, 1, kTfLiteActNone, 1, 1};
  Status s = tflite_ops::ParseBuiltinData(OpType::kConv2d, &conv, &a);
  EXPECT_NE(s.message().find("stride_w is 0"), std::string::npos) << s.message();
  EXPECT_NE(tflite_ops::ParseBuiltinData(OpType::kConv2d, nullptr, &a).message().find("missing Conv2DOptions"),
            std::string::npos);

  TfLiteReshapeParams reshape = {{1, -1, 4}, 3};
  ASSERT_TRUE(tflite_ops::ParseBuiltinData(OpType::kReshape, &reshape, &a).ok());
  EXPECT_EQ(std::get<ReshapeAttributes>(a).new_shape, (std::vector<int32_t>{1, -1, 4}));
  TfLiteMirrorPaddingParams mirror = {kTfLiteMirrorPaddingSymmetric};
  ASSERT_TRUE(tflite_ops::ParseBuiltinData(OpType::kMirrorPad, &mirror, &a).ok());
  EXPECT_TRUE(std::get<MirrorPadAttributes>(a).symmetric);
  TfLiteAddParams add = {kTfLiteActRelu, false};
  ASSERT_TRUE(tflite_ops::ParseBuiltinData(OpType::kAdd, &add, &a).ok());
  EXPECT_EQ(std::get<BinaryAttributes>(a).activation, Activation::kRelu);
  ASSERT_TRUE(tflite_ops::ParseBuiltinData(OpType::kMaximum, nullptr, &a).ok());  // no options of its own
}

// A TFLite interpreter's context, as far as the delegate looks: tensors,
// nodes with registrations, an execution plan; Replace... records its call.
class FakeTfLite {
 public:
  FakeTfLite() {
    std::memset(&context_, 0, sizeof(context_));
    context_.impl_ = this;
    context_.GetExecutionPlan = [](TfLiteContext* c, TfLiteIntArray** plan) {
      *plan = Self(c)->plan_.get();
      return kTfLiteOk;
    };
    context_.GetNodeAndRegistration = [](TfLiteContext* c, int i, TfLiteNode** n, TfLiteRegistration** r) {
      FakeTfLite* self = Self(c);
      if (i < 0 || static_cast<size_t>(i) >= self->nodes_.size()) return kTfLiteError;
      *n = &self->nodes_[i];
      *r = &self->regs_[i];
      return kTfLiteOk;
    };
    context_.ReplaceNodeSubsetsWithDelegateKernels = [](TfLiteContext* c, TfLiteRegistration reg,
                                                       const TfLiteIntArray* nodes, TfLiteDelegate*) {
      FakeTfLite* self = Self(c);
      self->kernel_ = reg;
      self->replaced_.assign(nodes->data, nodes->data + nodes->size);
      return kTfLiteOk;
    };
    context_.ResizeTensor = [](TfLiteContext*, TfLiteTensor* t, TfLiteIntArray* dims) {
      std::free(t->dims);
      t->dims = dims;
      return kTfLiteOk;
    };
    context_.ReportError = ReportError;
  }
  ~FakeTfLite() {
    for (TfLiteTensor& t : tensors_) std::free(t.dims);
  }

  int Tensor(std::vector<int> dims, std::vector<float>* constant = nullptr) {
    TfLiteTensor t;
    std::memset(&t, 0, sizeof(t));
    t.type = kTfLiteFloat32;
    t.dims = Array(dims).release();
    size_t n = 1;
    for (int d : dims) n *= static_cast<size_t>(d);
    t.bytes = n * sizeof(float);
    t.allocation_type = constant != nullptr ? kTfLiteMmapRo : kTfLiteArenaRw;
    storage_.emplace_back(constant != nullptr ? *constant : std::vector<float>(n));
    tensors_.push_back(t);
    return static_cast<int>(tensors_.size()) - 1;
  }
  void Node(int32_t builtin_code, std::vector<int> inputs, std::vector<int> outputs, void* builtin_data = nullptr) {
    TfLiteNode n;
    std::memset(&n, 0, sizeof(n));
    arrays_.push_back(Array(inputs));
    n.inputs = arrays_.back().get();
    arrays_.push_back(Array(outputs));
    n.outputs = arrays_.back().get();
    n.builtin_data = builtin_data;
    nodes_.push_back(n);
    TfLiteRegistration r;
    std::memset(&r, 0, sizeof(r));
    r.builtin_code = builtin_code;
    r.version = 1;
    regs_.push_back(r);
  }
  // A custom node as LiteRT's interpreter makes one: the options bytes and,
  // for an op LiteRT has no kernel for, its stand-in registration (version 1).
  void CustomNode(const char* name, int version, std::vector<int> inputs, std::vector<int> outputs,
                  std::vector<uint8_t> options) {
    options_.push_back(std::make_unique<std::vector<uint8_t>>(std::move(options)));
    Node(32 /* BuiltinOperator_CUSTOM */, std::move(inputs), std::move(outputs));
    nodes_.back().custom_initial_data = options_.back()->empty() ? nullptr : options_.back()->data();
    nodes_.back().custom_initial_data_size = static_cast<int>(options_.back()->size());
    regs_.back().custom_name = name;
    regs_.back().version = version;
  }
  TfLiteContext* Finish() {
    std::vector<int> plan;
    for (size_t i = 0; i < nodes_.size(); ++i) plan.push_back(static_cast<int>(i));
    plan_ = Array(plan);
    for (size_t i = 0; i < tensors_.size(); ++i) tensors_[i].data = storage_[i].data();
    context_.tensors = tensors_.data();
    context_.tensors_size = tensors_.size();
    return &context_;
  }
  float* Data(int t) { return storage_[static_cast<size_t>(t)].data(); }
  TfLiteTensor& tensor(int t) { return tensors_[static_cast<size_t>(t)]; }

  TfLiteRegistration kernel_;
  std::vector<int> replaced_;
  std::string errors_;

 private:
  struct Free {
    void operator()(TfLiteIntArray* a) const { std::free(a); }
  };
  static FakeTfLite* Self(const TfLiteContext* c) { return static_cast<FakeTfLite*>(c->impl_); }
  static void ReportError(TfLiteContext* c, const char* format, ...) {
    char text[4096];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    Self(c)->errors_ += text;
  }
  static std::unique_ptr<TfLiteIntArray, Free> Array(const std::vector<int>& v) {
    auto* a = static_cast<TfLiteIntArray*>(std::malloc(sizeof(int) * (v.size() + 1)));
    a->size = static_cast<int>(v.size());
    if (!v.empty()) std::memcpy(a->data, v.data(), v.size() * sizeof(int));
    return std::unique_ptr<TfLiteIntArray, Free>(a);
  }

  TfLiteContext context_;
  std::vector<TfLiteTensor> tensors_;
  std::vector<std::vector<float>> storage_;
  std::vector<TfLiteNode> nodes_;
  std::vector<TfLiteRegistration> regs_;
  std::vector<std::unique_ptr<TfLiteIntArray, Free>> arrays_;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> options_;
  std::unique_ptr<TfLiteIntArray, Free> plan_;
};

constexpr int32_t kAdd = 0, kMul = 18, kSoftmax = 25, kMatrixDiag = 113;

// The plugin entry's delegate on the CPU backend.
TfLiteDelegate* CpuDelegate() {
  char key[] = "backend", value[] = "cpu";
  char* keys[] = {key};
  char* values[] = {value};
  return tflite_plugin_create_delegate(keys, values, 1, nullptr);
}

template <typename F>
std::vector<uint8_t> Flex(F fill) {
  flexbuffers::Builder b;
  b.Map([&] { fill(b); });
  b.Finish();
  return b.GetBuffer();
}

// The library's attributes of a MediaPipe node read from a context.
template <typename A>
A LibraryAttributes(TfLiteContext* context, int node) {
  auto n = delegate::NodeFromTfLite(context, node);
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  if (!n.ok()) return A{};
  const auto* custom = std::get_if<CustomAttributes>(&n->attributes);
  EXPECT_TRUE(custom != nullptr && custom->library != nullptr);
  if (custom == nullptr || custom->library == nullptr) return A{};
  const A* a = std::get_if<A>(&custom->library->attributes);
  EXPECT_NE(a, nullptr);
  return a != nullptr ? *a : A{};
}

// LiteRT hands a delegate a custom op it has no kernel for with a stand-in
// registration of version 1, whatever the model's op code says: the options
// tell the version (face_landmark_with_attention's ops are version 2).
TEST(TfLiteDelegate, MediaPipeOpsOfVersion2UnderLiteRTsStandInRegistration) {
  FakeTfLite tfl;
  const int lm = tfl.Tensor({1, 8, 3}), m = tfl.Tensor({1, 4, 4}), img = tfl.Tensor({1, 8, 8, 4});
  const int crop = tfl.Tensor({1, 4, 4, 4}), lm_out = tfl.Tensor({1, 8, 3});
  tfl.CustomNode("Landmarks2TransformMatrix", 1, {lm}, {m}, Flex([](flexbuffers::Builder& b) {
                   b.Vector("subset_idxs", [&] {
                     for (int i : {0, 1, 2, 3}) b.Int(i);
                   });
                   b.Int("left_rotation_idx", 0);
                   b.Int("right_rotation_idx", 1);
                   b.Float("target_rotation_radians", 0.f);
                   b.Int("output_height", 4);
                   b.Int("output_width", 4);
                   b.Float("scale_x", 1.5f);
                   b.Float("scale_y", 1.5f);
                 }));
  tfl.CustomNode("TransformTensorBilinear", 1, {img, m}, {crop}, Flex([](flexbuffers::Builder& b) {
                   b.Int("output_height", 4);
                   b.Int("output_width", 4);
                 }));
  tfl.CustomNode("TransformLandmarks", 1, {lm, m}, {lm_out}, {});
  TfLiteContext* context = tfl.Finish();
  const auto l2t = LibraryAttributes<Landmarks2TransformMatrixAttributes>(context, 0);
  EXPECT_EQ(l2t.version, 2);
  EXPECT_EQ(l2t.output_height, 4);
  EXPECT_FLOAT_EQ(l2t.scale_x, 1.5f);
  const auto bilinear = LibraryAttributes<TransformTensorBilinearAttributes>(context, 1);
  EXPECT_EQ(bilinear.output_height, 4);
  EXPECT_TRUE(bilinear.align_corners);  // version 2's sampling
  EXPECT_EQ(LibraryAttributes<TransformLandmarksAttributes>(context, 2).version, 2);
  // The delegate takes all three (the library's own rows run them).
  TfLiteDelegate* d = CpuDelegate();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->Prepare(context, d), kTfLiteOk) << tfl.errors_;
  EXPECT_EQ(tfl.replaced_, (std::vector<int>{0, 1, 2})) << tfl.errors_;
  tflite_plugin_destroy_delegate(d);
}

// Version 1 options stay version 1, under either registration.
TEST(TfLiteDelegate, MediaPipeOpsOfVersion1KeepIt) {
  for (int registered : {1, 2}) {
    FakeTfLite tfl;
    const int lm = tfl.Tensor({1, 8, 3}), m = tfl.Tensor({1, 4, 4}), out = tfl.Tensor({1, 8, 3});
    tfl.CustomNode("TransformLandmarks", registered, {lm, m}, {out}, Flex([](flexbuffers::Builder& b) {
                     b.Int("dimensions", 3);
                     b.Float("scale", 2.f);
                   }));
    TfLiteContext* context = tfl.Finish();
    const auto a = LibraryAttributes<TransformLandmarksAttributes>(context, 0);
    EXPECT_EQ(a.version, 1) << registered;
    EXPECT_FLOAT_EQ(a.scale, 2.f) << registered;
  }
}

TEST(TfLiteDelegate, TakesWhatItRunsAndRunsItThroughTheKernel) {
  FakeTfLite tfl;
  std::vector<float> c = {1, 2, 3, 4};
  const int x = tfl.Tensor({1, 4}), k = tfl.Tensor({4}, &c), a = tfl.Tensor({1, 4}), y = tfl.Tensor({1, 4});
  const int z = tfl.Tensor({1, 4});
  TfLiteAddParams relu = {kTfLiteActRelu, false};
  TfLiteMulParams none = {kTfLiteActNone};
  tfl.Node(kAdd, {x, k}, {a}, &relu);
  tfl.Node(kMul, {a, k}, {y}, &none);
  tfl.Node(kMatrixDiag, {y}, {z});  // not in the op table: stays with TFLite
  TfLiteContext* context = tfl.Finish();

  TfLiteDelegate* d = CpuDelegate();
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->Prepare(context, d), kTfLiteOk) << tfl.errors_;
  EXPECT_EQ(tfl.replaced_, (std::vector<int>{0, 1}));
  EXPECT_STREQ(tfl.kernel_.custom_name, "gldelegate");

  // TFLite's part: one partition of nodes 0-1, x in, y out.
  std::vector<int> nodes = {2, 0, 1}, ins = {2, x, k}, outs = {1, y};
  TfLiteDelegateParams params = {d, reinterpret_cast<TfLiteIntArray*>(nodes.data()),
                                 reinterpret_cast<TfLiteIntArray*>(ins.data()),
                                 reinterpret_cast<TfLiteIntArray*>(outs.data())};
  TfLiteNode node;
  std::memset(&node, 0, sizeof(node));
  node.user_data = tfl.kernel_.init(context, reinterpret_cast<const char*>(&params), 0);
  ASSERT_NE(node.user_data, nullptr);
  ASSERT_EQ(tfl.kernel_.prepare(context, &node), kTfLiteOk) << tfl.errors_;
  const float in[4] = {-5, 0, 1, 2};
  std::memcpy(tfl.Data(x), in, sizeof(in));
  ASSERT_EQ(tfl.kernel_.invoke(context, &node), kTfLiteOk) << tfl.errors_;
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(tfl.Data(y)[i], std::max(in[i] + c[i], 0.f) * c[i]) << i;
  tfl.kernel_.free(context, node.user_data);
  tflite_plugin_destroy_delegate(d);
}

// GldTfLiteDelegateCancel from another thread ends the partition invoke
// running now (LiteRT offers a delegate kernel no view of its own
// interpreter's Cancel, which is checked between nodes only): a partition of
// 150 SOFTMAX + ADD steps, invoked until one invoke fails with
// "invoke cancelled"; the next invoke runs normally.
TEST(TfLiteDelegate, CancelEndsTheRunningPartitionInvoke) {
  FakeTfLite tfl;
  constexpr int kSteps = 150, kWidth = 1 << 14;
  std::vector<float> c(kWidth, 0.5f);
  const int k = tfl.Tensor({1, kWidth}, &c);
  const int x = tfl.Tensor({1, kWidth});
  TfLiteSoftmaxParams beta = {1.0f};
  TfLiteAddParams none = {kTfLiteActNone, false};
  int last = x;
  for (int i = 0; i < kSteps; ++i) {
    const int s = tfl.Tensor({1, kWidth}), a = tfl.Tensor({1, kWidth});
    tfl.Node(kSoftmax, {last}, {s}, &beta);
    tfl.Node(kAdd, {s, k}, {a}, &none);
    last = a;
  }
  TfLiteContext* context = tfl.Finish();
  TfLiteDelegate* d = CpuDelegate();
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->Prepare(context, d), kTfLiteOk) << tfl.errors_;
  ASSERT_EQ(tfl.replaced_.size(), static_cast<size_t>(2 * kSteps));
  std::vector<int> nodes = {2 * kSteps}, ins = {2, x, k}, outs = {1, last};
  for (int i = 0; i < 2 * kSteps; ++i) nodes.push_back(i);
  TfLiteDelegateParams params = {d, reinterpret_cast<TfLiteIntArray*>(nodes.data()),
                                 reinterpret_cast<TfLiteIntArray*>(ins.data()),
                                 reinterpret_cast<TfLiteIntArray*>(outs.data())};
  TfLiteNode node;
  std::memset(&node, 0, sizeof(node));
  node.user_data = tfl.kernel_.init(context, reinterpret_cast<const char*>(&params), 0);
  ASSERT_NE(node.user_data, nullptr);
  ASSERT_EQ(tfl.kernel_.prepare(context, &node), kTfLiteOk) << tfl.errors_;
  ASSERT_EQ(tfl.kernel_.invoke(context, &node), kTfLiteOk) << tfl.errors_;
  const float expected = tfl.Data(last)[0];

  std::atomic<bool> done{false};
  std::thread canceller([&] {
    while (!done.load()) {
      EXPECT_EQ(GldTfLiteDelegateCancel(d), GLD_OK);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  bool cancelled = false;
  const auto start = std::chrono::steady_clock::now();
  while (!cancelled && std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    tfl.errors_.clear();
    cancelled = tfl.kernel_.invoke(context, &node) != kTfLiteOk;
  }
  done = true;
  canceller.join();
  ASSERT_TRUE(cancelled) << "no invoke was cancelled in 20 s";
  EXPECT_NE(tfl.errors_.find("invoke cancelled"), std::string::npos) << tfl.errors_;
  tfl.errors_.clear();
  ASSERT_EQ(tfl.kernel_.invoke(context, &node), kTfLiteOk) << tfl.errors_;
  EXPECT_FLOAT_EQ(tfl.Data(last)[0], expected);
  EXPECT_EQ(GldTfLiteDelegateCancel(nullptr), GLD_INVALID_ARGUMENT);
  tfl.kernel_.free(context, node.user_data);
  tflite_plugin_destroy_delegate(d);
}

TEST(TfLiteDelegate, AContextThatLooksWrongIsRefusedWithAMessage) {
  FakeTfLite tfl;
  const int x = tfl.Tensor({1, 4}), y = tfl.Tensor({1, 4});
  tfl.Node(kAdd, {x, x}, {y});
  TfLiteContext* context = tfl.Finish();
  tfl.tensor(x).type = static_cast<TfLiteType>(12345);
  auto plan = delegate::CheckedExecutionPlan(context);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("does not look like"), std::string::npos) << plan.status().message();

  TfLiteDelegate* d = GldTfLiteDelegateCreate(nullptr);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->Prepare(context, d), kTfLiteError);
  EXPECT_NE(tfl.errors_.find("gldelegate: "), std::string::npos) << tfl.errors_;
  GldTfLiteDelegateDelete(d);
}

}  // namespace
}  // namespace gld
