// SharePartition (share/share_partition.h): acquisition, acknowledgement of each type, locks,
// the delivery-count limit, the start offset's advance, and what is refused.
#include "share/share_partition.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

namespace mirra::share {
namespace {

constexpr int64_t kNow = 1'000'000;
const ShareLimits kLimits{
    .lock_duration_ms = 30'000, .delivery_count_limit = 3, .max_in_flight = 10};

using Ranges = std::vector<AcquiredRange>;
const std::vector<AckType> kAccept{AckType::accept};
const std::vector<AckType> kRelease{AckType::release};
const std::vector<AckType> kReject{AckType::reject};

TEST(SharePartition, AcquiresNewRecordsUpToTheReadableEnd) {
  SharePartition p(5);
  EXPECT_EQ(p.acquire("a", 0, 9, 100, kNow, kLimits), (Ranges{{5, 8, 1}}));
  EXPECT_EQ(p.acquire("b", 0, 9, 100, kNow, kLimits), Ranges{});  // nothing left to hand out
  EXPECT_EQ(p.start_offset(), 5);
  EXPECT_EQ(p.end_offset(), 9);
  EXPECT_EQ(p.state(6), RecordState::acquired);
  EXPECT_EQ(p.delivery_count(6), 1);
}

TEST(SharePartition, MaxRecordsAndTheInFlightLimitBoundAcquisition) {
  SharePartition p(0);
  EXPECT_EQ(p.acquire("a", 0, 100, 4, kNow, kLimits), (Ranges{{0, 3, 1}}));
  EXPECT_EQ(p.acquire("b", 0, 100, 100, kNow, kLimits), (Ranges{{4, 9, 1}}));  // 10 in flight
  EXPECT_EQ(p.acquire("c", 0, 100, 100, kNow, kLimits), Ranges{});
  ASSERT_EQ(p.acknowledge("a", 0, 3, kAccept, kNow, kLimits), ErrorCode::NONE);
  EXPECT_EQ(p.start_offset(), 4);
  EXPECT_EQ(p.acquire("c", 0, 100, 100, kNow, kLimits), (Ranges{{10, 13, 1}}));
}

TEST(SharePartition, AcceptAndRejectFinishRecordsAndMoveTheStart) {
  SharePartition p(0);
  p.acquire("a", 0, 4, 100, kNow, kLimits);
  ASSERT_EQ(p.acknowledge("a", 1, 1, kReject, kNow, kLimits), ErrorCode::NONE);
  EXPECT_EQ(p.start_offset(), 0);  // 0 is still out
  EXPECT_EQ(p.state(1), RecordState::archived);
  ASSERT_EQ(p.acknowledge("a", 0, 0, kAccept, kNow, kLimits), ErrorCode::NONE);
  EXPECT_EQ(p.start_offset(), 2);  // over 0 (accepted) and 1 (rejected)
  EXPECT_EQ(p.in_flight(), 2u);
}

TEST(SharePartition, ReleasedRecordsAreDeliveredAgainFirst) {
  SharePartition p(0);
  p.acquire("a", 0, 4, 100, kNow, kLimits);
  ASSERT_EQ(p.acknowledge("a", 1, 2, kRelease, kNow, kLimits), ErrorCode::NONE);
  EXPECT_EQ(p.state(1), RecordState::available);
  EXPECT_EQ(p.acquire("b", 0, 6, 100, kNow, kLimits), (Ranges{{1, 2, 2}, {4, 5, 1}}));
}

TEST(SharePartition, AcquisitionStartsWhereTheCallersReadStarts) {
  const ShareLimits limits{.lock_duration_ms = 100, .delivery_count_limit = 5, .max_in_flight = 6};
  SharePartition p(0);
  EXPECT_EQ(p.first_acquirable(limits), 0);
  EXPECT_EQ(p.next_deadline(), INT64_MAX);
  p.acquire("a", 0, 4, 100, kNow, limits);
  EXPECT_EQ(p.next_deadline(), kNow + 100);
  ASSERT_EQ(p.acknowledge("a", 1, 1, {AckType::release}, kNow, limits), ErrorCode::NONE);
  EXPECT_EQ(p.first_acquirable(limits), 1);
  // A read that begins at 2 holds neither offset 1 nor anything past the end at 4 unless the
  // end is reached by it: offset 1 stays for a later fetch.
  EXPECT_EQ(p.acquire("b", 2, 10, 100, kNow, limits), (Ranges{{4, 5, 1}}));
  EXPECT_EQ(p.acquire("b", 7, 10, 100, kNow, limits), Ranges{});  // 6 would be skipped
  EXPECT_EQ(p.acquire("b", 1, 10, 100, kNow, limits), (Ranges{{1, 1, 2}}));
  EXPECT_EQ(p.first_acquirable(limits), -1);  // six in flight, none Available
}

TEST(SharePartition, PerOffsetTypesInOneBatch) {
  SharePartition p(0);
  p.acquire("a", 0, 4, 100, kNow, kLimits);
  ASSERT_EQ(p.acknowledge("a", 0, 3,
                          {AckType::accept, AckType::gap, AckType::release, AckType::reject}, kNow,
                          kLimits),
            ErrorCode::NONE);
  EXPECT_EQ(p.start_offset(), 2);
  EXPECT_EQ(p.state(2), RecordState::available);
  EXPECT_EQ(p.state(3), RecordState::archived);
}

TEST(SharePartition, OnlyTheHolderMayAcknowledgeAndNothingChangesOnARefusal) {
  SharePartition p(0);
  p.acquire("a", 0, 2, 1, kNow, kLimits);
  p.acquire("b", 0, 2, 1, kNow, kLimits);
  // Offset 1 is b's: the whole batch is refused, offset 0 stays acquired by a.
  EXPECT_EQ(p.acknowledge("a", 0, 1, kAccept, kNow, kLimits), ErrorCode::INVALID_RECORD_STATE);
  EXPECT_EQ(p.state(0), RecordState::acquired);
  EXPECT_EQ(p.acknowledge("a", 0, 0, kAccept, kNow, kLimits), ErrorCode::NONE);
  // Finished, beyond the end, and never-acquired offsets.
  EXPECT_EQ(p.acknowledge("a", 0, 0, kAccept, kNow, kLimits), ErrorCode::INVALID_RECORD_STATE);
  EXPECT_EQ(p.acknowledge("b", 1, 5, kAccept, kNow, kLimits), ErrorCode::INVALID_RECORD_STATE);
}

TEST(SharePartition, MalformedBatchesAreInvalidRequests) {
  SharePartition p(0);
  p.acquire("a", 0, 4, 100, kNow, kLimits);
  EXPECT_EQ(p.acknowledge("a", 2, 1, kAccept, kNow, kLimits), ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(p.acknowledge("a", 0, 1, {}, kNow, kLimits), ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(p.acknowledge("a", 0, 2, {AckType::accept, AckType::accept}, kNow, kLimits),
            ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(p.acknowledge("a", 0, 0, {static_cast<AckType>(9)}, kNow, kLimits),
            ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(p.acknowledge("a", -1, 0, kAccept, kNow, kLimits), ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(p.acknowledge("a", 0, INT64_MAX, {AckType::accept, AckType::accept}, kNow, kLimits),
            ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(p.in_flight(), 4u);
  EXPECT_EQ(p.state(0), RecordState::acquired);
}

TEST(SharePartition, ExpiredLocksReturnRecordsAndRenewKeepsThem) {
  SharePartition p(0);
  p.acquire("a", 0, 2, 100, kNow, kLimits);
  ASSERT_EQ(p.acknowledge("a", 1, 1, {AckType::renew}, kNow + 20'000, kLimits), ErrorCode::NONE);
  p.expire_locks(kNow + 30'000, kLimits);
  EXPECT_EQ(p.state(0), RecordState::available);  // its lock ran out
  EXPECT_EQ(p.state(1), RecordState::acquired);   // renewed until kNow + 50'000
  EXPECT_EQ(p.delivery_count(1), 1);              // a renewal is not a delivery
  p.expire_locks(kNow + 50'000, kLimits);
  EXPECT_EQ(p.state(1), RecordState::available);
  // A late acknowledgement of an expired lock is refused.
  EXPECT_EQ(p.acknowledge("a", 1, 1, kAccept, kNow + 50'001, kLimits),
            ErrorCode::INVALID_RECORD_STATE);
}

TEST(SharePartition, TheDeliveryCountLimitArchives) {
  SharePartition p(0);
  for (int16_t delivery = 1; delivery <= kLimits.delivery_count_limit; ++delivery) {
    EXPECT_EQ(p.acquire("a", 0, 1, 1, kNow, kLimits), (Ranges{{0, 0, delivery}}));
    ASSERT_EQ(p.acknowledge("a", 0, 0, kRelease, kNow, kLimits), ErrorCode::NONE);
  }
  EXPECT_EQ(p.state(0), RecordState::archived);
  EXPECT_EQ(p.start_offset(), 1);
  EXPECT_EQ(p.acquire("a", 0, 1, 1, kNow, kLimits), Ranges{});
}

TEST(SharePartition, ALeavingMemberGivesBackWhatItHolds) {
  SharePartition p(0);
  p.acquire("a", 0, 2, 2, kNow, kLimits);
  p.acquire("b", 0, 4, 2, kNow, kLimits);
  p.release_member("a", kLimits);
  EXPECT_EQ(p.state(0), RecordState::available);
  EXPECT_EQ(p.state(2), RecordState::acquired);
  EXPECT_EQ(p.acquire("b", 0, 4, 10, kNow, kLimits), (Ranges{{0, 1, 2}}));
}

TEST(SharePartition, LogStartAndResetMoveTheWindow) {
  SharePartition p(0);
  p.acquire("a", 0, 6, 100, kNow, kLimits);
  p.advance_log_start(4);
  EXPECT_EQ(p.start_offset(), 4);
  EXPECT_EQ(p.in_flight(), 2u);
  EXPECT_EQ(p.acknowledge("a", 2, 2, kAccept, kNow, kLimits), ErrorCode::INVALID_RECORD_STATE);
  p.advance_log_start(20);  // past everything handed out
  EXPECT_EQ(p.start_offset(), 20);
  EXPECT_EQ(p.end_offset(), 20);
  p.reset(7);
  EXPECT_EQ(p.start_offset(), 7);
  EXPECT_EQ(p.acquire("a", 0, 9, 100, kNow, kLimits), (Ranges{{7, 8, 1}}));
}

}  // namespace
}  // namespace mirra::share

namespace mirra::share {
namespace {

// A per-offset model of the same rules, written the plain way, against which random operation
// sequences check SharePartition (its ranges, start and locks).
struct Model {
  struct R {
    RecordState state = RecordState::available;
    int16_t count = 0;
    std::string member;
    int64_t deadline = 0;
  };
  std::map<int64_t, R> r;  // every offset ever handed out
  int64_t end = 0;

  int64_t start() const {
    int64_t s = 0;
    while (s < end &&
           (r.at(s).state == RecordState::acknowledged || r.at(s).state == RecordState::archived)) {
      ++s;
    }
    return s;
  }
  void give_back(R& x, const ShareLimits& l) {
    x = R{x.count >= l.delivery_count_limit ? RecordState::archived : RecordState::available,
          x.count,
          {},
          0};
  }
};

TEST(SharePartitionModel, RandomOperationsAgreeWithAPerOffsetModel) {
  const ShareLimits limits{.lock_duration_ms = 100, .delivery_count_limit = 3, .max_in_flight = 8};
  const std::vector<std::string> members{"a", "b", "c"};
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint32_t>(n)); };
    SharePartition p(0);
    Model m;
    int64_t now = 0;
    for (int step = 0; step < 300; ++step) {
      now += pick(40);
      const std::string& who = members[static_cast<size_t>(pick(3))];
      switch (pick(4)) {
        case 0: {  // acquire
          const int64_t from = pick(3) == 0 ? pick(30) : 0, readable = pick(30), max = 1 + pick(5);
          p.acquire(who, from, readable, max, now, limits);
          int64_t taken = 0;
          for (auto& [o, x] : m.r) {
            if (taken < max && o >= from && o < readable && o >= m.start() &&
                x.state == RecordState::available) {
              x = Model::R{RecordState::acquired, static_cast<int16_t>(x.count + 1), who,
                           now + limits.lock_duration_ms};
              ++taken;
            }
          }
          while (taken < max && m.end >= from && m.end < readable &&
                 m.end - m.start() < limits.max_in_flight) {
            m.r[m.end] = Model::R{RecordState::acquired, 1, who, now + limits.lock_duration_ms};
            ++m.end;
            ++taken;
          }
          break;
        }
        case 1: {  // acknowledge one offset
          const int64_t o = pick(30);
          const auto type = static_cast<AckType>(pick(5));
          const ErrorCode got = p.acknowledge(who, o, o, {type}, now, limits);
          auto it = m.r.find(o);
          const bool in = it != m.r.end() && o >= m.start();
          const bool held = in && it->second.state == RecordState::acquired &&
                            it->second.member == who;
          const bool gap = in && type == AckType::gap && it->second.state == RecordState::available;
          ASSERT_EQ(got, held || gap ? ErrorCode::NONE : ErrorCode::INVALID_RECORD_STATE)
              << "seed " << seed << " step " << step;
          if (got != ErrorCode::NONE) break;
          Model::R& x = it->second;
          if (type == AckType::accept) x = Model::R{RecordState::acknowledged, x.count, {}, 0};
          if (type == AckType::release) m.give_back(x, limits);
          if (type == AckType::reject || type == AckType::gap) {
            x = Model::R{RecordState::archived, x.count, {}, 0};
          }
          if (type == AckType::renew) x.deadline = now + limits.lock_duration_ms;
          break;
        }
        case 2:  // locks
          p.expire_locks(now, limits);
          for (auto& [o, x] : m.r) {
            if (x.state == RecordState::acquired && x.deadline <= now) m.give_back(x, limits);
          }
          break;
        default:  // a member leaves
          p.release_member(who, limits);
          for (auto& [o, x] : m.r) {
            if (x.state == RecordState::acquired && x.member == who) m.give_back(x, limits);
          }
      }
      ASSERT_EQ(p.start_offset(), m.start()) << "seed " << seed << " step " << step;
      ASSERT_EQ(p.end_offset(), m.end) << "seed " << seed << " step " << step;
      for (int64_t o = m.start(); o < m.end; ++o) {
        ASSERT_EQ(p.state(o), m.r.at(o).state) << "seed " << seed << " offset " << o;
        ASSERT_EQ(p.delivery_count(o), m.r.at(o).count) << "seed " << seed << " offset " << o;
      }
    }
  }
}

}  // namespace
}  // namespace mirra::share
