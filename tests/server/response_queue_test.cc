#include "server/response_queue.h"

#include <gtest/gtest.h>

namespace mirra::server {
namespace {

ResponseEntry frame(uint8_t b) { return ResponseEntry{Response(protocol::Bytes{b}), false, {}}; }

TEST(ResponseQueue, LaterCompletionsWaitForTheHead) {
  ResponseQueue q(8, 1 << 20);
  const uint64_t a = q.push(), b = q.push(), c = q.push();
  q.complete(c, frame(3));
  q.complete(b, frame(2));
  EXPECT_FALSE(q.head_ready());
  q.complete(a, frame(1));
  for (uint8_t want = 1; want <= 3; ++want) {
    ASSERT_TRUE(q.head_ready());
    EXPECT_EQ(q.pop().response.bytes[0], want);
  }
  EXPECT_TRUE(q.empty());
}

TEST(ResponseQueue, BoundedByEntriesAndBytes) {
  ResponseQueue q(2, 4);
  q.push();
  EXPECT_FALSE(q.full());
  q.push();
  EXPECT_TRUE(q.full());
  ResponseQueue bytes(100, 4);
  const uint64_t s = bytes.push();
  bytes.complete(s, ResponseEntry{Response(protocol::Bytes{1, 2, 3, 4}), false, {}});
  EXPECT_TRUE(bytes.full());
  bytes.pop();
  EXPECT_FALSE(bytes.full());
}

TEST(ResponseQueue, StaleOrDuplicateCompletionsAreIgnored) {
  ResponseQueue q(8, 1 << 20);
  const uint64_t a = q.push();
  q.complete(a, frame(1));
  q.complete(a, frame(9));
  q.complete(a + 5, frame(9));
  EXPECT_EQ(q.pop().response.bytes[0], 1);
  q.complete(a, frame(9));
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace mirra::server
