// Malformed models made at test time from a valid .tflite file: bit flips,
// truncation, huge, negative and zero dimensions, indices out of range,
// operator parameters LiteRT rejects, a wrong file identifier or schema
// version, vector lengths that run past the file, and (in models of several
// subgraphs) control-flow nodes calling a subgraph out of range, their own
// (recursion) or one whose arity does not match. Each mutant is the
// original bytes with a few bytes changed in place, so that everything else
// stays valid and the loader's checks are reached one at a time.
//
// The edits go through flatbuffers' generic table access, with the field
// numbers of TFLite's schema (gl_delegate/model/schema/tflite.fbs), so they
// do not depend on our generated schema code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gld::testing {

struct Mutant {
  std::string kind;    // the class, e.g. "bit flips"
  std::string label;   // what was changed, e.g. "tensor 12 shape[1] = 2147483647"
  std::vector<uint8_t> bytes;
};

// Every mutant of `model` (a valid .tflite file), deterministic for `seed`.
std::vector<Mutant> MakeMutants(const std::vector<uint8_t>& model, uint64_t seed);

}  // namespace gld::testing
