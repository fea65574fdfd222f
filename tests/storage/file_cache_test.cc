// Bounded open files (storage/file_cache.h) and the clean-shutdown open (no recovery, no
// writes): issue 15, points 6 and 13.
#include <sys/resource.h>
#include <sys/stat.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "log_test_util.h"
#include "storage/file_cache.h"

namespace mirra::storage {
namespace {

using testing::make_batch;
using testing::read_all;
using testing::TempDir;
namespace fs = std::filesystem;

size_t open_fds() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

// Lowers the soft RLIMIT_NOFILE for one test and sizes the cache from it, as the broker does
// at start-up; both are restored at the end.
class LowFileLimit {
 public:
  explicit LowFileLimit(rlim_t soft) {
    EXPECT_EQ(::getrlimit(RLIMIT_NOFILE, &saved_), 0);
    rlimit low = saved_;
    low.rlim_cur = soft;
    EXPECT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
    saved_capacity_ = FileCache::instance().capacity();
    FileCache::instance().set_capacity(FileCache::default_capacity());
  }
  ~LowFileLimit() {
    FileCache::instance().set_capacity(saved_capacity_);
    ::setrlimit(RLIMIT_NOFILE, &saved_);
  }

 private:
  rlimit saved_{};
  size_t saved_capacity_ = 0;
};

TEST(FileCache, CapacityFollowsTheProcessLimit) {
  LowFileLimit limit(200);
  EXPECT_EQ(FileCache::default_capacity(), 100u);
  EXPECT_EQ(FileCache::instance().capacity(), 100u);
}

// The case, scaled down: many more partitions than the limit allows descriptors for
// (each has a .log, an .index and a .timeindex). Every one opens, takes an append and reads it
// back, and the process never holds more than the cache's share of the limit.
TEST(FileCache, ManyMorePartitionsThanDescriptors) {
  TempDir dir;
  LowFileLimit limit(128);
  const size_t baseline = open_fds();
  std::vector<std::unique_ptr<PartitionLog>> logs;
  for (int p = 0; p < 160; ++p) {
    auto log = PartitionLog::open(dir.path() / ("t-" + std::to_string(p)), LogConfig{});
    ASSERT_TRUE(log) << "partition " << p << ": " << log.status().to_string();
    auto batch = make_batch({.records = 2, .value_prefix = "p" + std::to_string(p)});
    ASSERT_TRUE((*log)->append_as_leader(batch, 0, AppendOrigin::client, 1000));
    logs.push_back(std::move(log.value()));
  }
  for (auto& log : logs) {
    ASSERT_EQ(read_all(*log).size(), 1u);
    ASSERT_TRUE(log->flush());
  }
  EXPECT_LE(FileCache::instance().size(), FileCache::instance().capacity());
  EXPECT_LE(open_fds(), baseline + FileCache::instance().capacity());
  for (auto& log : logs) ASSERT_TRUE(log->close());
}

// A slice holds its descriptor: evicting the segment's cache entry, then deleting the segment,
// does not take the bytes from under a reader (the network thread sends them later).
TEST(FileCache, SliceSurvivesEvictionAndDeletion) {
  // A small cache, so filling it takes a few dozen logs whatever the machine's `ulimit -n`
  // (at 20000 it took 5000 fsynced logs and 45 s).
  LowFileLimit limit(200);
  TempDir dir;
  auto log = PartitionLog::open(dir.path() / "a-0", LogConfig{});
  ASSERT_TRUE(log);
  auto batch = make_batch({.records = 3, .value_prefix = "kept"});
  ASSERT_TRUE((*log)->append_as_leader(batch, 0, AppendOrigin::client, 1000));
  auto read = (*log)->read(0, 1 << 20, ReadBound::log_end, true);
  ASSERT_TRUE(read);
  ASSERT_EQ(read->slices.size(), 1u);
  const auto want = testing::slurp(*read);

  // Fill the cache with other files until the slice's entry is surely gone.
  std::vector<std::unique_ptr<PartitionLog>> others;
  for (size_t i = 0; i < FileCache::instance().capacity() / 2 + 4; ++i) {
    auto other = PartitionLog::open(dir.path() / ("b-" + std::to_string(i)), LogConfig{});
    ASSERT_TRUE(other);
    ASSERT_TRUE((*other)->append_as_leader(batch, 0, AppendOrigin::client, 1000));
    others.push_back(std::move(other.value()));
  }
  ASSERT_TRUE((*log)->close());
  log->reset();
  fs::remove_all(dir.path() / "a-0");
  EXPECT_EQ(testing::slurp(*read), want);
}

// ---- clean shutdown ----------------------------------------------------------------------------

struct FileState {
  ino_t inode;
  int64_t mtime_ns;
  int64_t size;
  bool operator==(const FileState&) const = default;
};

std::map<std::string, FileState> files_of(const fs::path& dir) {
  std::map<std::string, FileState> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    struct stat st {};
    EXPECT_EQ(::stat(e.path().c_str(), &st), 0);
    out[e.path().filename().string()] = {
        st.st_ino, st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, st.st_size};
  }
  return out;
}

// After close(), an open with clean_shutdown scans nothing and writes nothing, also for an
// empty log and for one whose active segment is empty after a roll (before, both were
// "recovered" at every start: their indexes truncated and fsynced).
TEST(CleanShutdown, OpenScansAndWritesNothing) {
  TempDir dir;
  LogConfig small;
  small.segment_bytes = 200;  // a few batches per segment: several segments, the last empty
  const fs::path empty = dir.path() / "empty-0", full = dir.path() / "full-0";
  int64_t leo = 0;
  {
    auto e = PartitionLog::open(empty, LogConfig{});
    ASSERT_TRUE(e);
    auto f = PartitionLog::open(full, small);
    ASSERT_TRUE(f);
    for (int i = 0; i < 6; ++i) {
      auto batch = make_batch({.records = 2, .leader_epoch = 0});
      ASSERT_TRUE((*f)->append_as_leader(batch, 0, AppendOrigin::client, 1000));
    }
    ASSERT_GT((*f)->segment_count(), 2u);
    leo = (*f)->log_end_offset();
    ASSERT_TRUE((*e)->close());
    ASSERT_TRUE((*f)->close());
  }
  const auto empty_before = files_of(empty), full_before = files_of(full);

  LogOpenOptions clean;
  clean.clean_shutdown = true;  // the recovery point is left at 0: the marker alone decides
  auto e = PartitionLog::open(empty, LogConfig{}, clean);
  ASSERT_TRUE(e);
  auto f = PartitionLog::open(full, small, clean);
  ASSERT_TRUE(f);
  EXPECT_EQ((*e)->recovered_segments(), 0u);
  EXPECT_EQ((*f)->recovered_segments(), 0u);
  EXPECT_EQ((*f)->log_end_offset(), leo);
  EXPECT_EQ(read_all(**f).size(), 6u);
  EXPECT_EQ(files_of(empty), empty_before);
  EXPECT_EQ(files_of(full), full_before);
  ASSERT_TRUE((*e)->close());
  ASSERT_TRUE((*f)->close());

  // Without the marker and without a recovery point, the same logs are scanned.
  auto again = PartitionLog::open(full, small);
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)->recovered_segments(), (*again)->segment_count());
  EXPECT_EQ((*again)->log_end_offset(), leo);
}

}  // namespace
}  // namespace mirra::storage
