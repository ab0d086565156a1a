// Custom ops: an app's own kernels for the custom ops of its models (a
// TFLite CUSTOM operator, matched by its custom_code and op code version).
//
// A custom op is registered on one Options value (RegisterCustomOp); an
// Interpreter created with those Options runs the model's nodes of that name
// with it. Nothing is process-wide: two Options may register different
// kernels under one name. A registration has
//   - a shape function: the output types and shapes from the input types and
//     shapes and the node's custom options bytes;
//   - a CPU kernel: an optional prepare (validate the node, make the state
//     its runs share) and run;
//   - optionally a GL kernel: the GLSL of a compute shader in the style of
//     the library's own templates (below), so that the node runs inside a
//     GPU segment instead of splitting it.
// Without a GL kernel the node runs on the CPU and the GPU segments around
// it are split there.
//
// The GL kernel's source is placed after the library's prelude
// (glsl/common.comp: STORAGE, LOAD, PACK, phwc4_index, GRID_GUARD,
// mask_lanes, ...) and the custom-op accessors (glsl/custom_op.comp):
//   u_in0 .. u_in7, u_out0 .. u_out3   ivec4 BHWC shapes of inputs / outputs
//   read_input<i>(b, y, x, s)          the vec4 of slice s (channels 4s..4s+3)
//   write_output<i>(b, y, x, s, v)     stores v, zeroing lanes past the channels
//   u_params[4]                        16 floats from CustomGlDispatch::params
//   output_position(out ivec4 p)       under the default grid: this invocation's
//                                      (b, y, x, s), false past the grid
// and must define main(). Every float tensor lives on the GPU in PHWC4
// (ceil(C / 4) slices of 4 channels; element (b, y, x, c) is lane c % 4 of
// slice c / 4); in fp16 precision the storage is half floats and the
// arithmetic stays fp32 (fp16_mediump: mediump). Bindings: outputs at 0 ..
// O - 1, inputs at O .. O + I - 1. The default grid is one invocation per
// vec4 of output 0, gl_GlobalInvocationID = (x, y, b * S + s); u_grid holds
// it, and GRID_GUARD(gid) returns from invocations past it. The inputs and
// outputs of a node that runs on the GPU must be float32 tensors of rank <= 4
// (at most 8 inputs and 4 outputs).
//
// Callbacks may be called from several threads at once (Interpreters
// created and run on different threads); an exception one throws becomes an
// Internal error naming the node.
//
// A plugin for the tools (gld_benchmark, gld_run, gld_warmup, gld_inspect
// --custom_ops=lib.so) is a shared library that defines the C function
// gld_register_custom_ops (gldelegate/gldelegate.h); LoadCustomOpLibrary
// loads one into an Options value.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gldelegate/status.hpp"
#include "gldelegate/types.hpp"

namespace gld {

// A tensor's type and shape as a custom op sees it.
struct CustomTensorType {
  ElementType type = ElementType::kFloat32;
  std::vector<int32_t> shape;
};

// What each callback of a custom op sees of its node.
struct CustomOpNode {
  std::string name;   // the custom_code, "MyOp"
  int version = 1;    // the operator code's version
  std::string label;  // "node 3 (MyOp)", for messages
  // The operator's custom_options bytes (flexbuffers in models TFLite's
  // converter made: CustomOptionsMap reads them); valid during the call.
  const uint8_t* options = nullptr;
  size_t options_size = 0;
  std::vector<CustomTensorType> inputs;   // an absent optional input: kUnknown, empty shape
  // The shape function fills these (arriving sized to the node's outputs,
  // with the types the file declares, else kUnknown); the other callbacks
  // see the final ones.
  std::vector<CustomTensorType> outputs;
};

// One CPU run: the node's host buffers, in input / output order (types and
// shapes in node->inputs / node->outputs); nullptr for an absent input.
struct CustomCpuRun {
  const CustomOpNode* node = nullptr;
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  void* state = nullptr;  // what prepare made (nullptr without one)
};

// What a GL kernel's dispatch runs over, for one node.
struct CustomGlDispatch {
  std::array<uint32_t, 3> grid = {1, 1, 1};       // invocations that do work (u_grid)
  std::array<uint32_t, 3> workgroup = {0, 0, 0};  // local size; zeros: the library's choice
  std::array<float, 16> params = {};               // u_params[4], as 4 vec4s
};

struct CustomGlKernel {
  // The GLSL (see the top of this file); empty: no GL kernel.
  std::string source;
  // Optional: sets the grid, workgroup and params of a node's dispatch, which
  // arrives with the default grid (one invocation per vec4 of output 0). An
  // error keeps the node on the CPU, with the message as the reason.
  std::function<Status(const CustomOpNode& node, CustomGlDispatch* dispatch)> configure;
};

struct CustomOp {
  std::string name;  // the custom_code it runs
  // 0: every version of the op code; else only this one (a registration of
  // the exact version is chosen over a version-0 one).
  int version = 0;
  // Required: sets node->outputs[i].type and .shape.
  std::function<Status(CustomOpNode* node)> shape;
  // Optional: called once per node when its shapes are final (at Interpreter
  // creation, for a node placed on the CPU): checks it and may set *state,
  // which the node's runs get and the Interpreter keeps until it is deleted.
  std::function<Status(const CustomOpNode& node, std::shared_ptr<void>* state)> prepare;
  // Required: computes the outputs.
  std::function<Status(const CustomCpuRun& run)> run;
  CustomGlKernel gl;  // optional
};

// Adds `op` to options->custom_ops. InvalidArgument naming the op when its
// name is empty, it has no shape function or no CPU run, its version is
// negative, or `options` already has an op of that name and version. The GL
// source is compiled when an Interpreter first needs it: a compile error
// fails Interpreter::Create with backend gl, naming the op and quoting the
// compiler's log (with backend auto the node runs on the CPU).
GLD_EXPORT Status RegisterCustomOp(Options* options, CustomOp op);

// Loads the shared library at `path` and calls its gld_register_custom_ops
// (gldelegate/gldelegate.h) on `options`. One-line errors: no such file,
// not a shared library, no gld_register_custom_ops symbol, or the message
// of its failed registration. The library stays loaded for the process.
GLD_EXPORT Status LoadCustomOpLibrary(const std::string& path, Options* options);

// A custom op a model uses, and what `Options` registered for it
// (CustomOpsOf in gldelegate.hpp; gld_inspect lists these).
struct CustomOpUse {
  std::string name;
  int version = 1;
  int nodes = 0;            // nodes of the model that use it
  bool registered = false;  // a registration matches (CPU kernel)
  bool gl = false;          // that registration has a GL kernel
  // No registration of the app's takes it, and the library runs it itself
  // (MediaPipe's transform ops); registered and gl then say what the
  // library's kernels do.
  bool library = false;
};

// A flexbuffer map (the custom options of TFLite-made models), verified
// when parsed; the bytes are copied.
class CustomOptionsMap {
 public:
  // InvalidArgument when the bytes are not a valid flexbuffer holding a map.
  GLD_EXPORT static StatusOr<CustomOptionsMap> Parse(const uint8_t* data, size_t size);

  GLD_EXPORT std::vector<std::string> Keys() const;
  GLD_EXPORT bool Has(const std::string& key) const;
  // NotFound when the key is missing; InvalidArgument when its value has
  // another type. Int and Float take any number (and a bool); Numbers a
  // vector of numbers.
  GLD_EXPORT StatusOr<int64_t> Int(const std::string& key) const;
  GLD_EXPORT StatusOr<double> Float(const std::string& key) const;
  GLD_EXPORT StatusOr<bool> Bool(const std::string& key) const;
  GLD_EXPORT StatusOr<std::string> String(const std::string& key) const;
  GLD_EXPORT StatusOr<std::vector<double>> Numbers(const std::string& key) const;

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace gld
