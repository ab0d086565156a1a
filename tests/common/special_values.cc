#include "common/special_values.h"

#include <algorithm>
#include <cmath>

namespace gld::testing {

std::string CompareWithSpecialValues(const std::vector<float>& reference, const std::vector<float>& ours,
                                     double tolerance) {
  if (reference.size() != ours.size())
    return "sizes differ: reference " + std::to_string(reference.size()) + ", ours " + std::to_string(ours.size());
  double scale = 0;
  for (float r : reference) {
    if (std::isfinite(r)) scale = std::max(scale, std::fabs(static_cast<double>(r)));
  }
  const double limit = tolerance * std::max(scale, 1e-6);
  for (size_t j = 0; j < reference.size(); ++j) {
    const float r = reference[j], o = ours[j];
    bool same;
    if (std::isnan(r) || std::isnan(o)) {
      same = std::isnan(r) && std::isnan(o);
    } else if (std::isinf(r) || std::isinf(o)) {
      same = r == o;
    } else {
      same = std::fabs(static_cast<double>(r) - o) <= limit;
    }
    if (!same) {
      return "element " + std::to_string(j) + ": reference " + std::to_string(r) + ", ours " + std::to_string(o);
    }
  }
  return "";
}

}  // namespace gld::testing
