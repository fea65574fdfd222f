// Wire primitives against hostile input: every failure is a clean, sticky error with a
// position, and no length is trusted before it is checked.
#include <gtest/gtest.h>

#include "protocol/frame.h"
#include "protocol/messages/produce.h"
#include "protocol/wire.h"

namespace mirra::protocol {
namespace {

TEST(Wire, UvarintRoundTripsAndRejectsOverlongEncodings) {
  for (uint32_t v : {0u, 1u, 127u, 128u, 16383u, 16384u, 0x0fffffffu, 0xffffffffu}) {
    Bytes b;
    Writer(b).write_uvarint(v);
    EXPECT_EQ(b.size(), uvarint_size(v));
    Reader r(b.data(), b.size());
    EXPECT_EQ(r.read_uvarint(), v);
    EXPECT_FALSE(r.failed());
  }
  const Bytes six_bytes = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  Reader r(six_bytes.data(), six_bytes.size());
  r.read_uvarint();
  EXPECT_TRUE(r.failed());
  const Bytes too_big = {0xff, 0xff, 0xff, 0xff, 0x1f};  // > 32 bits
  Reader r2(too_big.data(), too_big.size());
  r2.read_uvarint();
  EXPECT_TRUE(r2.failed());
}

TEST(Wire, LengthsBeyondTheBufferFailWithoutAllocating) {
  // Classic string claiming 32767 bytes with 3 present.
  const Bytes s = {0x7f, 0xff, 'a', 'b', 'c'};
  Reader r(s.data(), s.size());
  std::string out;
  r.read_string(false, out);
  EXPECT_TRUE(r.failed());
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(r.status("test").code(), ErrorCode::CORRUPT_MESSAGE);

  // An array of 2^31-1 int64s in a 4-byte buffer must not reserve anything.
  const Bytes a = {0x7f, 0xff, 0xff, 0xff};
  Reader ra(a.data(), a.size());
  EXPECT_EQ(ra.read_array_length(false, 8), -1);
  EXPECT_TRUE(ra.failed());

  // Negative lengths other than -1 are malformed.
  const Bytes neg = {0xff, 0xfe};
  Reader rn(neg.data(), neg.size());
  EXPECT_FALSE(rn.read_nullable_string(false, out));
  EXPECT_TRUE(rn.failed());
}

TEST(Wire, NullWhereNotNullableIsAnError) {
  const Bytes null_string = {0xff, 0xff};
  Reader r(null_string.data(), null_string.size());
  std::string out;
  r.read_string(false, out);
  EXPECT_TRUE(r.failed());
  EXPECT_NE(r.status("x").message().find("null"), std::string::npos);
}

TEST(Wire, FailureIsStickyAndReportsTheFirstPosition) {
  const Bytes b = {0x00, 0x01};
  Reader r(b.data(), b.size());
  EXPECT_EQ(r.read_int16(), 1);
  EXPECT_EQ(r.read_int32(), 0);  // fails at byte 2
  EXPECT_EQ(r.read_int8(), 0);   // still failed, position unchanged
  Status s = r.status("ProduceRequest v9");
  EXPECT_NE(s.message().find("ProduceRequest v9"), std::string::npos);
  EXPECT_NE(s.message().find("byte 2"), std::string::npos);
}

TEST(Wire, RecordsAreViewsIntoTheBuffer) {
  ProduceRequest req;
  req.acks = 1;
  Bytes payload = {1, 2, 3, 4, 5};
  auto& p = req.topic_data.emplace_back().partition_data.emplace_back();
  p.records = RecordsView{payload.data(), payload.size()};
  for (int16_t v : {int16_t(3), int16_t(9)}) {
    Bytes wire;
    append_message(wire, req, v);
    ProduceRequest decoded;
    Reader r(wire.data(), wire.size());
    ASSERT_TRUE(decoded.decode(r, v).ok());
    const RecordsView& view = *decoded.topic_data[0].partition_data[0].records;
    EXPECT_GE(view.data, wire.data());
    EXPECT_LE(view.data + view.size, wire.data() + wire.size());
    EXPECT_EQ(view, p.records.value());
  }
}

TEST(Wire, UnknownTaggedFieldsSurviveARoundTrip) {
  ProduceRequest req;
  req.unknown_tags.push_back({7, {0xaa, 0xbb}});
  req.unknown_tags.push_back({300, {}});
  Bytes wire;
  append_message(wire, req, 9);
  ProduceRequest decoded;
  Reader r(wire.data(), wire.size());
  ASSERT_TRUE(decoded.decode(r, 9).ok());
  EXPECT_EQ(decoded.unknown_tags, req.unknown_tags);
  // In a non-flexible version there is no tagged section: the unknown tags are not written.
  Bytes classic;
  append_message(classic, req, 8);
  EXPECT_EQ(classic.size(), req.size(8));
}

}  // namespace
}  // namespace mirra::protocol
