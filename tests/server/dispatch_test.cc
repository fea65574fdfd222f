// The request path without sockets: envelope, routing, the ApiVersions handler.
#include "server/dispatch.h"

#include <gtest/gtest.h>

#include "protocol/messages/api_versions.h"
#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/metadata.h"

namespace mirra::server {
namespace {

using protocol::Bytes;

HandlerResult run(Bytes frame_with_prefix) {
  std::span<uint8_t> frame(frame_with_prefix);
  frame = frame.subspan(protocol::kFrameSizeBytes);
  ServerConfig config;
  BrokerState broker;
  broker.config = &config;
  ConnectionInfo conn{1, "test", "PLAINTEXT", "127.0.0.1"};
  return dispatch_request_now(frame, conn, broker);
}

template <typename Req>
Bytes request(int16_t version, const Req& body, int32_t correlation_id = 7) {
  protocol::RequestHeader h;
  h.request_api_key = Req::kApiKey;
  h.request_api_version = version;
  h.correlation_id = correlation_id;
  h.client_id = "test";
  return protocol::encode_request_frame(h, body);
}

protocol::ApiVersionsResponse decode_api_versions(const Bytes& resp, int16_t version) {
  protocol::Reader r(std::span<const uint8_t>(resp).subspan(4));
  EXPECT_EQ(r.read_int32(), 7);  // correlation id; response header v0 for ApiVersions
  protocol::ApiVersionsResponse out;
  EXPECT_TRUE(out.decode(r, version).ok());
  EXPECT_EQ(r.remaining(), 0u);
  return out;
}

// ApiVersions lists exactly the APIs that have a handler.
size_t handled_api_count() {
  size_t n = 0;
  for (const protocol::ApiInfo& api : protocol::all_apis()) n += find_handler(api.key) != nullptr;
  return n;
}

TEST(Dispatch, ApiVersionsEveryVersion) {
  for (int16_t v = 0; v <= protocol::ApiVersionsRequest::kMaxVersion; ++v) {
    protocol::ApiVersionsRequest req;
    req.client_software_name = "t";
    req.client_software_version = "1";
    auto r = run(request(v, req));
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    auto resp = decode_api_versions(r.value().bytes, v);
    EXPECT_EQ(resp.error_code, 0);
    EXPECT_EQ(resp.api_keys.size(), handled_api_count());
    EXPECT_EQ(resp.api_keys[0].api_key, 0);  // Produce, from v0
    EXPECT_EQ(resp.api_keys[0].min_version, 0);
  }
}

// size, key, version, correlation id 7, null client id, then `tail`.
Bytes raw_request(uint8_t key, uint8_t version_hi, uint8_t version_lo, Bytes tail) {
  Bytes f = {0, 0, 0, 0, 0, key, version_hi, version_lo, 0, 0, 0, 7, 0xff, 0xff};
  for (uint8_t b : tail) f.push_back(b);  // (insert() trips g++ 12's -Warray-bounds)
  protocol::patch_frame_size(f);
  return f;
}

TEST(Dispatch, ApiVersionsAboveRangeGetsKip511Answer) {
  // Header v2 (empty tagged fields) and a body this build cannot know.
  auto r = run(raw_request(18, 0, 99, {0, 1, 2, 3}));
  ASSERT_TRUE(r.ok());
  auto resp = decode_api_versions(r.value().bytes, 0);
  EXPECT_EQ(resp.error_code, 35);
  EXPECT_EQ(resp.api_keys.size(), handled_api_count());
}

TEST(Dispatch, UnimplementedApiClosesWithItsName) {
  // ConsumerGroupDescribe (KIP-848) is in the codec table, without a handler.
  ASSERT_EQ(find_handler(protocol::ConsumerGroupDescribeRequest::kApiKey), nullptr);
  auto r = run(request(0, protocol::ConsumerGroupDescribeRequest{}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ConsumerGroupDescribe"), std::string::npos);
}

// The body of a response frame, after its header (v0 below flexible version 2, else v1).
template <typename Resp>
Resp decode_response(const Bytes& frame, int16_t version) {
  protocol::Reader r(std::span<const uint8_t>(frame).subspan(protocol::kFrameSizeBytes));
  EXPECT_EQ(r.read_int32(), 7);
  if (version >= 2) {
    EXPECT_EQ(r.read_uvarint(), 0u);  // no tagged fields in the header
  }
  Resp out;
  EXPECT_TRUE(out.decode(r, version).ok());
  EXPECT_EQ(r.remaining(), 0u);
  return out;
}

// Without an authorizer the ACL APIs are advertised and refuse everything with
// SECURITY_DISABLED, as Kafka does (docs/protocol.md): one result per creation and per filter.
TEST(Dispatch, AclApisAnswerSecurityDisabledInEveryVersion) {
  constexpr int16_t kSecurityDisabled = 54;
  for (int16_t v = 1; v <= 3; ++v) {
    SCOPED_TRACE(v);
    protocol::CreateAclsRequest create;
    create.creations.resize(2);
    auto created = run(request(v, create));
    ASSERT_TRUE(created.ok()) << created.status().to_string();
    auto cr = decode_response<protocol::CreateAclsResponse>(created->bytes, v);
    ASSERT_EQ(cr.results.size(), 2u);
    for (const auto& r : cr.results) {
      EXPECT_EQ(r.error_code, kSecurityDisabled);
      EXPECT_NE(r.error_message.value_or("").find("authorizer"), std::string::npos);
    }

    auto described = run(request(v, protocol::DescribeAclsRequest{}));
    ASSERT_TRUE(described.ok()) << described.status().to_string();
    auto dr = decode_response<protocol::DescribeAclsResponse>(described->bytes, v);
    EXPECT_EQ(dr.error_code, kSecurityDisabled);
    EXPECT_TRUE(dr.resources.empty());

    protocol::DeleteAclsRequest del;
    del.filters.resize(3);
    auto deleted = run(request(v, del));
    ASSERT_TRUE(deleted.ok()) << deleted.status().to_string();
    auto delr = decode_response<protocol::DeleteAclsResponse>(deleted->bytes, v);
    ASSERT_EQ(delr.filter_results.size(), 3u);
    for (const auto& r : delr.filter_results) {
      EXPECT_EQ(r.error_code, kSecurityDisabled);
      EXPECT_TRUE(r.matching_acls.empty());
    }
  }
}

// Version 0 of the ACL APIs is gone, as in Kafka 4 (KIP-896): outside the advertised range.
TEST(Dispatch, AclApisVersionZeroCloses) {
  for (uint8_t key : {29, 30, 31}) {
    auto r = run(raw_request(key, 0, 0, {}));
    ASSERT_FALSE(r.ok()) << int{key};
    EXPECT_NE(r.status().message().find("outside"), std::string::npos) << r.status().to_string();
  }
}

TEST(Dispatch, UnknownKeyAndBadVersionClose) {
  auto r = run(raw_request(0x7f, 0, 0, {}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown API key"), std::string::npos);
  auto negative = run(raw_request(18, 0xff, 0xff, {}));
  EXPECT_FALSE(negative.ok());
  auto produce_too_new = run(raw_request(0, 0x7f, 0, {}));
  ASSERT_FALSE(produce_too_new.ok());
  EXPECT_NE(produce_too_new.status().message().find("outside"), std::string::npos);
}

TEST(Dispatch, TruncatedBodyCloses) {
  protocol::ApiVersionsRequest req;
  req.client_software_name = "abcdef";
  Bytes frame = request(3, req);
  frame.resize(frame.size() - 4);
  auto r = run(frame);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ApiVersions"), std::string::npos);
}

}  // namespace
}  // namespace mirra::server
