// libFuzzer entry: hostile bytes through the .npy reader (ParseNpy, which
// gld_run and gld_benchmark use on --input files). Beyond "no crash", it
// checks what callers rely on: a known element type, non-negative dimensions,
// data bytes matching the shape, and that writing the array back and reading
// it again gives the same array. A broken promise traps.
#include <cstddef>
#include <cstdint>

#include "gldelegate/npy.hpp"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

// Undefined behaviour is a finding, not a warning to scroll past.
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = gld::ParseNpy(data, size, "fuzz.npy");
  if (!parsed.ok()) {
    Check(!parsed.status().message().empty());
    return 0;
  }
  const gld::NpyArray& a = *parsed;
  Check(a.type != gld::ElementType::kUnknown);
  for (int d : a.shape) Check(d >= 0);
  Check(a.data.size() == a.num_elements() * gld::ElementTypeSize(a.type));
  Check(a.data.size() <= size);
  auto encoded = gld::EncodeNpy(a);
  Check(encoded.ok());
  auto again = gld::ParseNpy(encoded->data(), encoded->size(), "again.npy");
  Check(again.ok());
  Check(again->type == a.type && again->shape == a.shape && again->data == a.data);
  return 0;
}
