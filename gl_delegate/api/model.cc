#include <algorithm>
#include <memory>
#include <utility>

#include <xxhash.h>

#include "api/model_impl.h"
#include "model/tflite_reader.h"
#include "transforms/pass_list.h"
#include "util/file_util.h"
#include "util/hex.h"

namespace gld {

TensorInfo MakeTensorInfo(const Tensor& tensor, int index) {
  TensorInfo info;
  info.index = index;
  info.name = tensor.name;
  info.type = ToElementType(tensor.type);
  info.shape.assign(tensor.shape.begin(), tensor.shape.end());
  const Shape& signature = SignatureOf(tensor);
  info.shape_signature.assign(signature.begin(), signature.end());
  info.quantization.scale = tensor.quant.scale;
  info.quantization.zero_point = tensor.quant.zero_point;
  info.quantization.quantized_dimension = tensor.quant.quantized_dimension;
  info.bytes = static_cast<size_t>(tensor.num_elements()) * DataTypeSize(tensor.type);
  return info;
}

namespace {

// XXH3-64 of the file's bytes outside `ranges` (which may overlap), in
// file order.
uint64_t HashOutsideRanges(const uint8_t* data, size_t size, std::vector<std::pair<uint64_t, uint64_t>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  XXH3_state_t* state = XXH3_createState();
  if (state == nullptr) return XXH3_64bits(data, size);  // the whole file: still a fingerprint
  XXH3_64bits_reset(state);
  uint64_t at = 0;
  for (const auto& [offset, bytes] : ranges) {
    if (offset > at) XXH3_64bits_update(state, data + at, static_cast<size_t>(offset - at));
    at = std::max(at, offset + bytes);
  }
  if (at < size) XXH3_64bits_update(state, data + at, size - static_cast<size_t>(at));
  const uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return h;
}

}  // namespace

const std::string& Model::Impl::Fingerprint() const {
  std::call_once(fingerprint_once_, [this] {
    uint64_t h = outside_constants_hash;
    for (const auto& [block, bytes] : constant_blocks) h = XXH3_64bits_withSeed(block.get(), bytes, h);
    fingerprint_ = Hex64(h);
  });
  return fingerprint_;
}

namespace {

// The graphs of the signatures over other subgraphs than the one loaded.
Status MakeSignatureGraphs(const std::vector<int>& subgraph_of, Model::Impl* impl) {
  const Graph& g = impl->graph;
  for (size_t s = 0; s < impl->signatures.size(); ++s) {
    const int sub = s < subgraph_of.size() ? subgraph_of[s] : g.subgraph_index;
    if (sub == g.subgraph_index || g.subgraphs == nullptr) {
      impl->signature_graphs.push_back(nullptr);
      continue;
    }
    auto entry = std::make_unique<Model::Impl::SignatureGraph>();
    entry->graph = (*g.subgraphs)[static_cast<size_t>(sub)];  // constants shared
    entry->graph.subgraphs = g.subgraphs;
    entry->graph.is_callee = false;
    for (const Graph& other : *g.subgraphs) {
      if (other.subgraph_index == sub) continue;
      const std::string name = other.subgraph_index == g.subgraph_index ? g.subgraph_name : other.subgraph_name;
      entry->graph.other_subgraphs.push_back(name.empty() ? "subgraph " + std::to_string(other.subgraph_index)
                                                          : name);
    }
    const Graph& sg = entry->graph;
    for (int t : sg.inputs) entry->inputs.push_back(MakeTensorInfo(sg.tensors[static_cast<size_t>(t)], t));
    for (int t : sg.outputs) entry->outputs.push_back(MakeTensorInfo(sg.tensors[static_cast<size_t>(t)], t));
    impl->signature_graphs.push_back(std::move(entry));
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::shared_ptr<const PreparedGraph>> PrepareOnce(const Graph& graph, std::once_flag& once,
                                                           std::shared_ptr<const PreparedGraph>& prepared,
                                                           Status& status, const PhaseTimes* load_phases,
                                                           bool cpu_only) {
  std::call_once(once, [&] {
    auto made = PrepareGraph(graph, cpu_only);
    if (made.ok()) {
      if (load_phases != nullptr) {
        PhaseTimes phases = *load_phases;
        phases.Append(made->phases);
        made->phases = std::move(phases);
      }
      prepared = std::make_shared<const PreparedGraph>(std::move(made).value());
    } else {
      status = made.status();
    }
  });
  if (!status.ok()) return status;
  return prepared;
}

StatusOr<size_t> Model::Impl::FindSignature(const std::string& key) const {
  std::string keys;
  for (size_t s = 0; s < signatures.size(); ++s) {
    if (signatures[s].key == key) return s;
    keys += (s ? ", '" : "'") + signatures[s].key + "'";
  }
  return NotFoundError("the model has no signature '" + key + "' (its signatures: " +
                       (keys.empty() ? std::string("none") : keys) + ")");
}

StatusOr<std::shared_ptr<const PreparedGraph>> PrepareFor(
    Backend backend, const Graph& graph,
    const std::function<StatusOr<std::shared_ptr<const PreparedGraph>>()>& full, Model::Impl::PreparedOnce& cpu,
    const PhaseTimes* load_phases) {
  if (backend != Backend::kCpu || !HasQuantizedActivations(graph)) return full();
  return PrepareOnce(graph, cpu.once, cpu.prepared, cpu.status, load_phases, /*cpu_only=*/true);
}

StatusOr<std::shared_ptr<const PreparedGraph>> Model::Impl::SignatureGraph::Prepared() const {
  return PrepareOnce(graph, once_, prepared_, status_);
}

StatusOr<std::shared_ptr<const PreparedGraph>> Model::Impl::SignatureGraph::PreparedFor(Backend backend) const {
  return PrepareFor(backend, graph, [this] { return Prepared(); }, cpu_, nullptr);
}

StatusOr<std::unique_ptr<Model::Impl>> BuildModelImpl(const uint8_t* data, size_t size) {
  auto impl = std::make_unique<Model::Impl>();
  TfliteLoadInfo load_info;
  GLD_ASSIGN_OR_RETURN(impl->graph, ReadTfliteModel(data, size, &load_info));
  impl->load_phases.Append(load_info.phases, "load: ");
  impl->description = std::move(load_info.description);
  {
    PhaseScope phase(&impl->load_phases, "load: hash the bytes outside the constants");
    impl->outside_constants_hash = HashOutsideRanges(data, size, std::move(load_info.constant_ranges));
  }
  const auto describe_start = PhaseTimes::Clock::now();
  impl->constant_blocks = std::move(load_info.constant_blocks);
  const Graph& g = impl->graph;
  impl->signatures = std::move(load_info.signatures);
  GLD_RETURN_IF_ERROR(MakeSignatureGraphs(load_info.signature_subgraphs, impl.get()));
  for (int t : g.inputs) impl->inputs.push_back(MakeTensorInfo(g.tensors[static_cast<size_t>(t)], t));
  for (int t : g.outputs) impl->outputs.push_back(MakeTensorInfo(g.tensors[static_cast<size_t>(t)], t));
  impl->load_phases.Add("load: describe the inputs and outputs", PhaseTimes::MicrosSince(describe_start));
  return impl;
}

const std::vector<NodeInfo>& Model::Impl::Nodes() const {
  std::call_once(nodes_once_, [this] {
    const Graph& g = graph;
    nodes_.reserve(g.nodes.size());
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      NodeInfo info;
      info.index = static_cast<int>(i);
      info.op = NodeOpName(n);
      for (int t : n.inputs) {
        if (t == kNoTensor) {
          info.input_names.emplace_back();
          info.input_shapes.emplace_back();
          continue;
        }
        const Tensor& tensor = g.tensors[static_cast<size_t>(t)];
        info.input_names.push_back(tensor.name);
        info.input_shapes.emplace_back(tensor.shape.begin(), tensor.shape.end());
      }
      for (int t : n.outputs) {
        const Tensor& tensor = g.tensors[static_cast<size_t>(t)];
        info.output_names.push_back(tensor.name);
        info.output_shapes.emplace_back(tensor.shape.begin(), tensor.shape.end());
      }
      nodes_.push_back(std::move(info));
    }
  });
  return nodes_;
}

StatusOr<std::shared_ptr<const PreparedGraph>> Model::Impl::Prepared() const {
  return PrepareOnce(graph, prepare_once_, prepared_, prepare_status_, &load_phases);
}

StatusOr<std::shared_ptr<const PreparedGraph>> Model::Impl::PreparedFor(Backend backend) const {
  return PrepareFor(backend, graph, [this] { return Prepared(); }, cpu_, &load_phases);
}

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

StatusOr<std::shared_ptr<const Model>> Model::FromBuffer(const void* data, size_t size) {
  if (data == nullptr && size != 0) return InvalidArgumentError("model buffer is null");
  GLD_ASSIGN_OR_RETURN(std::unique_ptr<Impl> impl, BuildModelImpl(static_cast<const uint8_t*>(data), size));
  return std::shared_ptr<const Model>(new Model(std::move(impl)));
}

StatusOr<std::shared_ptr<const Model>> Model::FromFile(const std::string& path) {
  // The OS would read the name only up to the NUL: another file.
  if (path.find('\0') != std::string::npos) {
    return InvalidArgumentError("model path '" + path.substr(0, path.find('\0')) +
                                "\\0...' contains a NUL byte; a file name cannot");
  }
  // Mapped, not read: BuildModelImpl copies what it keeps, and the bytes it
  // skips are never touched.
  const auto map_start = PhaseTimes::Clock::now();
  GLD_ASSIGN_OR_RETURN(MappedFile bytes, MapFileForRead(path, uint64_t{1} << 32, "model file"));
  const double map_us = PhaseTimes::MicrosSince(map_start);
  auto impl = BuildModelImpl(bytes.data(), bytes.size());
  if (!impl.ok()) return impl.status().WithContext("model '" + path + "'");
  (*impl)->load_phases.Add("load: map the file", map_us);
  return std::shared_ptr<const Model>(new Model(std::move(impl).value()));
}

const std::vector<TensorInfo>& Model::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Model::outputs() const { return impl_->outputs; }
const std::vector<NodeInfo>& Model::nodes() const { return impl_->Nodes(); }
const std::string& Model::description() const { return impl_->description; }
const std::vector<SignatureInfo>& Model::signatures() const { return impl_->signatures; }

std::vector<std::pair<std::string, int>> Model::OpHistogram() const {
  std::vector<std::pair<std::string, int>> out;
  for (const NodeInfo& n : impl_->Nodes()) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == n.op; });
    if (it == out.end()) {
      out.emplace_back(n.op, 1);
    } else {
      ++it->second;
    }
  }
  return out;
}

std::vector<std::string> Model::OtherSubgraphs() const { return impl_->graph.other_subgraphs; }

}  // namespace gld
