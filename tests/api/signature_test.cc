// Multi-signature models: every signature runs through Interpreter::Create
// with its key (and the C API's GldInterpreterCreateForSignature), its
// inputs and outputs the signature's, the subgraphs' shared weights read
// once. The model: tests/data/decoders/litert_gen (litert-torch, prefill and
// decode over two subgraphs); tests/models/decoders_test.cc checks what
// they compute against LiteRT.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "api/model_impl.h"
#include "gldelegate/gldelegate.h"
#include "gldelegate/gldelegate.hpp"

namespace gld {
namespace {

std::string DecoderPath() { return std::string(GLD_TEST_DATA_DIR) + "/decoders/litert_gen/model.tflite"; }

TEST(Signatures, EachSignatureRunsItsOwnSubgraph) {
  auto model = Model::FromFile(DecoderPath());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  std::set<std::string> keys;
  for (const SignatureInfo& s : (*model)->signatures()) keys.insert(s.key);
  EXPECT_EQ(keys, (std::set<std::string>{"prefill", "decode"}));
  Options options;
  options.backend = Backend::kCpu;
  auto prefill = Interpreter::Create(**model, options, "prefill");
  auto decode = Interpreter::Create(**model, options, "decode");
  ASSERT_TRUE(prefill.ok()) << prefill.status().ToString();
  ASSERT_TRUE(decode.ok()) << decode.status().ToString();
  // The signature's input "tokens" (its name in the signature; the tensor
  // keeps the file's name, as in LiteRT's get_input_details).
  auto tokens_shape = [&](const Interpreter& i, const std::string& key) {
    for (const SignatureInfo& s : (*model)->signatures()) {
      if (s.key != key) continue;
      for (const SignatureTensor& st : s.inputs) {
        if (st.name != "tokens") continue;
        for (const TensorInfo& t : i.inputs()) {
          if (t.index == st.tensor_index) return t.shape;
        }
      }
    }
    return std::vector<int>{};
  };
  EXPECT_EQ(tokens_shape(**prefill, "prefill"), (std::vector<int>{1, 8}));
  EXPECT_EQ(tokens_shape(**decode, "decode"), (std::vector<int>{1, 1}));
  EXPECT_EQ((*decode)->outputs().size(), 5u);  // four caches and the logits
  const Status run = (*decode)->Invoke();
  EXPECT_TRUE(run.ok()) << run.ToString();
}

TEST(Signatures, TheirSubgraphsShareTheWeights) {
  auto model = Model::FromFile(DecoderPath());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const Model::Impl& impl = (*model)->impl();
  const Graph* decode = nullptr;
  for (size_t s = 0; s < impl.signatures.size(); ++s) {
    if (impl.signatures[s].key == "decode" && impl.signature_graphs[s]) decode = &impl.signature_graphs[s]->graph;
  }
  ASSERT_NE(decode, nullptr);
  std::set<const uint8_t*> prefill_constants;
  for (const Tensor& t : impl.graph.tensors) {
    if (t.is_constant && t.data.size() > 1024) prefill_constants.insert(t.data.data());
  }
  int shared = 0, large = 0;
  for (const Tensor& t : decode->tensors) {
    if (!t.is_constant || t.data.size() <= 1024) continue;
    ++large;
    shared += prefill_constants.count(t.data.data()) > 0 ? 1 : 0;
  }
  EXPECT_GT(large, 0);
  EXPECT_EQ(shared, large) << "every weight of decode should be prefill's bytes";
}

TEST(Signatures, AnUnknownKeyNamesTheKeys) {
  auto model = Model::FromFile(DecoderPath());
  ASSERT_TRUE(model.ok());
  auto interp = Interpreter::Create(**model, Options{}, "nope");
  ASSERT_FALSE(interp.ok());
  EXPECT_EQ(interp.status().code(), StatusCode::kNotFound);
  EXPECT_NE(interp.status().message().find("'prefill', 'decode'"), std::string::npos) << interp.status().message();
}

TEST(Signatures, TheCApiRunsEachSignature) {
  GldModel* model = nullptr;
  ASSERT_EQ(GldModelCreateFromFile(DecoderPath().c_str(), &model), GLD_OK) << GldLastErrorMessage();
  ASSERT_EQ(GldModelGetSignatureCount(model), 2);
  EXPECT_EQ(std::string(GldModelGetSignatureKey(model, 1)), "decode");
  EXPECT_EQ(GldModelGetSignatureKey(model, 2), nullptr);
  GldOptions* options = GldOptionsCreate();
  ASSERT_NE(options, nullptr);
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_CPU), GLD_OK);
  GldInterpreter* interp = nullptr;
  ASSERT_EQ(GldInterpreterCreateForSignature(model, options, "decode", &interp), GLD_OK) << GldLastErrorMessage();
  EXPECT_EQ(GldInterpreterGetOutputCount(interp), 5);
  EXPECT_EQ(GldInterpreterInvoke(interp), GLD_OK) << GldLastErrorMessage();
  GldInterpreter* missing = nullptr;
  EXPECT_EQ(GldInterpreterCreateForSignature(model, options, "nope", &missing), GLD_NOT_FOUND);
  EXPECT_EQ(missing, nullptr);
  GldInterpreterDelete(interp);
  GldOptionsDelete(options);
  GldModelDelete(model);
}

}  // namespace
}  // namespace gld
