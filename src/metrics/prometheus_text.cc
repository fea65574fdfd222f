#include "metrics/prometheus_text.h"

#include <fmt/format.h>

#include <cmath>

#include "base/assert.h"

namespace mirra::metrics {
namespace {

std::string_view type_name(MetricType t) {
  switch (t) {
    case MetricType::counter:
      return "counter";
    case MetricType::gauge:
      return "gauge";
    case MetricType::histogram:
      return "histogram";
  }
  return "untyped";
}

// HELP text escapes backslash and newline only.
std::string escape_help(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Whole numbers (counters, offsets) exactly; others in the shortest form that reads back.
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

void PrometheusText::family(std::string_view name, MetricType type, std::string_view help) {
  const bool fresh = families_.emplace(name).second;
  MIRRA_ASSERT(fresh, "metric family written twice");
  current_ = name;
  fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", name, escape_help(help),
                 name, type_name(type));
}

void PrometheusText::sample(std::string_view name, const Labels& labels, double value) {
  MIRRA_ASSERT(name.starts_with(current_), "a sample outside its family");
  out_ += name;
  if (!labels.empty()) {
    out_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out_ += ',';
      fmt::format_to(std::back_inserter(out_), "{}=\"{}\"", labels[i].first,
                     escape_label_value(labels[i].second));
    }
    out_ += '}';
  }
  out_ += ' ';
  out_ += format_value(value);
  out_ += '\n';
}

void PrometheusText::histogram(std::string_view name, const Labels& labels, const Histogram& h) {
  const std::string bucket = fmt::format("{}_bucket", name);
  Labels with_le = labels;
  with_le.emplace_back("le", "");
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= Histogram::kBounds.size(); ++i) {
    cumulative += h.counts()[i];
    const std::string le = i < Histogram::kBounds.size() ? format_value(Histogram::kBounds[i])
                                                         : "+Inf";
    with_le.back().second = le;
    sample(bucket, with_le, static_cast<double>(cumulative));
  }
  sample(fmt::format("{}_sum", name), labels, h.sum());
  sample(fmt::format("{}_count", name), labels, static_cast<double>(h.count()));
}

}  // namespace mirra::metrics
