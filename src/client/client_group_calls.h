// What the group calls share (private to src/client: client_groups.cc for consumer groups,
// client_share_groups.cc for share groups): reading per-group and per-partition answers, and
// Client::call_group_coordinator(), the one-group call over route_to_coordinators().
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "client/client.h"
#include "client/client_routing.h"

namespace mirra::client::group_calls {

// The errors a group request answers when it reached the wrong broker or one not ready yet.
inline bool coordinator_error(ErrorCode code) {
  return code == ErrorCode::NOT_COORDINATOR || code == ErrorCode::COORDINATOR_NOT_AVAILABLE ||
         code == ErrorCode::COORDINATOR_LOAD_IN_PROGRESS;
}

inline Status no_answer(std::string_view api, std::string_view what, const BrokerConnection& c) {
  return Status(
      ErrorCode::UNKNOWN_SERVER_ERROR,
      fmt::format("the {} response from {} has no answer for {}", api, c.address(), what));
}

// Partitions by topic, for the requests that list topics with their partitions.
inline std::map<std::string, std::vector<int32_t>> by_topic(
    const std::vector<TopicPartition>& tps) {
  std::map<std::string, std::vector<int32_t>> out;
  for (const TopicPartition& tp : tps) out[tp.topic].push_back(tp.partition);
  return out;
}

// What a single-group call keeps per group while it is routed.
template <typename T>
struct GroupOutcome {
  Status status;
  T value{};
};

// A partition answer that is really about the group (old brokers put coordinator errors on
// every partition) becomes the group's status, so that route_to_coordinators retries it.
template <typename Partitions>
Status group_status_of(const Partitions& results) {
  for (const auto& r : results) {
    if (coordinator_error(r.status.code())) return r.status;
  }
  return Status::OK();
}

// The consumer-group messages call a topic's name `Name`, the share-group ones `TopicName`.
template <typename Topic>
const std::string& topic_name_of(const Topic& t) {
  if constexpr (requires { t.topic_name; }) {
    return t.topic_name;
  } else {
    return t.name;
  }
}

// The error message of an answer, for the messages that carry one.
template <typename Answer>
std::optional<std::string> error_message_of(const Answer& a) {
  if constexpr (requires { a.error_message; }) {
    return a.error_message;
  } else {
    return std::nullopt;
  }
}

// Per-partition outcomes of a response (topics with partitions with error codes), in the
// caller's order.
template <typename Topics>
std::vector<PartitionStatus> partition_outcomes(const std::vector<TopicPartition>& asked,
                                                const Topics& topics, std::string_view api,
                                                const BrokerConnection& conn) {
  std::vector<PartitionStatus> out;
  for (const TopicPartition& tp : asked) {
    Status s = no_answer(api, to_string(tp), conn);
    for (const auto& t : topics) {
      if (topic_name_of(t) != tp.topic) continue;
      for (const auto& p : t.partitions) {
        if (p.partition_index == tp.partition) {
          s = status_from(p.error_code, error_message_of(p), to_string(tp));
        }
      }
    }
    out.push_back({tp, std::move(s)});
  }
  return out;
}

// Per-partition answers (each with a `tp`) sorted, then, when partitions were named, in the
// caller's order, `missing(tp)` standing for a partition the broker left out.
template <typename T, typename Missing>
std::vector<T> in_caller_order(std::vector<T> got,
                               const std::optional<std::vector<TopicPartition>>& asked,
                               Missing missing) {
  std::sort(got.begin(), got.end(), [](const T& a, const T& b) { return a.tp < b.tp; });
  if (!asked) return got;
  std::vector<T> out;
  for (const TopicPartition& tp : *asked) {
    auto it = std::lower_bound(got.begin(), got.end(), tp,
                               [](const T& c, const TopicPartition& t) { return c.tp < t; });
    out.push_back(it != got.end() && it->tp == tp ? *it : missing(tp));
  }
  return out;
}

}  // namespace mirra::client::group_calls

namespace mirra::client {

template <typename T, typename Ask>
asio::awaitable<Result<T>> Client::call_group_coordinator(const std::string& group, Ask ask) {
  using Outcome = group_calls::GroupOutcome<T>;
  std::vector<Outcome> results(1);
  auto send_group = [&ask](BrokerConnection& conn, const Coordinator&, const std::vector<size_t>&,
                           std::vector<Outcome>& out) -> asio::awaitable<Status> {
    co_return co_await ask(conn, out[0]);
  };
  const std::vector<std::string> groups(1, group);
  if (Status s = co_await route_to_coordinators(groups, results, send_group); !s.ok()) {
    co_return s;
  }
  if (!results[0].status.ok()) co_return results[0].status;
  co_return std::move(results[0].value);
}

}  // namespace mirra::client
