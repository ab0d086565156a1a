#include "gl/codegen/elementwise_table.h"

#include <cstring>
#include <string>

namespace gld::gl {

namespace {

// Every row of the table on the GL side; glsl is nullptr where the op has no
// GL kernel.
constexpr ElementwiseGlRow kRows[] = {
#define GLD_EW_UNARY(Name, tflite_name, known_values, cpu_float, cpu_int, glsl) \
  {OpType::k##Name, "OP_" tflite_name, false, glsl},
#define GLD_EW_BINARY(Name, tflite_name, known_values, cpu_float, cpu_int, int_rhs, glsl) \
  {OpType::k##Name, "OP_" tflite_name, true, glsl},
#define GLD_EW_GL(Name, code, binary, glsl) {OpType::k##Name, "OP_" #code, binary, glsl},
#include "graph/elementwise_ops.inc"
#undef GLD_EW_GL
#undef GLD_EW_BINARY
#undef GLD_EW_UNARY
};

}  // namespace

const std::vector<ElementwiseGlRow>& ElementwiseGlRows() {
  static const std::vector<ElementwiseGlRow> rows = [] {
    std::vector<ElementwiseGlRow> v;
    for (const ElementwiseGlRow& r : kRows) {
      if (r.glsl != nullptr) v.push_back(r);
    }
    return v;
  }();
  return rows;
}

const ElementwiseGlRow* FindElementwiseGlRow(OpType op, bool gelu_approximate) {
  const char* variant = op == OpType::kGelu && gelu_approximate ? "OP_GELU_APPROX" : nullptr;
  for (const ElementwiseGlRow& r : ElementwiseGlRows()) {
    if (r.op != op || (variant != nullptr && std::strcmp(r.code, variant) != 0)) continue;
    return &r;
  }
  return nullptr;
}

std::string_view ElementwiseTableGlsl() {
  static const std::string text = [] {
    std::string s =
        "// elementwise_table.comp: generated from graph/elementwise_ops.inc (gl/codegen/elementwise_table.cc):\n"
        "// an OP_* code per row, and elementwise_op(), which applies one. Needs elementwise_ops.comp.\n";
    const std::vector<ElementwiseGlRow>& rows = ElementwiseGlRows();
    for (size_t i = 0; i < rows.size(); ++i) {
      s += "#define " + std::string(rows[i].code) + " " + std::to_string(i + 1) + "\n";
    }
    s += "\n// `op` is a constant at every call site, so the compiler keeps one case.\n"
         "// Unary ops ignore b.\n"
         "vec4 elementwise_op(int op, vec4 a, vec4 b, vec4 params) {\n"
         "  switch (op) {\n";
    for (const ElementwiseGlRow& r : rows) {
      s += "    case " + std::string(r.code) + ": return " + r.glsl + ";\n";
    }
    s += "    default: return a;\n  }\n}\n";
    return s;
  }();
  return text;
}

}  // namespace gld::gl
