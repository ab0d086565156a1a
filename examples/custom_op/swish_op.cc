// A custom op as a plugin: SwishBeta, y = x * sigmoid(beta * x), with beta
// read from the operator's custom options (a flexbuffer map {"beta": 1.5};
// 1 when the model stores none). It has a CPU kernel and a GL kernel, so in
// a model run with --backend=gl it stays inside the GPU segment around it.
//
// Built as a shared library (examples/custom_op/CMakeLists.txt), it needs
// only the C header: the tools load it with
//   gld_benchmark --graph=m.tflite --custom_ops=libgld_example_custom_op.so --backend=gl
// and call gld_register_custom_ops below; an app can load it with
// gld::LoadCustomOpLibrary or GldOptionsLoadCustomOps.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "gldelegate/gldelegate.h"

namespace {

const GldCustomOpApi* g_api = nullptr;

GldStatus Fail(const GldCustomNode* node, const char* message) {
  std::snprintf(node->error, node->error_size, "%s", message);
  return GLD_INVALID_ARGUMENT;
}

// beta from the custom options; 1 without options or without the key.
GldStatus ReadBeta(const GldCustomNode* node, float* beta) {
  *beta = 1.0f;
  if (node->options_size == 0) return GLD_OK;
  double v = 1.0;
  const GldStatus s = g_api->get_option_number(node->options, node->options_size, "beta", &v);
  if (s == GLD_NOT_FOUND) return GLD_OK;
  if (s != GLD_OK) return Fail(node, "custom options are not a flexbuffer map with a number 'beta'");
  *beta = static_cast<float>(v);
  return GLD_OK;
}

// One float32 input, one output of the same shape.
GldStatus Shape(void*, const GldCustomNode* node, GldCustomTensor* outputs) {
  if (node->num_inputs != 1 || node->num_outputs != 1) return Fail(node, "SwishBeta takes 1 input and 1 output");
  if (node->inputs[0].type != GLD_TYPE_FLOAT32) return Fail(node, "SwishBeta takes a float32 input");
  outputs[0] = node->inputs[0];
  return GLD_OK;
}

// The state: beta, read once per node.
GldStatus Prepare(void*, const GldCustomNode* node, void** state) {
  float beta = 1.0f;
  const GldStatus s = ReadBeta(node, &beta);
  if (s != GLD_OK) return s;
  float* kept = static_cast<float*>(std::malloc(sizeof(float)));
  if (kept == nullptr) return Fail(node, "out of memory");
  *kept = beta;
  *state = kept;
  return GLD_OK;
}

void FreeState(void*, void* state) { std::free(state); }

GldStatus Run(void*, const GldCustomNode* node, void* state, const void* const* inputs, void* const* outputs) {
  const float beta = *static_cast<const float*>(state);
  size_t n = 1;
  for (int32_t d = 0; d < node->inputs[0].num_dims; ++d) n *= static_cast<size_t>(node->inputs[0].dims[d]);
  const float* x = static_cast<const float*>(inputs[0]);
  float* y = static_cast<float*>(outputs[0]);
  for (size_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-beta * x[i]));
  return GLD_OK;
}

// The dispatch: the default grid (one invocation per output vec4) and beta
// as u_params[0].x.
GldStatus Configure(void*, const GldCustomNode* node, GldCustomGlDispatch* dispatch) {
  return ReadBeta(node, &dispatch->params[0]);
}

// One invocation per vec4 of the output (the default grid); p is its
// (batch, y, x, slice). The accessors come from glsl/custom_op.comp.
const char kSwishGlsl[] = R"(
void main() {
  ivec4 p;
  if (!output_position(p)) return;
  vec4 x = read_input0(p.x, p.y, p.z, p.w);
  float beta = u_params[0].x;
  write_output0(p.x, p.y, p.z, p.w, x / (1.0 + exp(-beta * x)));
}
)";

}  // namespace

extern "C" __attribute__((visibility("default"))) GldStatus gld_register_custom_ops(GldOptions* options,
                                                                                     const GldCustomOpApi* api) {
  if (api == nullptr || api->abi_version != GLD_CUSTOM_OP_ABI_VERSION) return GLD_FAILED_PRECONDITION;
  g_api = api;
  GldCustomOp op = {};
  op.name = "SwishBeta";
  op.version = 0;  // every version
  op.shape = Shape;
  op.prepare = Prepare;
  op.free_state = FreeState;
  op.run = Run;
  op.gl_source = kSwishGlsl;
  op.gl_configure = Configure;
  return api->add_custom_op(options, &op);
}
