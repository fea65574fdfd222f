// PrometheusText: writes Prometheus' text exposition format (version 0.0.4), the format every
// Prometheus server and promtool read: a `# HELP` and `# TYPE` line per family, then one line per
// sample, `name{label="value",...} value`. Label values are escaped (backslash, double quote,
// newline); numbers are written in full precision, with +Inf, -Inf and NaN spelt as Prometheus
// spells them. docs/observability.md lists the families Mirra writes.
//
// Families must not repeat and a family's samples must follow its header: the writer asserts
// both (a scrape with a family twice is refused by Prometheus).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/histogram.h"

namespace mirra::metrics {

using Labels = std::vector<std::pair<std::string_view, std::string_view>>;

enum class MetricType { counter, gauge, histogram };

class PrometheusText {
 public:
  // Starts a family. `name` is its base name (a counter's ends in _total).
  void family(std::string_view name, MetricType type, std::string_view help);
  // One sample of the current family (`name` is the family's, or a histogram's _bucket/_sum/
  // _count series).
  void sample(std::string_view name, const Labels& labels, double value);
  // A histogram's _bucket (cumulative, with le="+Inf"), _sum and _count series.
  void histogram(std::string_view name, const Labels& labels, const Histogram& h);

  const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
  std::string current_;
  std::set<std::string, std::less<>> families_;
};

// A label value with Prometheus' escapes applied.
std::string escape_label_value(std::string_view v);
// A sample value as Prometheus writes it.
std::string format_value(double v);

}  // namespace mirra::metrics
