// Model inputs from .npy files and outputs to .npy files, for the tools
// (gld_run --input / --output_dir, gld_benchmark --input_layer_value_files /
// --output_dir).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "gldelegate/npy.hpp"

namespace gld::tools {

// Index of the input called `name` (the tensor's name, as LiteRT's
// input details give it, or its name in one of `signatures`), or `name`
// read as an input index. NotFound names `flag` and lists the model's inputs.
StatusOr<int> FindInputIndex(const std::vector<TensorInfo>& inputs, const std::string& name,
                             const std::string& flag, const std::vector<SignatureInfo>& signatures = {});

// The bytes of an .npy file whose element type and shape match `info`
// exactly; InvalidArgument naming the file and the tensor otherwise.
StatusOr<std::vector<uint8_t>> LoadInputNpy(const TensorInfo& info, const std::string& file);

// TensorFlow Lite's --input_layer_value_files syntax:
// "name1:file1,name2:file2"; "::" stands for a ':' inside a name
// ("input::0:x.npy" is input "input:0"). Returns (name, file) pairs.
StatusOr<std::vector<std::pair<std::string, std::string>>> ParseInputLayerValueFiles(const std::string& spec);

// Output `index` of `interp` as an array.
StatusOr<NpyArray> ReadOutput(const Interpreter& interp, int index);

// "<dir>/<index>_<sanitized name>.npy"
std::string OutputNpyPath(const std::string& dir, int index, const TensorInfo& info);

// Creates `dir` (and its parents) when missing.
Status MakeOutputDir(const std::string& dir, const std::string& flag);

// Writes every output as OutputNpyPath(dir, i, ...); the paths written go to
// `written` when given.
Status WriteOutputsNpy(const Interpreter& interp, const std::string& dir, std::vector<std::string>* written);

}  // namespace gld::tools
