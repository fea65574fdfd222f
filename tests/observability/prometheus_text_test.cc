// metrics/prometheus_text.h and metrics/histogram.h: the exposition format's escapes, numbers
// and histogram series, which Prometheus refuses a whole scrape for getting wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "base/assert.h"
#include "metrics/prometheus_text.h"

namespace mirra::metrics {
namespace {

TEST(PrometheusText, FamiliesAndSamples) {
  PrometheusText out;
  out.family("mirra_requests_total", MetricType::counter, "Requests.\nSecond line \\ here.");
  out.sample("mirra_requests_total", {{"api", "Produce"}, {"version", "9"}}, 3);
  out.family("mirra_partitions", MetricType::gauge, "Partitions.");
  out.sample("mirra_partitions", {}, 12);
  EXPECT_EQ(out.text(),
            "# HELP mirra_requests_total Requests.\\nSecond line \\\\ here.\n"
            "# TYPE mirra_requests_total counter\n"
            "mirra_requests_total{api=\"Produce\",version=\"9\"} 3\n"
            "# HELP mirra_partitions Partitions.\n"
            "# TYPE mirra_partitions gauge\n"
            "mirra_partitions 12\n");
}

TEST(PrometheusText, LabelValuesAreEscaped) {
  // Topic and group names come from clients: a quote or newline must not end the label.
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  PrometheusText out;
  out.family("g", MetricType::gauge, "g");
  out.sample("g", {{"topic", "x\"}\n"}}, 1);
  EXPECT_NE(out.text().find("g{topic=\"x\\\"}\\n\"} 1\n"), std::string::npos) << out.text();
}

TEST(PrometheusText, NumbersAsPrometheusSpellsThem) {
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(9007199254740991.0), "9007199254740991");
  EXPECT_EQ(format_value(1e20), "1e+20");
  EXPECT_EQ(format_value(123456789012), "123456789012");
  EXPECT_EQ(format_value(-5), "-5");
  EXPECT_EQ(format_value(0.25), "0.25");
  EXPECT_EQ(format_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_value(std::nan("")), "NaN");
}

TEST(PrometheusText, HistogramSeriesAreCumulativeAndEndInInf) {
  Histogram h;
  h.observe(0.00005);  // first bucket
  h.observe(0.0001);   // on a bound: counted at or below it
  h.observe(0.003);
  h.observe(42);  // above every bound
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.counts()[0], 2u);
  EXPECT_EQ(h.counts().back(), 1u);
  PrometheusText out;
  out.family("lat_seconds", MetricType::histogram, "Latency.");
  out.histogram("lat_seconds", {{"api", "Fetch"}}, h);
  const std::string& t = out.text();
  EXPECT_NE(t.find("lat_seconds_bucket{api=\"Fetch\",le=\"0.0001\"} 2\n"), std::string::npos) << t;
  EXPECT_NE(t.find("lat_seconds_bucket{api=\"Fetch\",le=\"0.005\"} 3\n"), std::string::npos) << t;
  EXPECT_NE(t.find("lat_seconds_bucket{api=\"Fetch\",le=\"10\"} 3\n"), std::string::npos) << t;
  EXPECT_NE(t.find("lat_seconds_bucket{api=\"Fetch\",le=\"+Inf\"} 4\n"), std::string::npos) << t;
  EXPECT_NE(t.find("lat_seconds_count{api=\"Fetch\"} 4\n"), std::string::npos) << t;
  EXPECT_NE(t.find("lat_seconds_sum{api=\"Fetch\"} 42.00315"), std::string::npos) << t;
}

// Checked where assertions are on (the sanitizer build runs this test with them).
TEST(PrometheusTextDeathTest, AFamilyTwiceIsABug) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  PrometheusText out;
  out.family("g", MetricType::gauge, "g");
  if (kAssertionsActive) {
    EXPECT_DEATH(out.family("g", MetricType::gauge, "g"), "twice");
  }
}

}  // namespace
}  // namespace mirra::metrics
