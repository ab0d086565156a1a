// Where tests find the shared real models (see ../shared/models/MODELS.md).
#pragma once

#include <string>
#include <vector>

namespace gld::testing {

// $GLD_TEST_MODELS when set and non-empty, else GLD_DEFAULT_MODELS_DIR
// (../shared/models next to the repository).
std::string ModelsDir();

// True when ModelsDir() exists and holds every file of SharedModelNames().
bool SharedModelsPresent();

// The six real models every checkout is tested on, as file names.
const std::vector<std::string>& SharedModelNames();

// ModelsDir() + "/" + name.
std::string ModelPath(const std::string& name);

// A GTEST_SKIP message naming the folder that was looked for.
std::string MissingModelsMessage();

}  // namespace gld::testing
