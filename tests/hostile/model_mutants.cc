#include "hostile/model_mutants.h"

#include <flatbuffers/flatbuffers.h>

#include <climits>
#include <functional>
#include <random>

namespace gld::testing {
namespace {

using flatbuffers::Offset;
using flatbuffers::Table;
using flatbuffers::Vector;
using TableVector = Vector<Offset<Table>>;

// TFLite schema field numbers (tflite.fbs), as vtable offsets.
constexpr flatbuffers::voffset_t Field(int id) { return static_cast<flatbuffers::voffset_t>(4 + 2 * id); }
constexpr int kModelVersion = 0, kModelOperatorCodes = 1, kModelSubgraphs = 2, kModelBuffers = 4;
constexpr int kSubgraphTensors = 0, kSubgraphOperators = 3;
constexpr int kTensorShape = 0, kTensorBuffer = 2;
constexpr int kOperatorOpcode = 0, kOperatorInputs = 1, kOperatorOutputs = 2, kOperatorOptionsType = 3,
              kOperatorOptions = 4;
constexpr int kBufferData = 0;
// BuiltinOptions union members and their stride / filter fields.
constexpr uint8_t kConv2DOptions = 1, kDepthwiseConv2DOptions = 2, kPool2DOptions = 5;
// Control flow: IfOptions (then, else), WhileOptions (cond, body),
// CallOnceOptions (init); each field a subgraph index.
constexpr uint8_t kIfOptions = 92, kWhileOptions = 93, kCallOnceOptions = 103;
constexpr int kStrideW = 1, kStrideH = 2, kPoolFilterW = 3, kPoolFilterH = 4;

// The parts of a model one edit needs, read from a copy being edited.
struct View {
  Table* model = nullptr;
  Table* subgraph = nullptr;  // the main graph
  TableVector* tensors = nullptr;
  TableVector* operators = nullptr;
  TableVector* buffers = nullptr;
  TableVector* opcodes = nullptr;
};

View Open(std::vector<uint8_t>& bytes) {
  View v;
  v.model = flatbuffers::GetMutableRoot<Table>(bytes.data());
  auto* subgraphs = v.model->GetPointer<TableVector*>(Field(kModelSubgraphs));
  v.buffers = v.model->GetPointer<TableVector*>(Field(kModelBuffers));
  v.opcodes = v.model->GetPointer<TableVector*>(Field(kModelOperatorCodes));
  if (subgraphs == nullptr || subgraphs->size() == 0) return v;
  v.subgraph = subgraphs->GetMutableObject(0);
  v.tensors = v.subgraph->GetPointer<TableVector*>(Field(kSubgraphTensors));
  v.operators = v.subgraph->GetPointer<TableVector*>(Field(kSubgraphOperators));
  return v;
}

Vector<int32_t>* IntVector(Table* t, int id) { return t->GetPointer<Vector<int32_t>*>(Field(id)); }

// Makes mutants of one class: each edit gets a fresh copy of the model and
// returns what it changed, or "" when it found nothing to change.
class MutantSink {
 public:
  MutantSink(const std::vector<uint8_t>& model, std::vector<Mutant>& out) : model_(model), out_(out) {}
  void Add(const std::string& kind, const std::function<std::string(std::vector<uint8_t>&, View&)>& edit) {
    std::vector<uint8_t> bytes = model_;
    View view = Open(bytes);
    if (view.tensors == nullptr || view.operators == nullptr) return;
    const std::string label = edit(bytes, view);
    if (!label.empty()) out_.push_back({kind, label, std::move(bytes)});
  }

 private:
  const std::vector<uint8_t>& model_;
  std::vector<Mutant>& out_;
};

size_t Pick(std::mt19937_64& rng, size_t n) { return static_cast<size_t>(rng() % n); }

// Sets one element of a random non-empty int vector field (`id`) of a random
// table of `tables`; "" when none was found in a few tries.
std::string SetVectorElement(std::mt19937_64& rng, TableVector* tables, int id, int32_t value,
                             const std::string& what, const std::string& field) {
  for (int attempt = 0; attempt < 32 && tables->size() > 0; ++attempt) {
    const size_t t = Pick(rng, tables->size());
    Vector<int32_t>* v = IntVector(tables->GetMutableObject(static_cast<flatbuffers::uoffset_t>(t)), id);
    if (v == nullptr || v->size() == 0) continue;
    const size_t j = Pick(rng, v->size());
    v->Mutate(static_cast<flatbuffers::uoffset_t>(j), value);
    return what + " " + std::to_string(t) + " " + field + "[" + std::to_string(j) + "] = " + std::to_string(value);
  }
  return "";
}

// The options table of the first operator whose options are of `type`.
Table* OptionsOf(View& v, uint8_t type, size_t* op_index) {
  for (flatbuffers::uoffset_t i = 0; i < v.operators->size(); ++i) {
    Table* op = v.operators->GetMutableObject(i);
    if (op->GetField<uint8_t>(Field(kOperatorOptionsType), 0) != type) continue;
    *op_index = i;
    return op->GetPointer<Table*>(Field(kOperatorOptions));
  }
  return nullptr;
}

void AddBitFlips(const std::vector<uint8_t>& model, std::mt19937_64& rng, std::vector<Mutant>& out) {
  for (int m = 0; m < 12; ++m) {
    std::vector<uint8_t> bytes = model;
    const int flips = 1 << (m % 5);  // 1, 2, 4, 8, 16 bits
    std::string label = std::to_string(flips) + " bit(s) at";
    for (int f = 0; f < flips; ++f) {
      const size_t at = Pick(rng, bytes.size());
      bytes[at] ^= static_cast<uint8_t>(1u << Pick(rng, 8));
      label += " " + std::to_string(at);
    }
    out.push_back({"bit flips", label, std::move(bytes)});
  }
}

void AddTruncations(const std::vector<uint8_t>& model, std::vector<Mutant>& out) {
  for (size_t keep : {size_t{0}, size_t{7}, model.size() / 7, model.size() / 3, model.size() / 2,
                      model.size() - 16, model.size() - 1}) {
    out.push_back({"truncation", "first " + std::to_string(keep) + " bytes",
                   std::vector<uint8_t>(model.begin(), model.begin() + static_cast<long>(keep))});
  }
}

void AddShapeEdits(MutantSink& sink, std::mt19937_64& rng) {
  for (int32_t d : {INT_MAX, 1 << 30, 1 << 24}) {
    sink.Add("huge dimensions", [&](std::vector<uint8_t>&, View& v) {
      return SetVectorElement(rng, v.tensors, kTensorShape, d, "tensor", "shape");
    });
  }
  for (int32_t d : {-1, -7, INT_MIN, 0}) {
    sink.Add("negative or zero dimensions", [&](std::vector<uint8_t>&, View& v) {
      return SetVectorElement(rng, v.tensors, kTensorShape, d, "tensor", "shape");
    });
  }
}

void AddIndexEdits(MutantSink& sink, std::mt19937_64& rng) {
  for (int side : {kOperatorInputs, kOperatorOutputs}) {
    for (int64_t which : {0, 1, 2}) {
      sink.Add("tensor index out of range", [&](std::vector<uint8_t>&, View& v) {
        const int32_t n = static_cast<int32_t>(v.tensors->size());
        const int32_t value = which == 0 ? n : which == 1 ? -5 : INT_MAX;
        return SetVectorElement(rng, v.operators, side, value, "operator",
                                side == kOperatorInputs ? "inputs" : "outputs");
      });
    }
  }
  for (uint32_t which : {0u, 1u}) {
    sink.Add("buffer index out of range", [&](std::vector<uint8_t>&, View& v) -> std::string {
      const uint32_t value = which == 0 ? v.buffers->size() : 0xFFFFFFFFu;
      for (flatbuffers::uoffset_t t = 0; t < v.tensors->size(); ++t) {
        // Tensors without data omit the field (0), so only those with data change.
        if (v.tensors->GetMutableObject(t)->SetField<uint32_t>(Field(kTensorBuffer), value, 0))
          return "tensor " + std::to_string(t) + " buffer = " + std::to_string(value);
      }
      return "";
    });
  }
  sink.Add("opcode index out of range", [&](std::vector<uint8_t>&, View& v) -> std::string {
    const uint32_t value = v.opcodes->size() + 3;
    for (flatbuffers::uoffset_t i = 0; i < v.operators->size(); ++i) {
      if (v.operators->GetMutableObject(i)->SetField<uint32_t>(Field(kOperatorOpcode), value, 0))
        return "operator " + std::to_string(i) + " opcode_index = " + std::to_string(value);
    }
    return "";
  });
}

void AddParameterEdits(MutantSink& sink) {
  struct Edit {
    uint8_t options;
    int field;
    const char* name;
    int32_t value;
  };
  const Edit edits[] = {
      {kConv2DOptions, kStrideW, "CONV_2D stride_w", INT_MAX},
      {kConv2DOptions, kStrideH, "CONV_2D stride_h", 0},
      {kConv2DOptions, kStrideW, "CONV_2D stride_w", -1},
      {kDepthwiseConv2DOptions, kStrideH, "DEPTHWISE_CONV_2D stride_h", INT_MAX},
      {kDepthwiseConv2DOptions, kStrideW, "DEPTHWISE_CONV_2D stride_w", -3},
      {kPool2DOptions, kPoolFilterW, "pool filter_width", INT_MAX},
      {kPool2DOptions, kPoolFilterH, "pool filter_height", 0},
      {kPool2DOptions, kStrideH, "pool stride_h", -2},
  };
  for (const Edit& e : edits) {
    sink.Add("operator parameters", [&](std::vector<uint8_t>&, View& v) -> std::string {
      size_t op = 0;
      Table* options = OptionsOf(v, e.options, &op);
      if (options == nullptr || !options->SetField<int32_t>(Field(e.field), e.value, 0)) return "";
      return "operator " + std::to_string(op) + " " + e.name + " = " + std::to_string(e.value);
    });
  }
}

void AddHeaderEdits(const std::vector<uint8_t>& model, MutantSink& sink, std::vector<Mutant>& out) {
  for (const char* id : {"TFL2", "XXXX"}) {
    std::vector<uint8_t> bytes = model;
    if (bytes.size() >= 8) std::copy(id, id + 4, bytes.begin() + 4);
    out.push_back({"file header", std::string("file identifier ") + id, std::move(bytes)});
  }
  for (uint32_t version : {99u, 4u}) {
    sink.Add("file header", [&](std::vector<uint8_t>&, View& v) -> std::string {
      if (!v.model->SetField<uint32_t>(Field(kModelVersion), version, 0)) return "";
      return "schema version " + std::to_string(version);
    });
  }
}

// A vector whose length prefix claims more than the file holds.
void AddLengthEdits(MutantSink& sink, std::mt19937_64& rng) {
  auto set_length = [](const void* data, uint32_t value) {
    auto* p = const_cast<uint8_t*>(static_cast<const uint8_t*>(data)) - sizeof(flatbuffers::uoffset_t);
    flatbuffers::WriteScalar<flatbuffers::uoffset_t>(p, value);
  };
  for (uint32_t value : {0x7FFFFFFFu, 0x10000u}) {
    sink.Add("vector lengths", [&](std::vector<uint8_t>&, View& v) -> std::string {
      for (int attempt = 0; attempt < 32; ++attempt) {
        const auto t = static_cast<flatbuffers::uoffset_t>(Pick(rng, v.tensors->size()));
        Vector<int32_t>* shape = IntVector(v.tensors->GetMutableObject(t), kTensorShape);
        if (shape == nullptr || shape->size() == 0) continue;
        set_length(shape->Data(), value);
        return "tensor " + std::to_string(t) + " shape length = " + std::to_string(value);
      }
      return "";
    });
    sink.Add("vector lengths", [&](std::vector<uint8_t>&, View& v) -> std::string {
      for (flatbuffers::uoffset_t b = 0; b < v.buffers->size(); ++b) {
        auto* data = v.buffers->GetMutableObject(b)->GetPointer<Vector<uint8_t>*>(Field(kBufferData));
        if (data == nullptr || data->size() == 0) continue;
        set_length(data->Data(), data->size() + value);
        return "buffer " + std::to_string(b) + " data length + " + std::to_string(value);
      }
      return "";
    });
  }
}

// A control-flow node's subgraph index set out of range, to the node's own
// subgraph (a recursion), or to its other callee (a WHILE whose cond is its
// body: the arity no longer matches), in any subgraph.
void AddSubgraphCallEdits(MutantSink& sink) {
  enum Edit { kPastEnd, kNegative, kOwnSubgraph, kOtherCallee };
  for (Edit edit : {kPastEnd, kNegative, kOwnSubgraph, kOtherCallee}) {
    for (int field : {0, 1}) {
      sink.Add("subgraph calls", [&](std::vector<uint8_t>&, View& v) -> std::string {
        auto* subgraphs = v.model->GetPointer<TableVector*>(Field(kModelSubgraphs));
        const int32_t count = static_cast<int32_t>(subgraphs->size());
        for (flatbuffers::uoffset_t s = 0; s < subgraphs->size(); ++s) {
          auto* ops = subgraphs->GetMutableObject(s)->GetPointer<TableVector*>(Field(kSubgraphOperators));
          for (flatbuffers::uoffset_t i = 0; ops != nullptr && i < ops->size(); ++i) {
            Table* op = ops->GetMutableObject(i);
            const uint8_t type = op->GetField<uint8_t>(Field(kOperatorOptionsType), 0);
            if (type != kIfOptions && type != kWhileOptions && type != kCallOnceOptions) continue;
            if (type == kCallOnceOptions && (field == 1 || edit == kOtherCallee)) continue;
            Table* options = op->GetPointer<Table*>(Field(kOperatorOptions));
            if (options == nullptr) continue;
            const int32_t other = options->GetField<int32_t>(Field(1 - field), 0);
            const int32_t value = edit == kPastEnd     ? count
                                  : edit == kNegative  ? -1
                                  : edit == kOwnSubgraph ? static_cast<int32_t>(s)
                                                         : other;
            if (!options->SetField<int32_t>(Field(field), value, 0)) continue;
            return "subgraph " + std::to_string(s) + " operator " + std::to_string(i) + " callee field " +
                   std::to_string(field) + " = " + std::to_string(value);
          }
        }
        return "";
      });
    }
  }
}

}  // namespace

std::vector<Mutant> MakeMutants(const std::vector<uint8_t>& model, uint64_t seed) {
  std::vector<Mutant> out;
  std::mt19937_64 rng(seed);
  MutantSink sink(model, out);
  AddBitFlips(model, rng, out);
  AddTruncations(model, out);
  AddShapeEdits(sink, rng);
  AddIndexEdits(sink, rng);
  AddParameterEdits(sink);
  AddHeaderEdits(model, sink, out);
  AddLengthEdits(sink, rng);
  AddSubgraphCallEdits(sink);
  return out;
}

}  // namespace gld::testing
