// JSON in the tests is nlohmann::json, read strictly: one RFC 8259 document
// and nothing after it, no comments, no key twice in one object. Errors come
// back as a Status (never an exception), so a malformed report or manifest
// fails the test that reads it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gldelegate/status.hpp"

namespace gld::testing {

StatusOr<nlohmann::json> ParseStrictJson(const std::string& text);

// ParseStrictJson of the file at `path`; errors name the path.
StatusOr<nlohmann::json> ReadStrictJsonFile(const std::string& path);

}  // namespace gld::testing
