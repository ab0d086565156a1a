// Writes a seed corpus for gld_fuzz_npy: one small array of each element
// type and rank (as EncodeNpy writes them), plus headers in the forms numpy
// and other writers use that EncodeNpy does not: format versions 2 and 3,
// double quotes, Python 2 long dimensions, Fortran order, big-endian and
// structured dtypes.
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "gldelegate/npy.hpp"

namespace {

int failures = 0;

void WriteBytes(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = dir + "/" + name + ".npy";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    ++failures;
  }
  if (f != nullptr) std::fclose(f);
}

// A file with `header` as its dict, in format `major`, and `data_bytes` zero
// bytes of data.
std::vector<uint8_t> Handmade(int major, const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const std::string text = header + "\n";
  const int len_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < len_bytes; ++i) out.push_back(static_cast<uint8_t>(text.size() >> (8 * i)));
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), data_bytes, 0);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  mkdir(dir.c_str(), 0755);
  const gld::ElementType types[] = {gld::ElementType::kFloat32, gld::ElementType::kFloat16, gld::ElementType::kFloat64,
                                    gld::ElementType::kInt8,    gld::ElementType::kInt16,   gld::ElementType::kInt32,
                                    gld::ElementType::kInt64,   gld::ElementType::kUInt8,   gld::ElementType::kBool};
  const std::vector<std::vector<int>> shapes = {{}, {3}, {2, 3}, {1, 2, 2, 3}, {0, 4}};
  for (gld::ElementType type : types) {
    for (size_t s = 0; s < shapes.size(); ++s) {
      gld::NpyArray a;
      a.type = type;
      a.shape = shapes[s];
      a.data.assign(a.num_elements() * gld::ElementTypeSize(type), 1);
      auto bytes = gld::EncodeNpy(a);
      if (!bytes.ok()) {
        std::fprintf(stderr, "%s\n", bytes.status().ToString().c_str());
        ++failures;
        continue;
      }
      WriteBytes(dir, std::string(gld::ElementTypeName(type)) + "_rank" + std::to_string(shapes[s].size()) + "_" +
                          std::to_string(s),
                 *bytes);
    }
  }
  WriteBytes(dir, "v2", Handmade(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8));
  WriteBytes(dir, "v3", Handmade(3, "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 2), }", 8));
  WriteBytes(dir, "double_quotes", Handmade(1, "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (1,)}", 8));
  WriteBytes(dir, "long_dims", Handmade(1, "{'descr': '<i2', 'fortran_order': False, 'shape': (2L, 1L), }", 4));
  WriteBytes(dir, "fortran", Handmade(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16));
  WriteBytes(dir, "big_endian", Handmade(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", 4));
  WriteBytes(dir, "structured", Handmade(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", 4));
  return failures == 0 ? 0 : 1;
}
