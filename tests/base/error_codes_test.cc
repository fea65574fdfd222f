#include "base/error_codes.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mirra {
namespace {

TEST(ErrorCodes, EveryRowHasUniqueNumberAndName) {
  std::set<int16_t> numbers;
  std::set<std::string_view> names;
  for (const ErrorInfo& e : all_errors()) {
    EXPECT_TRUE(numbers.insert(error_number(e.code)).second) << e.name;
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    EXPECT_FALSE(e.name.empty());
  }
  EXPECT_EQ(numbers.size(), all_errors().size());
}

TEST(ErrorCodes, RowsAreSortedAndKafkaRangeHasNoGaps) {
  auto rows = all_errors();
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(error_number(rows.front().code), -1);
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_LT(error_number(rows[i - 1].code), error_number(rows[i].code));
  }
  // Kafka's codes: -1 .. 133 contiguous.
  for (int n = -1; n <= 133; ++n) {
    EXPECT_NE(find_error(static_cast<int16_t>(n)), nullptr) << n;
  }
  EXPECT_EQ(max_error_number(), 146);
}

TEST(ErrorCodes, EveryErrorHasAMessageExceptNone) {
  for (const ErrorInfo& e : all_errors()) {
    if (e.code == ErrorCode::NONE) {
      EXPECT_TRUE(e.message.empty());
    } else {
      EXPECT_FALSE(e.message.empty()) << e.name;
    }
  }
}

TEST(ErrorCodes, MirroringCodesHaveExactNumbers) {
  const std::vector<std::pair<ErrorCode, int>> expected = {
      {ErrorCode::READ_ONLY_TOPIC, 134},
      {ErrorCode::INVALID_MIRROR_NAME, 135},
      {ErrorCode::MIRROR_ALREADY_EXISTS, 136},
      {ErrorCode::UNKNOWN_MIRROR, 137},
      {ErrorCode::TOPIC_ALREADY_IN_MIRROR, 138},
      {ErrorCode::TOPIC_NOT_IN_MIRROR, 139},
      {ErrorCode::MIRROR_TOPIC_ALREADY_PAUSED, 140},
      {ErrorCode::MIRROR_TOPIC_NOT_PAUSED, 141},
      {ErrorCode::MIRROR_TOPIC_BEING_STOPPED, 142},
      {ErrorCode::MIRROR_NOT_EMPTY, 143},
      {ErrorCode::INVALID_MIRROR_STATE, 145},
      {ErrorCode::MIRROR_TOPIC_NOT_STOPPED, 146},
  };
  for (const auto& [code, number] : expected) {
    EXPECT_EQ(error_number(code), number) << error_name(code);
    EXPECT_FALSE(error_retriable(code)) << error_name(code);
    ASSERT_NE(find_error(static_cast<int16_t>(number)), nullptr);
    EXPECT_EQ(find_error(static_cast<int16_t>(number))->code, code);
  }
  EXPECT_EQ(find_error(144), nullptr);
  // Exactly the twelve codes above live past Kafka's range.
  int past_kafka = 0;
  for (const ErrorInfo& e : all_errors()) past_kafka += error_number(e.code) > 133;
  EXPECT_EQ(past_kafka, 12);
}

TEST(ErrorCodes, FindErrorKnownAndUnknown) {
  const ErrorInfo* e = find_error(3);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_EQ(e->name, "UNKNOWN_TOPIC_OR_PARTITION");
  EXPECT_TRUE(e->retriable);

  for (int16_t n :
       {int16_t{-32768}, int16_t{-2}, int16_t{144}, int16_t{147}, int16_t{1000}, int16_t{32767}}) {
    EXPECT_EQ(find_error(n), nullptr) << n;
  }
}

TEST(ErrorCodes, NameMessageRetriableForUnknownNumbers) {
  const auto unknown = static_cast<ErrorCode>(int16_t{999});
  EXPECT_EQ(error_name(unknown), "UNKNOWN_CODE");
  EXPECT_FALSE(error_message(unknown).empty());
  EXPECT_FALSE(error_retriable(unknown));
  EXPECT_EQ(error_number(unknown), 999);
}

TEST(ErrorCodes, ErrorFromNumber) {
  EXPECT_EQ(error_from_number(0), ErrorCode::NONE);
  EXPECT_EQ(error_from_number(35), ErrorCode::UNSUPPORTED_VERSION);
  EXPECT_EQ(error_from_number(137), ErrorCode::UNKNOWN_MIRROR);
  EXPECT_EQ(error_from_number(144), ErrorCode::UNKNOWN_SERVER_ERROR);
  EXPECT_EQ(error_from_number(-7), ErrorCode::UNKNOWN_SERVER_ERROR);
  EXPECT_EQ(error_from_number(4000), ErrorCode::UNKNOWN_SERVER_ERROR);
}

struct Spot {
  int number;
  std::string_view name;
  bool retriable;
};

TEST(ErrorCodes, SpotChecksAgainstKafka) {
  const Spot spots[] = {
      {-1, "UNKNOWN_SERVER_ERROR", false},
      {0, "NONE", false},
      {1, "OFFSET_OUT_OF_RANGE", false},
      {2, "CORRUPT_MESSAGE", true},
      {3, "UNKNOWN_TOPIC_OR_PARTITION", true},
      {6, "NOT_LEADER_OR_FOLLOWER", true},
      {7, "REQUEST_TIMED_OUT", true},
      {15, "COORDINATOR_NOT_AVAILABLE", true},
      {16, "NOT_COORDINATOR", true},
      {25, "UNKNOWN_MEMBER_ID", false},
      {27, "REBALANCE_IN_PROGRESS", false},
      {35, "UNSUPPORTED_VERSION", false},
      {36, "TOPIC_ALREADY_EXISTS", false},
      {41, "NOT_CONTROLLER", true},
      {42, "INVALID_REQUEST", false},
      {45, "OUT_OF_ORDER_SEQUENCE_NUMBER", false},
      {47, "INVALID_PRODUCER_EPOCH", false},
      {51, "CONCURRENT_TRANSACTIONS", true},
      {56, "KAFKA_STORAGE_ERROR", true},
      {59, "UNKNOWN_PRODUCER_ID", false},
      {74, "FENCED_LEADER_EPOCH", true},
      {76, "UNSUPPORTED_COMPRESSION_TYPE", false},
      {79, "MEMBER_ID_REQUIRED", false},
      {89, "THROTTLING_QUOTA_EXCEEDED", true},
      {90, "PRODUCER_FENCED", false},
      {100, "UNKNOWN_TOPIC_ID", true},
      {109, "OFFSET_MOVED_TO_TIERED_STORAGE", false},
      {110, "FENCED_MEMBER_EPOCH", false},
      {120, "TRANSACTION_ABORTABLE", false},
      {121, "INVALID_RECORD_STATE", false},
      {122, "SHARE_SESSION_NOT_FOUND", true},
      {123, "INVALID_SHARE_SESSION_EPOCH", true},
      {129, "REBOOTSTRAP_REQUIRED", false},
      {132, "STREAMS_TOPOLOGY_FENCED", false},
      {133, "SHARE_SESSION_LIMIT_REACHED", true},
  };
  for (const Spot& s : spots) {
    const ErrorInfo* e = find_error(static_cast<int16_t>(s.number));
    ASSERT_NE(e, nullptr) << s.number;
    EXPECT_EQ(e->name, s.name) << s.number;
    EXPECT_EQ(e->retriable, s.retriable) << s.name;
    EXPECT_EQ(error_name(e->code), s.name);
    EXPECT_EQ(error_retriable(e->code), s.retriable);
  }
}

TEST(ErrorCodes, RetriableSetMatchesKafka) {
  // Every code whose Kafka exception extends RetriableException (Kafka 4.2).
  const std::set<int> retriable = {2,  3,  5,  6,  7,   9,   13,  14,  15,  16, 19,
                                   20, 41, 51, 56, 70,  71,  72,  74,  75,  78, 80,
                                   83, 84, 88, 89, 100, 103, 106, 122, 123, 133};
  for (const ErrorInfo& e : all_errors()) {
    EXPECT_EQ(e.retriable, retriable.count(error_number(e.code)) == 1) << e.name;
  }
}

}  // namespace
}  // namespace mirra
