#include "api/c_custom_op.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstring>
#include <string>
#include <vector>

namespace gld {

namespace {

// A GldCustomNode over a CustomOpNode, with its tensors and error buffer.
class CNode {
 public:
  static StatusOr<std::unique_ptr<CNode>> Make(const CustomOpNode& node) {
    std::unique_ptr<CNode> c(new CNode());
    GLD_RETURN_IF_ERROR(Convert(node, node.inputs, &c->inputs_));
    GLD_RETURN_IF_ERROR(Convert(node, node.outputs, &c->outputs_));
    GldCustomNode& n = c->node_;
    n.name = node.name.c_str();
    n.version = node.version;
    n.label = node.label.c_str();
    n.options = node.options;
    n.options_size = node.options_size;
    n.num_inputs = static_cast<int32_t>(c->inputs_.size());
    n.inputs = c->inputs_.data();
    n.num_outputs = static_cast<int32_t>(c->outputs_.size());
    n.outputs = c->outputs_.data();
    n.error = c->error_;
    n.error_size = sizeof(c->error_);
    return c;
  }
  const GldCustomNode* node() const { return &node_; }
  std::vector<GldCustomTensor>& outputs() { return outputs_; }
  // The callback's status as a Status, with its message.
  Status Result(GldStatus st, const char* callback) const {
    if (st == GLD_OK) return OkStatus();
    const int code = static_cast<int>(st);
    const StatusCode sc = code > 0 && code <= static_cast<int>(StatusCode::kCancelled) ? static_cast<StatusCode>(code)
                                                                                     : StatusCode::kInternal;
    const std::string msg = error_[0] != '\0' ? std::string(error_, strnlen(error_, sizeof(error_)))
                                              : std::string(callback) + " returned " + GldStatusName(st);
    return Status(sc, msg);
  }

 private:
  CNode() = default;
  static Status Convert(const CustomOpNode& node, const std::vector<CustomTensorType>& from,
                        std::vector<GldCustomTensor>* to) {
    for (const CustomTensorType& t : from) {
      if (t.shape.size() > GLD_CUSTOM_MAX_DIMS) {
        return UnimplementedError("a tensor of rank " + std::to_string(t.shape.size()) + " (the C API takes rank <= " +
                                  std::to_string(GLD_CUSTOM_MAX_DIMS) + ")");
      }
      GldCustomTensor c{};
      c.type = static_cast<GldElementType>(t.type);
      c.num_dims = static_cast<int32_t>(t.shape.size());
      for (size_t k = 0; k < t.shape.size(); ++k) c.dims[k] = t.shape[k];
      to->push_back(c);
    }
    (void)node;
    return OkStatus();
  }
  std::vector<GldCustomTensor> inputs_, outputs_;
  char error_[512] = {0};
  GldCustomNode node_{};
};

// The copy of a C op that its C++ callbacks hold.
struct COp {
  GldCustomOp c{};
  std::string name, gl_source;
};

// A C prepare's state, freed by the op's free_state.
struct CState {
  std::shared_ptr<const COp> op;
  void* state = nullptr;
  ~CState() {
    if (op->c.free_state != nullptr) op->c.free_state(op->c.user_data, state);
  }
};

void Adapt(const std::shared_ptr<const COp>& op, CustomOp* out) {
  out->shape = [op](CustomOpNode* node) -> Status {
    GLD_ASSIGN_OR_RETURN(std::unique_ptr<CNode> c, CNode::Make(*node));
    GLD_RETURN_IF_ERROR(c->Result(op->c.shape(op->c.user_data, c->node(), c->outputs().data()), "shape"));
    for (size_t i = 0; i < node->outputs.size(); ++i) {
      const GldCustomTensor& t = c->outputs()[i];
      if (t.num_dims < 0 || t.num_dims > GLD_CUSTOM_MAX_DIMS) {
        return InvalidArgumentError("shape set output " + std::to_string(i) + " to rank " + std::to_string(t.num_dims));
      }
      node->outputs[i].type = static_cast<ElementType>(t.type);
      node->outputs[i].shape.assign(t.dims, t.dims + t.num_dims);
    }
    return OkStatus();
  };
  if (op->c.prepare != nullptr) {
    out->prepare = [op](const CustomOpNode& node, std::shared_ptr<void>* state) -> Status {
      GLD_ASSIGN_OR_RETURN(std::unique_ptr<CNode> c, CNode::Make(node));
      auto s = std::make_shared<CState>();
      s->op = op;
      GLD_RETURN_IF_ERROR(c->Result(op->c.prepare(op->c.user_data, c->node(), &s->state), "prepare"));
      *state = std::shared_ptr<void>(s, s->state);
      return OkStatus();
    };
  }
  out->run = [op](const CustomCpuRun& run) -> Status {
    GLD_ASSIGN_OR_RETURN(std::unique_ptr<CNode> c, CNode::Make(*run.node));
    return c->Result(op->c.run(op->c.user_data, c->node(), run.state, run.inputs.data(), run.outputs.data()), "run");
  };
  out->gl.source = op->gl_source;
  if (op->c.gl_configure != nullptr) {
    out->gl.configure = [op](const CustomOpNode& node, CustomGlDispatch* d) -> Status {
      GLD_ASSIGN_OR_RETURN(std::unique_ptr<CNode> c, CNode::Make(node));
      GldCustomGlDispatch cd{};
      std::memcpy(cd.grid, d->grid.data(), sizeof(cd.grid));
      std::memcpy(cd.workgroup, d->workgroup.data(), sizeof(cd.workgroup));
      std::memcpy(cd.params, d->params.data(), sizeof(cd.params));
      GLD_RETURN_IF_ERROR(c->Result(op->c.gl_configure(op->c.user_data, c->node(), &cd), "gl_configure"));
      std::memcpy(d->grid.data(), cd.grid, sizeof(cd.grid));
      std::memcpy(d->workgroup.data(), cd.workgroup, sizeof(cd.workgroup));
      std::memcpy(d->params.data(), cd.params, sizeof(cd.params));
      return OkStatus();
    };
  }
}

thread_local std::string g_plugin_error;

void SetPluginError(const char* message) { g_plugin_error = message == nullptr ? "" : message; }

}  // namespace

Status AddCCustomOp(Options* options, const GldCustomOp& c) {
  auto op = std::make_shared<COp>();
  op->c = c;
  op->name = c.name == nullptr ? "" : c.name;
  op->gl_source = c.gl_source == nullptr ? "" : c.gl_source;
  op->c.name = op->name.c_str();
  op->c.gl_source = op->gl_source.c_str();
  CustomOp cpp;
  cpp.name = op->name;
  cpp.version = c.version;
  if (c.shape == nullptr || c.run == nullptr) {
    // RegisterCustomOp names what is missing.
    if (c.shape != nullptr) cpp.shape = [](CustomOpNode*) { return OkStatus(); };
    if (c.run != nullptr) cpp.run = [](const CustomCpuRun&) { return OkStatus(); };
    return RegisterCustomOp(options, std::move(cpp));
  }
  Adapt(op, &cpp);
  return RegisterCustomOp(options, std::move(cpp));
}

Status LoadCustomOpLibrary(const std::string& path, Options* options) {
  const std::string what = "custom op library '" + path + "'";
  if (options == nullptr) return InvalidArgumentError("LoadCustomOpLibrary: null options");
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return NotFoundError(what + ": no such file");
  if (!S_ISREG(st.st_mode)) return InvalidArgumentError(what + " is not a regular file");
  // A bare name would make dlopen search the library path instead.
  const std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    return InvalidArgumentError(what + " is not a shared library that can be loaded: " + (err ? err : "dlopen failed"));
  }
  auto fn = reinterpret_cast<GldRegisterCustomOpsFn>(dlsym(handle, GLD_REGISTER_CUSTOM_OPS_SYMBOL));
  if (fn == nullptr) {
    return NotFoundError(what + " defines no " GLD_REGISTER_CUSTOM_OPS_SYMBOL
                         " (extern \"C\" GldStatus gld_register_custom_ops(GldOptions*, const GldCustomOpApi*))");
  }
  GldOptions staged;
  staged.options = *options;
  static const GldCustomOpApi api = {GLD_CUSTOM_OP_ABI_VERSION, GldOptionsAddCustomOp, SetPluginError,
                                     GldCustomOptionsGetNumber};
  g_plugin_error.clear();
  const GldStatus result = fn(&staged, &api);
  if (result != GLD_OK) {
    const std::string msg = !g_plugin_error.empty() ? g_plugin_error : std::string(GldLastErrorMessage());
    return InvalidArgumentError(what + ": gld_register_custom_ops failed (" + GldStatusName(result) + ")" +
                                (msg.empty() ? std::string() : ": " + msg));
  }
  options->custom_ops = std::move(staged.options.custom_ops);
  return OkStatus();
}

}  // namespace gld
