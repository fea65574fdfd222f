// Crash test: a writer process (crash_writer.cc) appends with flush.messages=1 and prints each
// acknowledged offset; it is killed with SIGKILL after a random number of acknowledgements,
// many times over the same log. After each kill the log is reopened (recovered) and must hold
// every acknowledged record exactly once, in order, with valid batches; the next round's writer
// then recovers it again and carries on.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>

#include "log_test_util.h"

namespace mirra::storage::testing {
namespace {

struct Writer {
  pid_t pid = -1;
  int out = -1;  // the writer's stdout
};

Writer spawn_writer(const fs::path& dir, uint64_t seed) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  Writer w;
  w.pid = ::fork();
  if (w.pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    const std::string seed_text = std::to_string(seed);
    ::execl(MIRRA_CRASH_WRITER, MIRRA_CRASH_WRITER, dir.c_str(), seed_text.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(fds[1]);
  w.out = fds[0];
  return w;
}

// Reads acknowledged offsets until `n` lines arrived; returns the last one (-1: none), or
// nullopt if the writer went quiet for 20 s or died.
std::optional<int64_t> read_acks(int fd, int n) {
  std::string pending;
  int64_t last = -1;
  int lines = 0;
  char buf[4096];
  while (lines < n) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20000) <= 0) return std::nullopt;
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got <= 0) return std::nullopt;
    pending.append(buf, static_cast<size_t>(got));
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      last = std::stoll(pending.substr(0, nl));
      pending.erase(0, nl + 1);
      ++lines;
    }
  }
  return last;
}

LogConfig writer_config() {
  LogConfig c;
  c.flush_messages = 1;
  c.segment_bytes = 16 * 1024;
  c.index_interval_bytes = 512;
  return c;
}

TEST(Crash, KillDuringFsyncedAppendsLosesNothingAcknowledged) {
  TempDir dir;
  const fs::path part = dir.path() / "crash-0";
  std::mt19937_64 rng(std::random_device{}());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int64_t acked = -1;  // highest acknowledged offset over all rounds
  int rounds = 0;
  for (; rounds < 30 && std::chrono::steady_clock::now() < deadline; ++rounds) {
    SCOPED_TRACE("round " + std::to_string(rounds));
    Writer w = spawn_writer(part, rng());
    const int n = 1 + static_cast<int>(rng() % 40);
    auto last = read_acks(w.out, n);
    ::kill(w.pid, SIGKILL);
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    ::close(w.out);
    ASSERT_TRUE(last) << "writer stalled or died before " << n << " acknowledgements";
    acked = std::max(acked, *last);

    auto log = open_log(part, writer_config());
    ASSERT_NE(log, nullptr);
    ASSERT_GT(log->log_end_offset(), acked);
    const auto values = read_values(*log);
    ASSERT_EQ(static_cast<int64_t>(values.size()), log->log_end_offset());
    for (size_t i = 0; i < values.size(); ++i) {
      const std::string v = values[i].substr(0, values[i].find(' '));
      ASSERT_EQ(v, std::to_string(i)) << "record " << i;
    }
  }
  EXPECT_GE(rounds, 10);
  auto log = open_log(part, writer_config());
  EXPECT_GT(log->segment_count(), 1u) << "the test should cross segment rolls";
}

}  // namespace
}  // namespace mirra::storage::testing
