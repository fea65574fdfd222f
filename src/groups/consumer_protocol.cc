#include "groups/consumer_protocol.h"

#include <fmt/format.h>

#include <algorithm>

#include "protocol/wire.h"

namespace mirra::groups {
namespace {

using protocol::Reader;
using protocol::Writer;

// Both structures use the classic (non-flexible) encodings in every version.
constexpr bool kCompact = false;
constexpr int16_t kNewestSubscriptionVersion = 3;

// Smallest encodings, so that a hostile count is bounded by the bytes left before reserve().
constexpr size_t kMinStringSize = 2;               // int16 length
constexpr size_t kMinTopicPartitionsSize = 2 + 4;  // empty topic, empty partition array

void write_topic_partitions(Writer& w, const std::vector<TopicPartitions>& list) {
  w.write_array_length(kCompact, static_cast<int32_t>(list.size()));
  for (const TopicPartitions& tp : list) {
    w.write_string(kCompact, tp.topic);
    w.write_array_length(kCompact, static_cast<int32_t>(tp.partitions.size()));
    for (int32_t p : tp.partitions) w.write_int32(p);
  }
}

// A null array is refused: the fields are not nullable in the schema, and Kafka's reader
// refuses them too.
std::vector<TopicPartitions> read_topic_partitions(Reader& r) {
  std::vector<TopicPartitions> list;
  const int32_t n = r.read_array_length(kCompact, kMinTopicPartitionsSize);
  if (n < 0) r.fail("null topic-partition list");
  list.reserve(static_cast<size_t>(std::max(n, 0)));
  for (int32_t i = 0; i < n && !r.failed(); ++i) {
    TopicPartitions& tp = list.emplace_back();
    r.read_string(kCompact, tp.topic);
    const int32_t m = r.read_array_length(kCompact, sizeof(int32_t));
    if (m < 0) r.fail("null partition list");
    tp.partitions.reserve(static_cast<size_t>(std::max(m, 0)));
    for (int32_t j = 0; j < m; ++j) tp.partitions.push_back(r.read_int32());
  }
  return list;
}

std::optional<std::vector<uint8_t>> read_user_data(Reader& r) {
  std::vector<uint8_t> data;
  if (!r.read_nullable_bytes(kCompact, data)) return std::nullopt;
  return data;
}

// The leading int16 version. A version newer than this build knows is read as the newest
// known one: later versions only append fields (which decoding then ignores), and this is what
// Kafka's own ConsumerProtocol does, so a newer client's group still works.
Result<int16_t> read_version(Reader& r, std::string_view what) {
  const int16_t version = r.read_int16();
  if (r.failed())
    return Status(ErrorCode::CORRUPT_MESSAGE,
                  fmt::format("{}: shorter than its 2-byte version", what));
  if (version < 0)
    return Status(ErrorCode::CORRUPT_MESSAGE,
                  fmt::format("{}: negative version {}", what, version));
  return version;
}

}  // namespace

Result<ConsumerSubscription> decode_subscription(std::span<const uint8_t> bytes) {
  constexpr std::string_view kWhat = "ConsumerProtocolSubscription";
  Reader r(bytes);
  auto version = read_version(r, kWhat);
  if (!version.ok()) return version.status();
  const int16_t v = std::min(*version, kNewestSubscriptionVersion);
  ConsumerSubscription s;
  s.version = *version;
  const int32_t n = r.read_array_length(kCompact, kMinStringSize);
  if (n < 0) r.fail("null topic list");
  s.topics.reserve(static_cast<size_t>(std::max(n, 0)));
  for (int32_t i = 0; i < n && !r.failed(); ++i) r.read_string(kCompact, s.topics.emplace_back());
  s.user_data = read_user_data(r);
  if (v >= 1) s.owned_partitions = read_topic_partitions(r);
  if (v >= 2) s.generation_id = r.read_int32();
  if (v >= 3) {
    std::string rack;
    if (r.read_nullable_string(kCompact, rack)) s.rack_id = std::move(rack);
  }
  // Trailing bytes are a newer version's fields, not corruption.
  if (r.failed()) return r.status(fmt::format("{} v{}", kWhat, *version));
  return s;
}

Result<ConsumerAssignment> decode_assignment(std::span<const uint8_t> bytes) {
  constexpr std::string_view kWhat = "ConsumerProtocolAssignment";
  Reader r(bytes);
  auto version = read_version(r, kWhat);
  if (!version.ok()) return version.status();
  ConsumerAssignment a;
  a.version = *version;
  // Every version so far has the same two fields.
  a.partitions = read_topic_partitions(r);
  a.user_data = read_user_data(r);
  if (r.failed()) return r.status(fmt::format("{} v{}", kWhat, *version));
  return a;
}

// Fields are written as far as `version` has them (capped at the newest known version, so a
// structure decoded from a newer client re-encodes to what this build understands of it).
std::vector<uint8_t> encode_subscription(const ConsumerSubscription& s) {
  const int16_t v = std::min(s.version, kNewestSubscriptionVersion);
  std::vector<uint8_t> out;
  Writer w(out);
  w.write_int16(s.version);
  w.write_array_length(kCompact, static_cast<int32_t>(s.topics.size()));
  for (const std::string& t : s.topics) w.write_string(kCompact, t);
  w.write_nullable_bytes(kCompact, s.user_data);
  if (v >= 1) write_topic_partitions(w, s.owned_partitions);
  if (v >= 2) w.write_int32(s.generation_id);
  if (v >= 3) w.write_nullable_string(kCompact, s.rack_id);
  return out;
}

std::vector<uint8_t> encode_assignment(const ConsumerAssignment& a) {
  std::vector<uint8_t> out;
  Writer w(out);
  w.write_int16(a.version);
  write_topic_partitions(w, a.partitions);
  w.write_nullable_bytes(kCompact, a.user_data);
  return out;
}

}  // namespace mirra::groups
