// gld::CheckOption on gpu_deny_ops: every item names an op of the IR
// (builtin names, CUSTOM, the library's own ops); an empty item or an
// unknown name is InvalidArgument naming it, with the op it resembles.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gldelegate/options.hpp"

namespace gld {
namespace {

Status CheckDeny(std::vector<std::string> ops, const std::string& shown_as = "") {
  Options o;
  o.gpu_deny_ops = std::move(ops);
  return CheckOption(o, "gpu_deny_ops", shown_as);
}

TEST(DenyOpsCheck, KnownNamesPass) {
  EXPECT_TRUE(CheckDeny({}).ok());
  EXPECT_TRUE(CheckDeny({"ADD", "CONV_2D", "CUSTOM", "GLD_LAYER_NORM"}).ok());
  EXPECT_TRUE(CheckOptions(Options{}).ok());
}

TEST(DenyOpsCheck, EmptyItemsAndTyposAreErrorsNamingThem) {
  Status s = CheckDeny({"", "", "", ""});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("gpu_deny_ops item 1 of 4 is empty"), std::string::npos) << s.message();
  s = CheckDeny({"ADD", "CONV2D"}, "--gpu_deny_ops");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--gpu_deny_ops: unknown op 'CONV2D' (did you mean CONV_2D?)"), std::string::npos)
      << s.message();
  s = CheckDeny({"depthwise_conv_2d"});
  EXPECT_NE(s.message().find("did you mean DEPTHWISE_CONV_2D?"), std::string::npos) << s.message();
  s = CheckDeny({"MyCustomOp"});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unknown op 'MyCustomOp'; op names are the model's, e.g. CONV_2D, and CUSTOM"),
            std::string::npos)
      << s.message();
  Options o;
  o.gpu_deny_ops = {"RELU", " RELU"};
  EXPECT_EQ(CheckOptions(o).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gld
