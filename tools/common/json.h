// The tools' JSON: the machine-readable reports they write (gld_benchmark
// --json) are nlohmann::ordered_json documents, so members are written in
// the order the tool sets them; the files they read (gld_inspect --profile)
// go through JsonFile, whose every error names the file and the field.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gldelegate/status.hpp"

namespace gld::tools {

using JsonReport = nlohmann::ordered_json;

// `report` as the text of a file: two-space indents and a trailing newline.
// Never throws: non-finite numbers become null (JSON has no NaN or infinity)
// and bytes that are not UTF-8 in a string (a model's tensor name) become
// U+FFFD.
std::string JsonReportText(const JsonReport& report);

// "a number", "a string", "an array", "an object", "a boolean", "null".
std::string JsonTypeName(const nlohmann::json& value);

// A JSON file a tool reads. Nothing here throws: a file that cannot be read
// or parsed, and a field of the wrong type, are InvalidArgument errors that
// read "<flag>: <file>: <field>: expected a number, got a string" (`field`
// as a path from the document: "ops[3].time_us").
class JsonFile {
 public:
  // Reads and parses `path`; `flag` (e.g. "--profile") starts each message.
  static StatusOr<JsonFile> Read(const std::string& path, const std::string& flag);

  const nlohmann::json& root() const { return root_; }

  // The error "<flag>: <file>: <field>: <what>".
  Status Error(const std::string& field, const std::string& what) const;

  // `value` (the document's `field`) is an object / an array, or an error.
  Status ExpectObject(const nlohmann::json& value, const std::string& field) const;
  Status ExpectArray(const nlohmann::json& value, const std::string& field) const;

  // Member `key` of the object `object` (the document's `field`): *out is
  // set when the member is there and has the type asked; a member of
  // another type is an error, and so is a missing one when `required`
  // (else *out keeps its value). Numbers must be finite.
  Status GetString(const nlohmann::json& object, const std::string& field, const std::string& key, bool required,
                   std::string* out) const;
  Status GetNumber(const nlohmann::json& object, const std::string& field, const std::string& key, bool required,
                   double* out) const;

 private:
  std::string path_, flag_;
  nlohmann::json root_;
};

// "ops" + 3 -> "ops[3]"; "ops[3]" + "time_us" -> "ops[3].time_us".
std::string JsonIndexPath(const std::string& field, size_t index);
std::string JsonMemberPath(const std::string& field, const std::string& key);

}  // namespace gld::tools
