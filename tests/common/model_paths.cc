#include "common/model_paths.h"

#include <cstdlib>
#include <sys/stat.h>

namespace gld::testing {

std::string ModelsDir() {
  const char* env = std::getenv("GLD_TEST_MODELS");
  if (env != nullptr && env[0] != '\0') return env;
  return GLD_DEFAULT_MODELS_DIR;
}

const std::vector<std::string>& SharedModelNames() {
  static const std::vector<std::string> names = {
      "face_detection_short_range.tflite", "face_landmark.tflite",
      "hand_landmark_lite.tflite",         "palm_detection_lite.tflite",
      "pose_detection.tflite",             "selfie_segmentation.tflite",
  };
  return names;
}

std::string ModelPath(const std::string& name) { return ModelsDir() + "/" + name; }

bool SharedModelsPresent() {
  for (const std::string& name : SharedModelNames()) {
    struct stat st;
    if (stat(ModelPath(name).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  }
  return true;
}

std::string MissingModelsMessage() {
  return "shared models not found in '" + ModelsDir() +
         "' (set GLD_TEST_MODELS to the folder holding the six .tflite files)";
}

}  // namespace gld::testing
