// 64-bit values as hex text: the program cache's file names and keys, the
// driver cache's blob names, the tuning file's keys, model fingerprints.
#pragma once

#include <cstdint>
#include <string>

namespace gld {

// v as 16 lowercase hex digits, zero-padded ("00000000000000ff").
std::string Hex64(uint64_t v);

}  // namespace gld
