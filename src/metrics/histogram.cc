#include "metrics/histogram.h"

#include <algorithm>

namespace mirra::metrics {

void Histogram::observe(double seconds) {
  const auto it = std::lower_bound(kBounds.begin(), kBounds.end(), seconds);
  ++counts_[static_cast<size_t>(it - kBounds.begin())];
  ++count_;
  sum_ += seconds;
}

}  // namespace mirra::metrics
