// Comparing two runs of the same model where NaN and infinities may appear:
// NaN must meet NaN, an infinity the same infinity, and finite values agree
// within `tolerance` of the largest finite magnitude of `reference`.
#pragma once

#include <string>
#include <vector>

namespace gld::testing {

// "" when `ours` agrees with `reference`, else the first difference
// ("element 7: reference nan, ours 0").
std::string CompareWithSpecialValues(const std::vector<float>& reference, const std::vector<float>& ours,
                                     double tolerance);

}  // namespace gld::testing
