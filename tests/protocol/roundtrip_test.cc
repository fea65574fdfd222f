// Every message of every API round-trips at every version in its range: random contents are
// encoded, size() must equal the encoded length, decoding must consume exactly those bytes and
// give an equal struct, and re-encoding must give the same bytes.
#include <gtest/gtest.h>

#include "protocol/api_table.h"
#include "protocol/frame.h"
#include "protocol/messages/random_messages.h"

namespace mirra::protocol {
namespace {

template <typename M>
void round_trip(int16_t version, uint64_t seed) {
  testing::SampleRng g(seed);
  M original;
  testing::randomize(original, version, g);
  Bytes bytes;
  append_message(bytes, original, version);
  ASSERT_EQ(bytes.size(), original.size(version)) << M::kName << " v" << version;

  Reader r(bytes.data(), bytes.size());
  M decoded;
  Status s = decoded.decode(r, version);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(r.remaining(), 0u) << M::kName << " v" << version;
  EXPECT_TRUE(decoded == original) << M::kName << " v" << version << " seed " << seed;

  Bytes again;
  append_message(again, decoded, version);
  EXPECT_EQ(again, bytes) << M::kName << " v" << version;

  // Every strict prefix must fail cleanly, never crash or read past the end. (Prefixes that
  // happen to be valid messages are impossible: decoding checks it consumed every byte.)
  for (size_t cut = 0; cut < bytes.size(); cut += 1 + bytes.size() / 64) {
    Reader pr(bytes.data(), cut);
    M partial;
    Status ps = partial.decode(pr, version);
    EXPECT_TRUE(!ps.ok() || pr.remaining() == 0) << M::kName << " v" << version;
  }
}

template <typename M>
void round_trip_all_versions() {
  for (int16_t v = M::kMinVersion; v <= M::kMaxVersion; ++v) {
    for (uint64_t seed = 1; seed <= 12; ++seed) round_trip<M>(v, seed * 7919 + v);
  }
}

#define MIRRA_ROUND_TRIP_TEST(Api, Request, Response)                   \
  TEST(RoundTrip, Api##Request) { round_trip_all_versions<Request>(); } \
  TEST(RoundTrip, Api##Response) { round_trip_all_versions<Response>(); }
MIRRA_FOR_EACH_API(MIRRA_ROUND_TRIP_TEST)
#undef MIRRA_ROUND_TRIP_TEST

TEST(RoundTrip, Headers) {
  round_trip_all_versions<RequestHeader>();
  round_trip_all_versions<ResponseHeader>();
}

TEST(RoundTrip, VersionOutsideRangeIsRejected) {
  Bytes empty;
  Reader r(empty.data(), 0);
  FetchRequest f;
  Status s = f.decode(r, 3);
  EXPECT_EQ(s.code(), ErrorCode::UNSUPPORTED_VERSION);
  EXPECT_NE(s.message().find("FetchRequest"), std::string::npos);
}

}  // namespace
}  // namespace mirra::protocol
