#include "control_flow_models.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "gldelegate/tflite_generated.h"

namespace gld::testing {
namespace {

namespace tfl = gld::tflite;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

// The model's operator codes, one per op kind used, in this order.
enum Code : uint32_t { kCallOnce, kWhile, kAdd, kLess, kNumCodes };

Offset<flatbuffers::Vector<Offset<tfl::OperatorCode>>> OperatorCodes(FlatBufferBuilder& fbb) {
  const tfl::BuiltinOperator ops[kNumCodes] = {tfl::BuiltinOperator::CALL_ONCE, tfl::BuiltinOperator::WHILE,
                                               tfl::BuiltinOperator::ADD, tfl::BuiltinOperator::LESS};
  std::vector<Offset<tfl::OperatorCode>> codes;
  for (tfl::BuiltinOperator op : ops) {
    const int8_t deprecated = static_cast<int8_t>(std::min<int32_t>(static_cast<int32_t>(op), 127));
    codes.push_back(tfl::CreateOperatorCode(fbb, deprecated, 0, 1, op));
  }
  return fbb.CreateVector(codes);
}

Offset<tfl::Tensor> Tensor(FlatBufferBuilder& fbb, const char* name, tfl::TensorType type = tfl::TensorType::FLOAT32,
                           uint32_t buffer = 0) {
  const std::vector<int32_t> shape = {1};
  return tfl::CreateTensor(fbb, fbb.CreateVector(shape), type, buffer, fbb.CreateString(name));
}

Offset<tfl::Operator> Op(FlatBufferBuilder& fbb, Code code, std::vector<int32_t> in, std::vector<int32_t> out,
                         tfl::BuiltinOptions type, Offset<void> options) {
  return tfl::CreateOperator(fbb, code, fbb.CreateVector(in), fbb.CreateVector(out), type, options);
}

Offset<tfl::Operator> AddOp(FlatBufferBuilder& fbb, std::vector<int32_t> in, std::vector<int32_t> out) {
  return Op(fbb, kAdd, std::move(in), std::move(out), tfl::BuiltinOptions::AddOptions,
            tfl::CreateAddOptions(fbb).Union());
}

Offset<tfl::SubGraph> Subgraph(FlatBufferBuilder& fbb, const std::vector<Offset<tfl::Tensor>>& tensors,
                               std::vector<int32_t> in, std::vector<int32_t> out,
                               const std::vector<Offset<tfl::Operator>>& ops, const std::string& name) {
  return tfl::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(in), fbb.CreateVector(out),
                             fbb.CreateVector(ops), fbb.CreateString(name));
}

Offset<tfl::Buffer> FloatBuffer(FlatBufferBuilder& fbb, float value) {
  std::vector<uint8_t> bytes(sizeof(float));
  std::memcpy(bytes.data(), &value, sizeof(float));
  fbb.ForceVectorAlignment(bytes.size(), sizeof(uint8_t), 16);
  return tfl::CreateBuffer(fbb, fbb.CreateVector(bytes));
}

std::vector<uint8_t> Finish(FlatBufferBuilder& fbb, const std::vector<Offset<tfl::SubGraph>>& subgraphs,
                            const std::vector<Offset<tfl::Buffer>>& buffers) {
  auto codes = OperatorCodes(fbb);
  auto model = tfl::CreateModel(fbb, 3, codes, fbb.CreateVector(subgraphs), fbb.CreateString("gldelegate test"),
                                fbb.CreateVector(buffers));
  tfl::FinishModelBuffer(fbb, model);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace

std::vector<uint8_t> CallOnceChainModel(int depth) {
  FlatBufferBuilder fbb(1024);
  auto call = [&fbb](int callee) {
    return Op(fbb, kCallOnce, {}, {}, tfl::BuiltinOptions::CallOnceOptions,
              tfl::CreateCallOnceOptions(fbb, callee).Union());
  };
  std::vector<Offset<tfl::SubGraph>> subgraphs;
  subgraphs.push_back(Subgraph(fbb, {Tensor(fbb, "x"), Tensor(fbb, "y")}, {0}, {1}, {call(1), AddOp(fbb, {0, 0}, {1})},
                               "main"));
  for (int k = 1; k <= depth; ++k) {
    std::vector<Offset<tfl::Operator>> ops;
    if (k < depth) ops.push_back(call(k + 1));
    subgraphs.push_back(Subgraph(fbb, {}, {}, {}, ops, "init_" + std::to_string(k)));
  }
  return Finish(fbb, subgraphs, {tfl::CreateBuffer(fbb)});
}

std::vector<uint8_t> CountingWhileModel() {
  FlatBufferBuilder fbb(1024);
  std::vector<Offset<tfl::Buffer>> buffers = {tfl::CreateBuffer(fbb), FloatBuffer(fbb, 1.0f), FloatBuffer(fbb, 0.5f),
                                              FloatBuffer(fbb, 0.0f)};
  std::vector<Offset<tfl::SubGraph>> subgraphs;
  // main: 0 i, 1 n, 2 i after the loop, 3 n after it, 4 the constant 0.5, 5 the output.
  subgraphs.push_back(Subgraph(
      fbb,
      {Tensor(fbb, "i"), Tensor(fbb, "n"), Tensor(fbb, "i_end"), Tensor(fbb, "n_end"),
       Tensor(fbb, "half", tfl::TensorType::FLOAT32, 2), Tensor(fbb, "out")},
      {0, 1}, {5},
      {Op(fbb, kWhile, {0, 1}, {2, 3}, tfl::BuiltinOptions::WhileOptions, tfl::CreateWhileOptions(fbb, 1, 2).Union()),
       AddOp(fbb, {2, 4}, {5})},
      "main"));
  subgraphs.push_back(Subgraph(fbb, {Tensor(fbb, "i"), Tensor(fbb, "n"), Tensor(fbb, "go", tfl::TensorType::BOOL)},
                               {0, 1}, {2},
                               {Op(fbb, kLess, {0, 1}, {2}, tfl::BuiltinOptions::LessOptions,
                                   tfl::CreateLessOptions(fbb).Union())},
                               "cond"));
  // body: 0 i, 1 n, 2 the constant 1, 3 the constant 0, 4 i + 1, 5 n + 0.
  subgraphs.push_back(Subgraph(fbb,
                               {Tensor(fbb, "i"), Tensor(fbb, "n"), Tensor(fbb, "one", tfl::TensorType::FLOAT32, 1),
                                Tensor(fbb, "zero", tfl::TensorType::FLOAT32, 3), Tensor(fbb, "i_next"),
                                Tensor(fbb, "n_next")},
                               {0, 1}, {4, 5}, {AddOp(fbb, {0, 2}, {4}), AddOp(fbb, {1, 3}, {5})}, "body"));
  return Finish(fbb, subgraphs, buffers);
}

}  // namespace gld::testing
