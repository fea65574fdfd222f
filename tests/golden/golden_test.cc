// Golden bytes: request frames captured from real Kafka clients (tests/fixtures/golden/, written
// by tests/golden/capture_all.sh) must decode with Mirra's generated codecs, re-encode to the
// exact same bytes, carry the fields the clients were asked to send, and every record batch in
// them must parse, pass its CRC and decompress to the records the driver scripts produced.
//
// Layout: tests/fixtures/golden/<client>/<scenario>/NNN-<ApiName>-v<version>.bin, where the
// scenario of a producing run is the compression codec it used (or "idempotent").
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "protocol/api_visit.h"
#include "protocol/frame.h"
#include "protocol/messages/all_messages.h"
#include "protocol/records/record.h"
#include "protocol/records/record_set.h"

namespace {

namespace fs = std::filesystem;
using namespace mirra::protocol;
namespace rec = mirra::records;

const fs::path kRoot = fs::path(MIRRA_SOURCE_DIR) / "tests" / "fixtures" / "golden";

struct Fixture {
  fs::path path;
  std::string client;
  std::string scenario;
  std::string api;  // from the file name
  int16_t version = -1;
  std::vector<uint8_t> bytes;

  std::string label() const { return client + "/" + scenario + "/" + path.filename().string(); }
};

// What each capture run must have produced. Scenarios named after a codec produce with that codec.
struct Scenario {
  std::string client;
  std::string name;
  bool produces = true;
};

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> all = [] {
    std::vector<Scenario> v;
    for (const char* c : {"none", "gzip", "snappy", "lz4", "zstd"}) v.push_back({"kcat", c});
    v.push_back({"kcat", "metadata", false});
    v.push_back({"kcat", "consume", false});
    for (const char* c : {"none", "gzip", "snappy", "lz4", "zstd", "idempotent"}) {
      v.push_back({"confluent-kafka", c});
    }
    for (const char* c : {"none", "gzip", "snappy", "lz4", "zstd"})
      v.push_back({"kafka-python", c});
    for (const char* c : {"none", "gzip", "idempotent"}) v.push_back({"kafkajs", c});
    for (const char* c : {"none", "gzip", "snappy", "lz4", "idempotent"}) {
      v.push_back({"platformatic", c});
    }
    return v;
  }();
  return all;
}

std::optional<Fixture> load(const fs::path& p) {
  Fixture f;
  f.path = p;
  f.scenario = p.parent_path().filename().string();
  f.client = p.parent_path().parent_path().filename().string();
  const std::string name = p.filename().string();  // NNN-<Api>-v<N>.bin
  const size_t dash = name.find('-'), v = name.rfind("-v"), dot = name.rfind(".bin");
  if (dash == std::string::npos || v == std::string::npos || dot == std::string::npos ||
      v <= dash) {
    return std::nullopt;
  }
  f.api = name.substr(dash + 1, v - dash - 1);
  f.version = static_cast<int16_t>(std::stoi(name.substr(v + 2, dot - v - 2)));
  std::ifstream in(p, std::ios::binary);
  f.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return f;
}

// Every fixture of a scenario, in capture order.
std::vector<Fixture> fixtures_of(const std::string& client, const std::string& scenario) {
  std::vector<Fixture> out;
  const fs::path dir = kRoot / client / scenario;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".bin") continue;
    if (auto f = load(e.path())) out.push_back(std::move(*f));
  }
  std::sort(out.begin(), out.end(),
            [](const Fixture& a, const Fixture& b) { return a.path < b.path; });
  return out;
}

std::vector<Fixture> all_fixtures() {
  std::vector<Fixture> out;
  for (const Scenario& s : scenarios()) {
    auto f = fixtures_of(s.client, s.name);
    out.insert(out.end(), f.begin(), f.end());
  }
  return out;
}

RequestEnvelope envelope(const Fixture& f) {
  auto env = decode_request_envelope(f.bytes);
  EXPECT_TRUE(env.ok()) << f.label() << ": " << env.status().to_string();
  return env.ok() ? env.value() : RequestEnvelope{};
}

// Decodes the body of `f` as M; the whole body must be consumed.
template <typename M>
M decode_body(const Fixture& f) {
  RequestEnvelope env = envelope(f);
  M m;
  Reader r(env.body);
  const mirra::Status s = m.decode(r, f.version);
  EXPECT_TRUE(s.ok()) << f.label() << ": " << s.to_string();
  EXPECT_EQ(r.remaining(), 0u) << f.label();
  return m;
}

// Decode + re-encode of the body with the codec of M. Empty string on success.
template <typename M>
std::string round_trip(std::span<const uint8_t> body, int16_t version, Bytes& reencoded) {
  M m;
  Reader r(body);
  if (mirra::Status s = m.decode(r, version); !s) return s.to_string();
  if (r.remaining() != 0) return std::to_string(r.remaining()) + " bytes left after decode";
  if (m.size(version) != body.size()) return "size() disagrees with the decoded length";
  append_message(reencoded, m, version);
  return {};
}

std::string round_trip_body(int16_t key, std::span<const uint8_t> body, int16_t version,
                            Bytes& reencoded) {
  std::string result = "no codec for api key " + std::to_string(key);
  visit_api(key, [&]<typename Req, typename Resp>() {
    result = round_trip<Req>(body, version, reencoded);
  });
  return result;
}

// ---------------------------------------------------------------------------------------------

TEST(Golden, EveryScenarioWasCaptured) {
  ASSERT_TRUE(fs::is_directory(kRoot)) << kRoot << " is missing: run tests/golden/capture_all.sh";
  for (const Scenario& s : scenarios()) {
    const auto f = fixtures_of(s.client, s.name);
    EXPECT_FALSE(f.empty()) << "no fixtures in " << (kRoot / s.client / s.name);
    if (s.produces) {
      EXPECT_TRUE(
          std::any_of(f.begin(), f.end(), [](const Fixture& x) { return x.api == "Produce"; }))
          << s.client << "/" << s.name << " has no Produce frame";
    }
  }
}

TEST(Golden, EveryFrameDecodesAndReencodesByteExact) {
  const auto all = all_fixtures();
  ASSERT_FALSE(all.empty());
  for (const Fixture& f : all) {
    SCOPED_TRACE(f.label());
    auto env = decode_request_envelope(f.bytes);
    ASSERT_TRUE(env.ok()) << env.status().to_string();
    ASSERT_NE(env->api, nullptr);
    EXPECT_EQ(env->api->name, f.api);
    EXPECT_EQ(env->header.request_api_version, f.version);
    ASSERT_TRUE(env->api->supports(f.version));
    Bytes out;
    append_message(out, env->header, env->header_version);
    ASSERT_EQ(out.size(), f.bytes.size() - env->body.size()) << "header re-encodes to another size";
    const std::string err = round_trip_body(env->header.request_api_key, env->body, f.version, out);
    ASSERT_EQ(err, "");
    EXPECT_TRUE(std::equal(out.begin(), out.end(), f.bytes.begin(), f.bytes.end()))
        << "re-encoded bytes differ";
  }
}

// The client ids each client sends by default. kafka-python 2.0.2's version probe
// (ApiVersions v0, Metadata v0) goes out with the producer's own id, not "kafka-python-2.0.2".
TEST(Golden, ClientIds) {
  const std::map<std::string, std::set<std::string>> expected = {
      {"kcat", {"rdkafka"}},
      {"confluent-kafka", {"rdkafka"}},
      {"kafka-python", {"kafka-python-producer-1"}},
      {"kafkajs", {"kafkajs"}},
      {"platformatic", {"golden-platformatic"}},
  };
  for (const Fixture& f : all_fixtures()) {
    RequestEnvelope env = envelope(f);
    ASSERT_TRUE(env.header.client_id.has_value()) << f.label();
    EXPECT_TRUE(expected.at(f.client).count(*env.header.client_id))
        << f.label() << ": client_id " << *env.header.client_id;
  }
}

TEST(Golden, ApiVersionsSoftwareNameAndVersion) {
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"kcat", {"librdkafka", "2.0.2"}},
      {"confluent-kafka", {"confluent-kafka-python", "1.7.0-rdkafka-2.0.2"}},
      {"platformatic", {"platformatic-kafka", "1.35.0"}},
  };
  int checked = 0;
  for (const Fixture& f : all_fixtures()) {
    if (f.api != "ApiVersions" || f.version < 3) continue;
    auto req = decode_body<ApiVersionsRequest>(f);
    auto it = expected.find(f.client);
    ASSERT_NE(it, expected.end()) << f.label() << " unexpectedly sends ApiVersions v" << f.version;
    EXPECT_EQ(req.client_software_name, it->second.first) << f.label();
    EXPECT_EQ(req.client_software_version, it->second.second) << f.label();
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// Metadata requests ask for "golden" by name, except kafka-python's, which always ask for all
// topics: v0 with an empty list (v0's "all topics") as its version probe, then v1 with a null list.
// kcat -L asks for all topics with a null list; librdkafka first asks for brokers only (v1+
// with an empty list).
TEST(Golden, MetadataTopics) {
  for (const Scenario& s : scenarios()) {
    SCOPED_TRACE(s.client + "/" + s.name);
    int named = 0, all_topics = 0;
    for (const Fixture& f : fixtures_of(s.client, s.name)) {
      if (f.api != "Metadata") continue;
      auto req = decode_body<MetadataRequest>(f);
      if (!req.topics || (f.version == 0 && req.topics->empty())) {
        ++all_topics;
        EXPECT_EQ(f.version == 0, req.topics.has_value()) << f.label();
        continue;
      }
      if (req.topics->empty()) continue;  // v1+: brokers only (librdkafka's bootstrap query)
      for (const auto& t : *req.topics) {
        ASSERT_TRUE(t.name.has_value()) << f.label();
        EXPECT_EQ(*t.name, "golden") << f.label();
      }
      ++named;
    }
    if (s.client == "kafka-python") {
      EXPECT_EQ(named, 0);
      EXPECT_EQ(all_topics, 2);
    } else if (s.name == "metadata") {
      EXPECT_GT(all_topics, 0);
    } else {
      EXPECT_GT(named, 0) << "never asked for golden";
    }
  }
}

// ---- Produce: request fields and the record batches --------------------------------------------

struct ExpectedRecord {
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::string>> headers;
  bool operator==(const ExpectedRecord&) const = default;
};

std::ostream& operator<<(std::ostream& os, const ExpectedRecord& r) {
  os << "{key=" << r.key.value_or("<null>") << " value=" << r.value.value_or("<null>")
     << " headers=[";
  for (const auto& [k, v] : r.headers) os << k << "=" << v << " ";
  return os << "]}";
}

// What the driver scripts send (capture_all.sh, drive_python.py, drive_node.mjs).
std::vector<ExpectedRecord> expected_records(const std::string& client,
                                             const std::string& scenario) {
  std::vector<ExpectedRecord> out;
  for (int i = 0; i < 10; ++i) {
    const std::string n = std::to_string(i);
    ExpectedRecord r{"k" + n, "golden-" + client + "-" + scenario + "-" + n, {{"h", "v" + n}}};
    if (client == "kcat") r.headers = {{"h", "kcat"}};  // kcat's -H applies to every message
    out.push_back(r);
  }
  if (client == "confluent-kafka") out.push_back({"k10", std::nullopt, {}});  // a tombstone
  return out;
}

std::optional<std::string> str(const rec::NullableBytes& b) {
  if (!b) return std::nullopt;
  return std::string(rec::as_string(*b));
}

rec::Compression expected_codec(const std::string& scenario) {
  if (scenario == "gzip") return rec::Compression::gzip;
  if (scenario == "snappy") return rec::Compression::snappy;
  if (scenario == "lz4") return rec::Compression::lz4;
  if (scenario == "zstd") return rec::Compression::zstd;
  return rec::Compression::none;
}

// acks as each client sends it by default: kafka-python and @platformatic/kafka default to 1
// (leader), librdkafka to -1 (all); kafkajs is asked for -1; idempotent producers always use -1.
int16_t expected_acks(const std::string& client, const std::string& scenario) {
  if (scenario == "idempotent") return -1;
  return client == "kafka-python" || client == "platformatic" ? 1 : -1;
}

// Snappy framing: Java-style xerial framing or raw snappy, as each client writes it.
bool xerial_snappy(const std::string& client) { return client == "kafka-python"; }

TEST(Golden, ProduceRequestsAndRecordBatches) {
  int batches_checked = 0;
  for (const Scenario& s : scenarios()) {
    if (!s.produces) continue;
    SCOPED_TRACE(s.client + "/" + s.name);
    std::vector<ExpectedRecord> got;
    int batch_index = 0;
    for (const Fixture& f : fixtures_of(s.client, s.name)) {
      if (f.api != "Produce") continue;
      auto req = decode_body<ProduceRequest>(f);
      EXPECT_FALSE(req.transactional_id.has_value()) << f.label();
      EXPECT_EQ(req.acks, expected_acks(s.client, s.name)) << f.label();
      ASSERT_EQ(req.topic_data.size(), 1u) << f.label();
      EXPECT_EQ(req.topic_data[0].name, "golden") << f.label();
      for (const auto& part : req.topic_data[0].partition_data) {
        EXPECT_EQ(part.index, 0) << f.label();
        ASSERT_TRUE(part.records.has_value()) << f.label();
        rec::RecordSetIterator it(part.records->span(), /*validate=*/true);
        rec::BatchView batch;
        rec::RecordSetStep step;
        while ((step = it.next(batch)) == rec::RecordSetStep::batch) {
          EXPECT_EQ(batch.magic(), 2) << f.label();
          EXPECT_EQ(batch.crc(), batch.compute_crc()) << f.label();
          EXPECT_EQ(batch.compression(), expected_codec(s.name)) << f.label();
          EXPECT_FALSE(batch.is_transactional() || batch.is_control()) << f.label();
          if (batch.compression() == rec::Compression::snappy) {
            EXPECT_EQ(rec::is_xerial_snappy(batch.payload()), xerial_snappy(s.client)) << f.label();
          }
          if (s.name == "idempotent") {
            EXPECT_EQ(batch.producer_id(), 1000) << f.label();  // what capture_broker granted
            EXPECT_EQ(batch.producer_epoch(), 0) << f.label();
            EXPECT_EQ(batch.base_sequence(), static_cast<int32_t>(got.size())) << f.label();
          }
          std::vector<uint8_t> scratch;
          int32_t n = 0;
          const mirra::Status st =
              rec::for_each_record(batch, scratch, [&](const rec::RecordView& r) {
                ExpectedRecord e{str(r.key), str(r.value), {}};
                auto hs = r.headers();
                rec::HeaderView h;
                while (hs.next(h))
                  e.headers.emplace_back(rec::as_string(h.key), str(h.value).value_or("<null>"));
                EXPECT_EQ(r.offset_delta, n++) << f.label();
                got.push_back(std::move(e));
                return mirra::Status::OK();
              });
          EXPECT_TRUE(st.ok()) << f.label() << ": " << st.to_string();
          EXPECT_EQ(n, batch.record_count()) << f.label();
          ++batch_index;
          ++batches_checked;
        }
        EXPECT_EQ(step, rec::RecordSetStep::end) << f.label() << ": " << it.status().to_string();
      }
    }
    EXPECT_GT(batch_index, 0);
    EXPECT_EQ(got, expected_records(s.client, s.name));
  }
  EXPECT_GT(batches_checked, 0);
}

}  // namespace
