#include "common/tensor_io.h"

#include <filesystem>
#include <new>

#include "common/flags.h"
#include "common/tensors.h"

namespace gld::tools {

StatusOr<int> FindInputIndex(const std::vector<TensorInfo>& inputs, const std::string& name,
                             const std::string& flag, const std::vector<SignatureInfo>& signatures) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].name == name) return static_cast<int>(i);
  }
  for (const SignatureInfo& sig : signatures) {
    for (const SignatureTensor& t : sig.inputs) {
      if (t.name != name) continue;
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i].index == t.tensor_index) return static_cast<int>(i);
      }
    }
  }
  bool digits = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
  if (digits && name.size() < 6 && std::stoul(name) < inputs.size()) return static_cast<int>(std::stoul(name));
  std::string names;
  for (const auto& in : inputs) names += (names.empty() ? "'" : ", '") + in.name + "'";
  return NotFoundError(flag + ": the model has no input named '" + name + "' (inputs: " + names + ")");
}

StatusOr<std::vector<uint8_t>> LoadInputNpy(const TensorInfo& info, const std::string& file) {
  auto read = ReadNpy(file);
  if (!read.ok()) return read.status().WithContext("input " + DescribeTensor(info));
  NpyArray a = std::move(read).value();
  if (a.type != info.type) {
    return InvalidArgumentError("'" + file + "' holds " + ElementTypeName(a.type) + ", input " +
                                DescribeTensor(info) + " needs " + ElementTypeName(info.type));
  }
  if (a.shape != info.shape) {
    return InvalidArgumentError("'" + file + "' has shape " + FormatShape(a.shape) + ", input " +
                                DescribeTensor(info) + " needs " + FormatShape(info.shape));
  }
  return std::move(a.data);
}

StatusOr<std::vector<std::pair<std::string, std::string>>> ParseInputLayerValueFiles(const std::string& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& item : SplitList(spec)) {
    std::string name;
    size_t i = 0;
    bool split = false;
    while (i < item.size()) {
      if (item[i] == ':') {
        if (i + 1 < item.size() && item[i + 1] == ':') {
          name += ':';
          i += 2;
          continue;
        }
        split = true;
        break;
      }
      name += item[i++];
    }
    const std::string file = split ? item.substr(i + 1) : std::string();
    if (!split || name.empty() || file.empty()) {
      return InvalidArgumentError("--input_layer_value_files expects NAME:FILE.npy items separated by ',' "
                                  "(write '::' for a ':' in a name), got '" + item + "'");
    }
    out.emplace_back(name, file);
  }
  return out;
}

StatusOr<NpyArray> ReadOutput(const Interpreter& interp, int index) {
  const TensorInfo& info = interp.outputs()[static_cast<size_t>(index)];
  NpyArray a;
  a.type = info.type;
  a.shape = info.shape;
  try {
    a.data.resize(info.bytes);
  } catch (const std::bad_alloc&) {
    return InternalError("cannot allocate " + std::to_string(info.bytes) + " bytes for output tensor '" + info.name +
                         "'");
  }
  GLD_RETURN_IF_ERROR(interp.GetOutput(index, a.data.data(), a.data.size()));
  return a;
}

std::string OutputNpyPath(const std::string& dir, int index, const TensorInfo& info) {
  return dir + "/" + std::to_string(index) + "_" + SanitizeName(info.name) + ".npy";
}

Status MakeOutputDir(const std::string& dir, const std::string& flag) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return InvalidArgumentError("cannot create " + flag + " '" + dir + "': " + ec.message());
  return OkStatus();
}

Status WriteOutputsNpy(const Interpreter& interp, const std::string& dir, std::vector<std::string>* written) {
  for (size_t i = 0; i < interp.outputs().size(); ++i) {
    GLD_ASSIGN_OR_RETURN(NpyArray a, ReadOutput(interp, static_cast<int>(i)));
    const std::string path = OutputNpyPath(dir, static_cast<int>(i), interp.outputs()[i]);
    GLD_RETURN_IF_ERROR(WriteNpy(path, a));
    if (written != nullptr) written->push_back(path);
  }
  return OkStatus();
}

}  // namespace gld::tools
