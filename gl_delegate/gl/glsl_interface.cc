#include "gl/glsl_interface.h"

#include <cctype>
#include <cstdlib>
#include <unordered_map>
#include <utility>

namespace gld::gl {

namespace {

bool IdStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool IdChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

struct Macro {
  bool function_like = false;
  std::vector<std::string> params;
  std::string body;
};
using Macros = std::unordered_map<std::string, Macro>;

// Line continuations joined, comments blanked, split into lines.
std::vector<std::string> LogicalLines(const std::string& glsl) {
  std::string text;
  text.reserve(glsl.size());
  for (size_t i = 0; i < glsl.size(); ++i) {
    if (glsl[i] == '\\' && i + 1 < glsl.size() && glsl[i + 1] == '\n') {
      ++i;
      continue;
    }
    if (glsl[i] == '\\' && i + 2 < glsl.size() && glsl[i + 1] == '\r' && glsl[i + 2] == '\n') {
      i += 2;
      continue;
    }
    text += glsl[i];
  }
  std::vector<std::string> lines(1);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
      if (i == text.size()) break;
    }
    if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      for (size_t k = i; k < (end == std::string::npos ? text.size() : end); ++k) {
        if (text[k] == '\n') lines.emplace_back();
      }
      lines.back() += ' ';
      if (end == std::string::npos) break;
      i = end + 1;
      continue;
    }
    if (text[i] == '\n') {
      lines.emplace_back();
    } else {
      lines.back() += text[i];
    }
  }
  return lines;
}

// At s[*i]: a name, returned with *i past it; or a number or one other
// character, appended to `out` (a number's letters are no names), "".
std::string NextName(const std::string& s, size_t* i, std::string* out) {
  size_t j = *i;
  if (IdStart(s[j])) {
    while (j < s.size() && IdChar(s[j])) ++j;
    std::string name = s.substr(*i, j - *i);
    *i = j;
    return name;
  }
  if (std::isdigit(static_cast<unsigned char>(s[j])) != 0) {
    while (j < s.size() && (IdChar(s[j]) || s[j] == '.')) ++j;
  } else {
    ++j;
  }
  out->append(s, *i, j - *i);
  *i = j;
  return std::string();
}

// Expands macros in text. `active` holds the macros being expanded (not
// expanded again inside themselves, as the C preprocessor does).
class Expander {
 public:
  explicit Expander(const Macros& macros) : macros_(macros) {}

  std::string Expand(const std::string& s) {
    std::vector<std::string> active;
    return Expand(s, &active, 0);
  }

 private:
  std::string Expand(const std::string& s, std::vector<std::string>* active, int depth) {
    if (depth > 64) return s;
    std::string out;
    size_t i = 0;
    while (i < s.size()) {
      const std::string name = NextName(s, &i, &out);
      if (name.empty()) continue;
      auto it = macros_.find(name);
      bool expanding = false;
      for (const std::string& a : *active) expanding = expanding || a == name;
      if (it == macros_.end() || expanding) {
        out += name;
        continue;
      }
      std::string body = it->second.body;
      if (it->second.function_like) {
        std::vector<std::string> args;
        if (!ReadArguments(s, &i, &args)) {
          out += name;  // the name without a call: not an invocation
          continue;
        }
        for (std::string& a : args) a = Expand(a, active, depth + 1);
        body = Substitute(it->second, args);
      }
      active->push_back(name);
      out += Expand(body, active, depth + 1);
      active->pop_back();
    }
    return out;
  }

  // Reads "( a, b(c, d), e )" at s[*i] (spaces first), top-level commas
  // splitting. False (and *i unchanged) when no '(' follows.
  static bool ReadArguments(const std::string& s, size_t* i, std::vector<std::string>* args) {
    size_t k = *i;
    while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k])) != 0) ++k;
    if (k >= s.size() || s[k] != '(') return false;
    int depth = 0;
    std::string arg;
    for (++k; k < s.size(); ++k) {
      const char c = s[k];
      if (c == ')' && depth == 0) {
        args->push_back(arg);
        *i = k + 1;
        if (args->size() == 1 && args->front().find_first_not_of(" \t") == std::string::npos) args->clear();
        return true;
      }
      if (c == ',' && depth == 0) {
        args->push_back(arg);
        arg.clear();
        continue;
      }
      if (c == '(') ++depth;
      if (c == ')') --depth;
      arg += c;
    }
    return false;  // unbalanced: leave the text as it is
  }

  static std::string Substitute(const Macro& m, const std::vector<std::string>& args) {
    std::string out;
    const std::string& b = m.body;
    for (size_t i = 0; i < b.size();) {
      const std::string name = NextName(b, &i, &out);
      if (name.empty()) continue;
      size_t p = 0;
      while (p < m.params.size() && m.params[p] != name) ++p;
      out += p < m.params.size() ? (p < args.size() ? args[p] : std::string()) : name;
    }
    return out;
  }

  const Macros& macros_;
};

// Integer expressions of #if / #elif, after `defined` and macro expansion.
class ConditionParser {
 public:
  explicit ConditionParser(std::string text) : s_(std::move(text)) {}

  bool Evaluate(int64_t* value) {
    *value = Ternary();
    Skip();
    return ok_ && pos_ == s_.size();
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])) != 0) ++pos_;
  }
  bool Take(const char* op) {
    Skip();
    const size_t n = std::char_traits<char>::length(op);
    if (s_.compare(pos_, n, op) != 0) return false;
    // "<" is not "<<" or "<="; "&" is not "&&"; "|" is not "||".
    if (n == 1 && pos_ + 1 < s_.size()) {
      const char next = s_[pos_ + 1];
      if ((op[0] == '<' || op[0] == '>') && (next == op[0] || next == '=')) return false;
      if ((op[0] == '&' || op[0] == '|') && next == op[0]) return false;
      if ((op[0] == '!' || op[0] == '=') && next == '=') return false;
    }
    pos_ += n;
    return true;
  }
  int64_t Ternary() {
    const int64_t c = Binary(0);
    if (!Take("?")) return c;
    const int64_t a = Ternary();
    if (!Take(":")) ok_ = false;
    const int64_t b = Ternary();
    return c != 0 ? a : b;
  }
  // Precedence climbing over the binary operators, loosest first.
  int64_t Binary(int level) {
    static const std::vector<std::vector<const char*>> kLevels = {
        {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"},
        {"*", "/", "%"}};
    if (level == static_cast<int>(kLevels.size())) return Unary();
    int64_t v = Binary(level + 1);
    for (bool more = true; more;) {
      more = false;
      for (const char* op : kLevels[static_cast<size_t>(level)]) {
        if (!Take(op)) continue;
        v = Apply(op, v, Binary(level + 1));
        more = true;
        break;
      }
    }
    return v;
  }
  int64_t Apply(const std::string& op, int64_t a, int64_t b) {
    if (op == "||") return (a != 0 || b != 0) ? 1 : 0;
    if (op == "&&") return (a != 0 && b != 0) ? 1 : 0;
    if (op == "|") return a | b;
    if (op == "^") return a ^ b;
    if (op == "&") return a & b;
    if (op == "==") return a == b ? 1 : 0;
    if (op == "!=") return a != b ? 1 : 0;
    if (op == "<=") return a <= b ? 1 : 0;
    if (op == ">=") return a >= b ? 1 : 0;
    if (op == "<") return a < b ? 1 : 0;
    if (op == ">") return a > b ? 1 : 0;
    if (op == "<<") return (b < 0 || b > 62) ? 0 : a << b;
    if (op == ">>") return (b < 0 || b > 62) ? 0 : a >> b;
    if (op == "+") return a + b;
    if (op == "-") return a - b;
    if (op == "*") return a * b;
    if (b == 0) {
      ok_ = false;
      return 0;
    }
    return op == "/" ? a / b : a % b;
  }
  int64_t Unary() {
    if (Take("!")) return Unary() == 0 ? 1 : 0;
    if (Take("-")) return -Unary();
    if (Take("+")) return Unary();
    if (Take("~")) return ~Unary();
    if (Take("(")) {
      const int64_t v = Ternary();
      if (!Take(")")) ok_ = false;
      return v;
    }
    Skip();
    if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])) != 0) {
      char* end = nullptr;
      const int64_t v = std::strtoll(s_.c_str() + pos_, &end, 0);
      pos_ = static_cast<size_t>(end - s_.c_str());
      while (pos_ < s_.size() && (s_[pos_] == 'u' || s_[pos_] == 'U')) ++pos_;
      return v;
    }
    ok_ = false;  // a name left after expansion (GLSL ES makes it an error) or junk
    pos_ = s_.size();
    return 0;
  }

  std::string s_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// `defined NAME` and `defined(NAME)` replaced by 1 or 0.
std::string ReplaceDefined(const std::string& expr, const Macros& macros) {
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    if (expr.compare(i, 7, "defined") == 0 && (i == 0 || !IdChar(expr[i - 1])) &&
        (i + 7 == expr.size() || !IdChar(expr[i + 7]))) {
      size_t k = i + 7;
      while (k < expr.size() && (expr[k] == ' ' || expr[k] == '\t' || expr[k] == '(')) ++k;
      size_t j = k;
      while (j < expr.size() && IdChar(expr[j])) ++j;
      out += macros.count(expr.substr(k, j - k)) ? " 1 " : " 0 ";
      while (j < expr.size() && (expr[j] == ' ' || expr[j] == '\t')) ++j;
      if (j < expr.size() && expr[j] == ')') ++j;
      i = j;
      continue;
    }
    out += expr[i++];
  }
  return out;
}

void Define(const std::string& rest, Macros* macros) {
  size_t i = 0;
  while (i < rest.size() && IdChar(rest[i])) ++i;
  const std::string name = rest.substr(0, i);
  Macro m;
  if (i < rest.size() && rest[i] == '(') {
    m.function_like = true;
    const size_t close = rest.find(')', i);
    std::string params = rest.substr(i + 1, close == std::string::npos ? std::string::npos : close - i - 1);
    std::string p;
    for (char c : params + ",") {
      if (c == ',') {
        const size_t b = p.find_first_not_of(" \t"), e = p.find_last_not_of(" \t");
        if (b != std::string::npos) m.params.push_back(p.substr(b, e - b + 1));
        p.clear();
      } else {
        p += c;
      }
    }
    i = close == std::string::npos ? rest.size() : close + 1;
  }
  const size_t b = rest.find_first_not_of(" \t", i);
  m.body = b == std::string::npos ? std::string() : rest.substr(b);
  if (!name.empty()) (*macros)[name] = std::move(m);
}

// One level of #if nesting.
struct Condition {
  bool parent_active = true;
  bool active = true;
  bool taken = true;  // a branch of this #if was active already
};

// Brace depth after `text`, from `depth`; with `braces`, those characters
// are appended to it.
int Braces(const std::string& text, int depth, std::string* braces) {
  for (char c : text) {
    if (c != '{' && c != '}') continue;
    depth += c == '{' ? 1 : -1;
    if (braces != nullptr) *braces += c;
  }
  return depth;
}

}  // namespace

std::string PreprocessGlsl(const std::string& glsl, std::vector<std::string>* problems, bool declarations_only) {
  Macros macros;
  int depth = 0;  // braces open before the line (declarations_only)
  std::vector<Condition> stack;
  std::string out;
  auto active = [&] { return stack.empty() || stack.back().active; };
  auto evaluate = [&](const std::string& expr) {
    int64_t v = 0;
    ConditionParser parser(Expander(macros).Expand(ReplaceDefined(expr, macros)));
    if (!parser.Evaluate(&v)) {
      problems->push_back("cannot evaluate #if " + expr);
      return true;  // keep the text: its declarations still count
    }
    return v != 0;
  };
  for (const std::string& line : LogicalLines(glsl)) {
    const size_t hash = line.find_first_not_of(" \t");
    if (hash == std::string::npos) continue;
    if (line[hash] != '#') {
      if (!active()) continue;
      if (declarations_only && depth > 0) {
        depth = Braces(line, depth, &out);
        out += '\n';
        continue;
      }
      const std::string expanded = Expander(macros).Expand(line);
      depth = Braces(expanded, depth, nullptr);
      out += expanded + "\n";
      continue;
    }
    size_t k = line.find_first_not_of(" \t", hash + 1);
    size_t e = k;
    while (e < line.size() && IdChar(line[e])) ++e;
    const std::string directive = k == std::string::npos ? std::string() : line.substr(k, e - k);
    const size_t r = e < line.size() ? line.find_first_not_of(" \t", e) : std::string::npos;
    const std::string rest = r == std::string::npos ? std::string() : line.substr(r);
    if (directive == "if" || directive == "ifdef" || directive == "ifndef") {
      Condition c;
      c.parent_active = active();
      const std::string name = rest.substr(0, rest.find_first_of(" \t"));
      const bool v = directive == "if" ? (c.parent_active && evaluate(rest))
                                       : (macros.count(name) > 0) == (directive == "ifdef");
      c.active = c.taken = c.parent_active && v;
      stack.push_back(c);
    } else if (directive == "elif" && !stack.empty()) {
      Condition& c = stack.back();
      c.active = c.parent_active && !c.taken && evaluate(rest);
      c.taken = c.taken || c.active;
    } else if (directive == "else" && !stack.empty()) {
      Condition& c = stack.back();
      c.active = c.parent_active && !c.taken;
      c.taken = true;
    } else if (directive == "endif" && !stack.empty()) {
      stack.pop_back();
    } else if (directive == "define" && active()) {
      Define(rest, &macros);
    } else if (directive == "undef" && active()) {
      macros.erase(rest.substr(0, rest.find_first_of(" \t")));
    }
  }
  return out;
}

namespace {

// Tokens of preprocessed GLSL: names, numbers, and single punctuation
// characters.
std::vector<std::string> Tokens(const std::string& text) {
  std::vector<std::string> tokens;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
    } else if (IdChar(c)) {
      size_t j = i;
      while (j < text.size() && (IdChar(text[j]) || text[j] == '.')) ++j;
      tokens.push_back(text.substr(i, j - i));
      i = j;
    } else {
      tokens.emplace_back(1, c);
      ++i;
    }
  }
  return tokens;
}

bool IsNumber(const std::string& t) { return !t.empty() && std::isdigit(static_cast<unsigned char>(t[0])) != 0; }

// The qualifiers before a `buffer` / `uniform` keyword: tokens[begin, end).
struct Qualifiers {
  bool readonly = false, writeonly = false;
  bool has_binding = false;
  std::string binding;  // the token after `binding =`
};

Qualifiers ReadQualifiers(const std::vector<std::string>& tokens, size_t begin, size_t end) {
  Qualifiers q;
  for (size_t i = begin; i < end; ++i) {
    if (tokens[i] == "readonly") q.readonly = true;
    if (tokens[i] == "writeonly") q.writeonly = true;
    if (tokens[i] == "binding" && i + 2 < end && tokens[i + 1] == "=") {
      q.has_binding = true;
      q.binding = tokens[i + 2];
    }
  }
  return q;
}

}  // namespace

ShaderInterface ReadShaderInterface(const std::string& glsl) {
  ShaderInterface result;
  const std::vector<std::string> tokens = Tokens(PreprocessGlsl(glsl, &result.problems, true));
  size_t statement = 0;  // first token of the current declaration
  int depth = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (t == ";" || t == "{" || t == "}") {
      depth += t == "{" ? 1 : t == "}" ? -1 : 0;
      statement = i + 1;
      continue;
    }
    if (depth != 0 || (t != "buffer" && t != "uniform")) continue;
    size_t type = i + 1;
    while (type < tokens.size() && (tokens[type] == "highp" || tokens[type] == "mediump" || tokens[type] == "lowp")) {
      ++type;
    }
    const std::string type_name = type < tokens.size() ? tokens[type] : std::string();
    const bool image = t == "uniform" && type_name.find("image") != std::string::npos;
    const bool sampler = t == "uniform" && type_name.find("sampler") != std::string::npos;
    if (t == "uniform" && !image) {
      result.samplers += sampler ? 1 : 0;
      continue;
    }
    const Qualifiers q = ReadQualifiers(tokens, statement, i);
    uint32_t point = 0;  // GLSL's default binding
    if (q.has_binding) {
      if (!IsNumber(q.binding)) {
        result.problems.push_back(std::string(image ? "image '" : "buffer '") + type_name +
                                  "': binding = " + q.binding);
        continue;
      }
      point = static_cast<uint32_t>(std::strtoul(q.binding.c_str(), nullptr, 0));
    }
    ShaderInterface::Use& use = (image ? result.images : result.storage_blocks)[point];
    use.read = use.read || !q.writeonly;
    use.write = use.write || !q.readonly;
  }
  return result;
}

}  // namespace gld::gl
