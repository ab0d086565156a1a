#include "common/strict_json.h"

#include <fstream>
#include <set>
#include <sstream>
#include <vector>

namespace gld::testing {

StatusOr<nlohmann::json> ParseStrictJson(const std::string& text) {
  using nlohmann::json;
  // nlohmann keeps the last of a repeated key; the callback sees every key in
  // document order, one set of the keys seen so far per open object.
  std::vector<std::set<std::string>> open_objects;
  std::string repeated;
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      open_objects.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      open_objects.pop_back();
    } else if (event == json::parse_event_t::key && repeated.empty() &&
               !open_objects.back().insert(parsed.get<std::string>()).second) {
      repeated = parsed.get<std::string>();
    }
    return true;
  };
  json value;
  try {
    value = json::parse(text, check, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const json::exception& e) {
    return InvalidArgumentError(std::string("not JSON: ") + e.what());
  }
  if (!repeated.empty()) return InvalidArgumentError("not JSON: key '" + repeated + "' repeated in one object");
  return value;
}

StatusOr<nlohmann::json> ReadStrictJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot open '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  auto value = ParseStrictJson(text.str());
  if (!value.ok()) return InvalidArgumentError(path + ": " + value.status().message());
  return value;
}

}  // namespace gld::testing
