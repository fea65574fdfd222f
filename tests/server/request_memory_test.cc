// The broker-wide bound on memory held by requests (server/request_memory.h), with coroutines
// standing in for connections on one io_context.
#include "server/request_memory.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mirra::server {
namespace {

struct Waiter {
  explicit Waiter(asio::io_context& io) : wake(io) {}
  asio::steady_timer wake;
  bool stop = false;
  std::optional<RequestMemory::Reservation> got;
  bool done = false;
};

// Runs what is ready; restart() first, as poll() leaves the context stopped when it ran out
// of work.
void poll(asio::io_context& io) {
  io.restart();
  io.poll();
}

void reserve(asio::io_context& io, std::shared_ptr<RequestMemory> pool, Waiter& w, int64_t bytes,
             std::vector<std::string>& order, std::string name) {
  asio::co_spawn(
      io,
      [&, pool, bytes, name]() -> asio::awaitable<void> {
        w.got = co_await pool->reserve(bytes, w.wake, [&w] { return w.stop; });
        w.done = true;
        order.push_back(name);
      },
      asio::detached);
}

TEST(RequestMemory, WaitsForReleaseInArrivalOrder) {
  asio::io_context io;
  auto pool = std::make_shared<RequestMemory>(100);
  Waiter a(io), b(io), c(io);
  std::vector<std::string> order;
  reserve(io, pool, a, 80, order, "a");
  poll(io);
  ASSERT_TRUE(a.done && a.got);
  reserve(io, pool, b, 50, order, "b");  // does not fit: waits
  reserve(io, pool, c, 10, order, "c");  // would fit, but waits behind b
  poll(io);
  EXPECT_FALSE(b.done);
  EXPECT_FALSE(c.done);
  EXPECT_EQ(pool->held(), 80);
  EXPECT_EQ(pool->waiting(), 2u);
  a.got.reset();  // the request's handler finished
  poll(io);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(pool->held(), 60);
  b.got.reset();
  c.got.reset();
  EXPECT_EQ(pool->held(), 0);
}

TEST(RequestMemory, ARequestLargerThanTheBoundGoesAloneAndAStoppedWaiterLeaves) {
  asio::io_context io;
  auto pool = std::make_shared<RequestMemory>(100);
  Waiter big(io), gone(io), next(io);
  std::vector<std::string> order;
  reserve(io, pool, big, 500, order, "big");
  poll(io);
  ASSERT_TRUE(big.got);  // nothing else held: admitted
  reserve(io, pool, gone, 10, order, "gone");
  reserve(io, pool, next, 10, order, "next");
  poll(io);
  EXPECT_EQ(pool->waiting(), 2u);
  gone.stop = true;  // its connection closes
  gone.wake.cancel();
  poll(io);
  EXPECT_TRUE(gone.done);
  EXPECT_FALSE(gone.got);
  EXPECT_FALSE(next.done);
  big.got.reset();
  poll(io);
  EXPECT_TRUE(next.got);
  EXPECT_EQ(pool->held(), 10);
}

TEST(RequestMemory, UnboundedNeverWaits) {
  asio::io_context io;
  auto pool = std::make_shared<RequestMemory>(RequestMemory::kUnbounded);
  std::vector<Waiter> ws;
  ws.reserve(5);
  std::vector<std::string> order;
  for (int i = 0; i < 5; ++i) reserve(io, pool, ws.emplace_back(io), 1 << 30, order, "w");
  poll(io);
  EXPECT_EQ(order.size(), 5u);
  EXPECT_EQ(pool->held(), 5LL << 30);
}

}  // namespace
}  // namespace mirra::server
