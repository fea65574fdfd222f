// Framing: size prefixes, request envelopes for known, unknown and out-of-range versions, and
// the header versions each API uses.
#include <gtest/gtest.h>

#include "protocol/frame.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/metadata.h"

namespace mirra::protocol {
namespace {

Bytes size_prefix(int32_t size) {
  Bytes b;
  Writer w(b);
  w.write_int32(size);
  return b;
}

TEST(Frame, SizePrefixIsChecked) {
  EXPECT_EQ(read_frame_size(size_prefix(100), 1000).value(), 100);
  EXPECT_EQ(read_frame_size(size_prefix(-1), 1000).status().code(), ErrorCode::CORRUPT_MESSAGE);
  auto big = read_frame_size(size_prefix(1001), 1000);
  EXPECT_EQ(big.status().code(), ErrorCode::INVALID_REQUEST);
  EXPECT_NE(big.status().message().find("1001"), std::string::npos);
  Bytes short_prefix = {0, 0};
  EXPECT_FALSE(read_frame_size(short_prefix, 1000).ok());
}

// A request frame without its size prefix, as the broker hands it to decode_request_envelope.
template <typename M>
Bytes request_body_frame(int16_t version, const M& body, const char* client_id = "test") {
  RequestHeader h;
  h.request_api_key = M::kApiKey;
  h.request_api_version = version;
  h.correlation_id = 77;
  h.client_id = client_id;
  Bytes frame = encode_request_frame(h, body);
  return Bytes(frame.begin() + kFrameSizeBytes, frame.end());
}

TEST(Frame, EnvelopeSplitsHeaderAndBody) {
  MetadataRequest req;
  req.topics.emplace().emplace_back().name = "orders";
  for (int16_t v : {int16_t(1), int16_t(9), int16_t(12)}) {
    Bytes frame = request_body_frame(v, req);
    auto env = decode_request_envelope(frame);
    ASSERT_TRUE(env.ok()) << env.status().to_string();
    EXPECT_EQ(env->header.correlation_id, 77);
    EXPECT_EQ(env->header.client_id, "test");
    EXPECT_EQ(env->header_version, v >= 9 ? 2 : 1);
    ASSERT_NE(env->api, nullptr);
    EXPECT_EQ(env->api->name, "Metadata");
    MetadataRequest decoded;
    Reader r(env->body);
    ASSERT_TRUE(decoded.decode(r, v).ok());
    EXPECT_EQ(r.remaining(), 0u);
    EXPECT_EQ(decoded.topics->at(0).name, "orders");
  }
}

TEST(Frame, UnknownApiKeyStillYieldsTheCorrelationId) {
  Bytes frame;
  Writer w(frame);
  w.write_int16(9999);
  w.write_int16(0);
  w.write_int32(5);
  w.write_nullable_string(false, std::string("probe"));
  auto env = decode_request_envelope(frame);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->api, nullptr);
  EXPECT_EQ(env->header.correlation_id, 5);
}

// KIP-511: a client's newest ApiVersions arrives with the flexible header even when the broker
// does not know that version, and the broker needs its correlation id to answer.
TEST(Frame, ApiVersionsAboveTheRangeIsReadWithTheFlexibleHeader) {
  RequestHeader h;
  h.request_api_key = kApiVersionsKey;
  h.request_api_version = 99;
  h.correlation_id = 3;
  h.client_id = "future-client";
  Bytes frame;
  append_message(frame, h, 2);
  auto env = decode_request_envelope(frame);
  ASSERT_TRUE(env.ok()) << env.status().to_string();
  EXPECT_EQ(env->header_version, 2);
  EXPECT_EQ(env->header.correlation_id, 3);
  EXPECT_FALSE(env->api->supports(99));
}

TEST(Frame, TruncatedHeaderIsAnError) {
  Bytes frame = request_body_frame(3, ApiVersionsRequest{});
  for (size_t cut = 0; cut < 8; ++cut) {
    auto env = decode_request_envelope(std::span<const uint8_t>(frame).first(cut));
    EXPECT_FALSE(env.ok()) << cut;
  }
}

TEST(Frame, ApiVersionsResponsesAlwaysUseHeaderV0) {
  const ApiInfo* av = find_api(kApiVersionsKey);
  ASSERT_NE(av, nullptr);
  EXPECT_EQ(response_header_version(*av, 4), 0);
  EXPECT_EQ(request_header_version(*av, 3), 2);
  const ApiInfo* fetch = find_api(1);
  EXPECT_EQ(response_header_version(*fetch, 11), 0);
  EXPECT_EQ(response_header_version(*fetch, 12), 1);
}

TEST(Frame, EveryAdvertisedRangeIsOrderedByKeyAndHasACodec) {
  int16_t last = -1;
  for (const ApiInfo& api : all_apis()) {
    EXPECT_GT(api.key, last);
    EXPECT_LE(api.min_version, api.max_version);
    EXPECT_EQ(find_api(api.key), &api);
    last = api.key;
  }
  // Client facts the ranges must respect (docs/protocol.md).
  EXPECT_EQ(find_api(0)->min_version, 0);   // Produce v0: librdkafka enables compression
  EXPECT_EQ(find_api(10)->min_version, 0);  // FindCoordinator v0: librdkafka groups
  EXPECT_EQ(find_api(11)->min_version, 0);  // JoinGroup v0
  EXPECT_TRUE(find_api(1)->supports(11));   // Fetch 11: kafka-python's broker-age marker
  EXPECT_EQ(find_api(95)->name, "AddTopicsToMirror");
  EXPECT_EQ(find_api(97), nullptr);
}

}  // namespace
}  // namespace mirra::protocol
