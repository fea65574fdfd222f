// The retry loops behind Client's calls (private to src/client: included by its .cc files).
//
// route(): one round sends each pending partition to its leader, grouped per broker; the
// partitions that failed retriably are retried in the next round with fresh metadata and a
// growing backoff, until options.retry_timeout. send_admin(): the same for one admin request.
// route_to_coordinators(): the same for groups and transactional ids, by coordinator.
// ask_broker(): the same for one request to one broker.
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <set>
#include <type_traits>

#include "base/log.h"
#include "client/client.h"

namespace mirra::client {
namespace routing {

using Clock = std::chrono::steady_clock;

// UNKNOWN_TOPIC_OR_PARTITION is retried only briefly: right after a topic is created some
// brokers may not know it yet, but a topic that really does not exist should fail fast.
inline bool should_retry(const Status& s, Clock::time_point start, const ClientOptions& o) {
  if (s.ok()) return false;
  if (s.code() == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION) {
    return Clock::now() - start < o.unknown_topic_retry;
  }
  return error_retriable(s.code());
}

inline bool out_of_time(Clock::time_point start, const ClientOptions& o) {
  return Clock::now() - start + o.retry_backoff >= o.retry_timeout;
}

// The leader of a partition per the cache, or why there is none.
inline Status leader_of(const ClusterMetadata& md, const TopicPartition& tp, int32_t& leader) {
  const TopicInfo* t = md.topic(tp.topic);
  if (t == nullptr) {
    return Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                  fmt::format("topic {} does not exist", tp.topic));
  }
  if (t->error != ErrorCode::NONE) {
    return status_from(error_number(t->error), std::nullopt, "topic " + tp.topic);
  }
  const PartitionInfo* p = t->partition(tp.partition);
  if (p == nullptr) {
    return Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                  fmt::format("topic {} has no partition {} ({} partitions)", tp.topic,
                              tp.partition, t->partitions.size()));
  }
  if (p->leader < 0) {
    return Status(ErrorCode::LEADER_NOT_AVAILABLE,
                  fmt::format("partition {} has no leader", to_string(tp)));
  }
  leader = p->leader;
  return Status::OK();
}

// Splits `indexes` into requests that name each partition at most once (brokers refuse or
// merge duplicates, e.g. earliest and latest offsets of one partition), keeping caller order.
template <typename Item>
std::vector<std::vector<size_t>> unique_layers(const std::vector<Item>& items,
                                               const std::vector<size_t>& indexes) {
  std::vector<std::vector<size_t>> layers;
  std::map<TopicPartition, size_t> seen;  // partition -> layers used so far
  for (size_t i : indexes) {
    const size_t layer = seen[items[i].tp]++;
    if (layer == layers.size()) layers.emplace_back();
    layers[layer].push_back(i);
  }
  return layers;
}

// The errors after which a group's coordinator must be looked up again (the cached one moved or
// cannot be reached). COORDINATOR_LOAD_IN_PROGRESS is not one: the coordinator is right, only
// not ready yet.
inline bool coordinator_moved(ErrorCode code) {
  return code == ErrorCode::NOT_COORDINATOR || code == ErrorCode::COORDINATOR_NOT_AVAILABLE ||
         code == ErrorCode::NETWORK_EXCEPTION || code == ErrorCode::REQUEST_TIMED_OUT;
}

}  // namespace routing

template <typename Out, typename Item, typename SendGroup>
asio::awaitable<Result<std::vector<Out>>> Client::route(std::vector<Item>& items,
                                                        SendGroup send_group) {
  const auto start = routing::Clock::now();
  std::vector<Out> results(items.size());
  std::vector<size_t> todo;
  for (size_t i = 0; i < items.size(); ++i) {
    results[i].tp = items[i].tp;
    todo.push_back(i);
  }
  for (int round = 0;; ++round) {
    std::set<std::string> topics;
    for (size_t i : todo) topics.insert(items[i].tp.topic);
    bool refresh = metadata_stale_;
    for (const auto& t : topics) refresh = refresh || cache_.topic(t) == nullptr;
    if (refresh) {
      // No broker reachable at all: nothing to retry against.
      if (Status s = co_await refresh_metadata(topics); !s.ok()) co_return s;
    }
    std::map<int32_t, std::vector<size_t>> groups;
    for (size_t i : todo) {
      int32_t leader = -1;
      results[i].status = routing::leader_of(cache_, items[i].tp, leader);
      if (results[i].status.ok()) groups[leader].push_back(i);
    }
    for (auto& [node, indexes] : groups) {
      for (const std::vector<size_t>& layer : routing::unique_layers(items, indexes)) {
        auto conn = co_await connection(node);
        // No co_await inside ?: — g++ 12 destroys such temporaries twice.
        Status s = conn.status();
        if (conn.ok()) {
          if constexpr (std::is_invocable_v<SendGroup&, int32_t, BrokerConnection&,
                                            const std::vector<size_t>&, std::vector<Out>&>) {
            s = co_await send_group(node, *conn.value(), layer, results);  // wants the node id
          } else {
            s = co_await send_group(*conn.value(), layer, results);
          }
        }
        if (!s.ok()) {
          for (size_t i : layer) results[i].status = s;
        }
      }
    }
    std::vector<size_t> retry;
    for (size_t i : todo) {
      if (routing::should_retry(results[i].status, start, options_)) retry.push_back(i);
    }
    if (retry.empty() || routing::out_of_time(start, options_)) co_return results;
    MIRRA_CLOG_DEBUG("client", "retrying {} partition(s), first: {}", retry.size(),
                     results[retry.front()].status.to_string());
    metadata_stale_ = true;
    todo = std::move(retry);
    co_await backoff(round);
  }
}

template <typename Req, typename Misrouted>
asio::awaitable<Result<Reply<response_t<Req>>>> Client::send_admin(const Req& req,
                                                                   bool to_controller,
                                                                   Misrouted misrouted) {
  const auto start = routing::Clock::now();
  for (int round = 0;; ++round) {
    Result<std::shared_ptr<BrokerConnection>> conn = Status(ErrorCode::NETWORK_EXCEPTION, "");
    if (to_controller) {
      conn = co_await controller_connection();
    } else {
      conn = co_await any_connection();
    }
    if (!conn.ok()) co_return conn.status();  // no broker reachable at all
    auto reply = co_await conn.value()->send(req);
    Status failure;
    if (reply.ok()) {
      if (!misrouted(reply->body) || routing::out_of_time(start, options_)) co_return reply;
      failure = Status(ErrorCode::NOT_CONTROLLER, "not the controller");
    } else {
      failure = reply.status();
      if (!error_retriable(failure.code()) || routing::out_of_time(start, options_)) {
        co_return failure;
      }
    }
    MIRRA_CLOG_DEBUG("client", "retrying {}: {}", Req::kName, failure.to_string());
    metadata_stale_ = true;
    co_await backoff(round);
  }
}

template <typename Out, typename SendGroup>
asio::awaitable<Status> Client::route_to_coordinators(const std::vector<std::string>& keys,
                                                      std::vector<Out>& results,
                                                      SendGroup send_group, CoordinatorType type) {
  const auto start = routing::Clock::now();
  auto cached = [this, type](const std::string& key) {
    return coordinators_.find(std::make_pair(type, key));
  };
  std::vector<size_t> todo(keys.size());
  std::iota(todo.begin(), todo.end(), size_t{0});
  for (int round = 0;; ++round) {
    std::vector<std::string> unknown;
    for (size_t i : todo) {
      if (cached(keys[i]) == coordinators_.end() &&
          std::find(unknown.begin(), unknown.end(), keys[i]) == unknown.end()) {
        unknown.push_back(keys[i]);
      }
    }
    std::map<std::string, Status> lookup_failed;
    if (!unknown.empty()) {
      auto found = co_await lookup_coordinators(std::move(unknown), type);
      if (!found.ok()) co_return found.status();  // no broker reachable at all
      for (Coordinator& c : found.value()) {
        if (c.status.ok()) {
          coordinators_[std::make_pair(type, c.key)] = c;
        } else {
          lookup_failed[c.key] = c.status;
        }
      }
    }
    std::map<int32_t, std::vector<size_t>> by_node;
    for (size_t i : todo) {
      auto it = cached(keys[i]);
      if (it == coordinators_.end()) {
        results[i].status = lookup_failed[keys[i]];
      } else {
        by_node[it->second.node_id].push_back(i);
      }
    }
    for (auto& entry : by_node) {
      const std::vector<size_t>& indexes = entry.second;
      const Coordinator c = cached(keys[indexes.front()])->second;
      Status s;
      if constexpr (std::is_invocable_v<SendGroup, const Coordinator&, const std::vector<size_t>&,
                                        std::vector<Out>&>) {
        s = co_await send_group(c, indexes, results);  // needs no request to the coordinator
      } else {
        auto conn = co_await coordinator_connection(c);
        s = conn.status();
        if (conn.ok()) s = co_await send_group(*conn.value(), c, indexes, results);
      }
      if (!s.ok()) {
        for (size_t i : indexes) results[i].status = s;
      }
    }
    std::vector<size_t> retry;
    for (size_t i : todo) {
      const Status& s = results[i].status;
      if (s.ok() || !error_retriable(s.code())) continue;
      if (routing::coordinator_moved(s.code())) coordinators_.erase(std::make_pair(type, keys[i]));
      retry.push_back(i);
    }
    if (retry.empty() || routing::out_of_time(start, options_)) co_return Status::OK();
    MIRRA_CLOG_DEBUG("client", "retrying {} group(s), first: {}", retry.size(),
                     results[retry.front()].status.to_string());
    todo = std::move(retry);
    co_await backoff(round);
  }
}

template <typename T, typename Ask>
asio::awaitable<Result<T>> Client::ask_broker(int32_t node_id, Ask ask) {
  const auto start = routing::Clock::now();
  for (int round = 0;; ++round) {
    auto conn = co_await connection(node_id);
    Status failure = conn.status();
    if (conn.ok()) {
      Result<T> answer = co_await ask(*conn.value());
      if (answer.ok()) co_return answer;
      failure = answer.status();
    }
    if (!error_retriable(failure.code()) || routing::out_of_time(start, options_)) {
      co_return failure;
    }
    co_await backoff(round);
  }
}

}  // namespace mirra::client
