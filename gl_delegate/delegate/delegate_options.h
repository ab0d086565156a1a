// The external-delegate options (key/value strings, as
// tflite_plugin_create_delegate, LiteRT's load_delegate(library, options)
// and benchmark_model --external_delegate_options pass them) made into
// gld::Options.
#pragma once

#include <string>
#include <vector>

#include "gldelegate/status.hpp"
#include "gldelegate/types.hpp"

namespace gld::delegate {

// Sets the option `key` of `options` from `value`. Keys are the rows of
// gldelegate/options.inc (parsed by kind, then gld::CheckOption), and TFLite
// GPU-delegate spellings where they mean the same:
//   serialization_dir          -> cache_dir
//   model_token                -> model_token (the same name)
//   is_precision_loss_allowed  1 -> precision fp16, 0 -> fp32
//   inference_preference       accepted and ignored (a line in `notes`)
// InvalidArgument naming the key and the accepted keys, or the bad value.
Status SetDelegateOption(Options* options, const std::string& key, const std::string& value,
                         std::vector<std::string>* notes);

// Every key SetDelegateOption takes, comma-separated.
std::string DelegateOptionKeys();

}  // namespace gld::delegate
