// Client's admin calls. Topic creation, deletion and partition changes go to the controller
// (Kafka brokers forward them anyway, but an old broker answers NOT_CONTROLLER); config calls
// go to any broker.
#include <algorithm>

#include "client/client.h"
#include "client/client_routing.h"

namespace mirra::client {
namespace {

template <typename Results>
bool any_not_controller(const Results& results) {
  return std::any_of(results.begin(), results.end(), [](const auto& r) {
    return error_from_number(r.error_code) == ErrorCode::NOT_CONTROLLER;
  });
}

auto never_misrouted = [](const auto&) { return false; };

ConfigResource resource_of(int8_t type, const std::string& name) {
  return ConfigResource{static_cast<ConfigResourceType>(type), name, {}};
}

}  // namespace

asio::awaitable<Result<std::vector<TopicResult>>> Client::create_topics(
    std::vector<NewTopic> topics, bool validate_only) {
  protocol::CreateTopicsRequest req;
  req.timeout_ms = static_cast<int32_t>(options_.request_timeout.count());
  req.validate_only = validate_only;
  for (NewTopic& t : topics) {
    auto& ct = req.topics.emplace_back();
    ct.name = t.name;
    ct.num_partitions = t.partitions;
    ct.replication_factor = t.replication_factor;
    for (auto& [k, v] : t.configs) {
      auto& c = ct.configs.emplace_back();
      c.name = k;
      c.value = v;
    }
  }
  auto reply = co_await send_admin(req, true, [](const protocol::CreateTopicsResponse& r) {
    return any_not_controller(r.topics);
  });
  if (!reply.ok()) co_return reply.status();
  metadata_stale_ = true;
  std::vector<TopicResult> out;
  for (const auto& r : reply->body.topics) {
    out.push_back({r.name, status_from(r.error_code, r.error_message, "topic " + r.name),
                   r.topic_id, r.num_partitions, r.replication_factor});
  }
  co_return out;
}

asio::awaitable<Result<std::vector<TopicResult>>> Client::delete_topics(
    std::vector<std::string> names) {
  protocol::DeleteTopicsRequest req;
  req.timeout_ms = static_cast<int32_t>(options_.request_timeout.count());
  for (const std::string& name : names) {
    req.topic_names.push_back(name);        // v1-5
    req.topics.emplace_back().name = name;  // v6+
  }
  auto reply = co_await send_admin(req, true, [](const protocol::DeleteTopicsResponse& r) {
    return any_not_controller(r.responses);
  });
  if (!reply.ok()) co_return reply.status();
  metadata_stale_ = true;
  std::vector<TopicResult> out;
  for (const auto& r : reply->body.responses) {
    const std::string name = r.name.value_or(r.topic_id.to_string());
    out.push_back(
        {name, status_from(r.error_code, r.error_message, "topic " + name), r.topic_id, -1, -1});
  }
  co_return out;
}

asio::awaitable<Result<std::vector<TopicResult>>> Client::create_partitions(
    std::vector<NewPartitions> topics, bool validate_only) {
  protocol::CreatePartitionsRequest req;
  req.timeout_ms = static_cast<int32_t>(options_.request_timeout.count());
  req.validate_only = validate_only;
  for (const NewPartitions& t : topics) {
    auto& ct = req.topics.emplace_back();
    ct.name = t.topic;
    ct.count = t.total_count;
    ct.assignments = std::nullopt;  // the broker places the new partitions
  }
  auto reply = co_await send_admin(req, true, [](const protocol::CreatePartitionsResponse& r) {
    return any_not_controller(r.results);
  });
  if (!reply.ok()) co_return reply.status();
  metadata_stale_ = true;
  std::vector<TopicResult> out;
  for (const auto& r : reply->body.results) {
    out.push_back({r.name, status_from(r.error_code, r.error_message, "topic " + r.name),
                   Uuid::zero(), -1, -1});
  }
  co_return out;
}

asio::awaitable<Result<std::vector<ConfigResourceResult>>> Client::describe_configs(
    std::vector<ConfigResource> resources, bool include_synonyms) {
  protocol::DescribeConfigsRequest req;
  req.include_synonyms = include_synonyms;
  for (const ConfigResource& r : resources) {
    auto& dr = req.resources.emplace_back();
    dr.resource_type = static_cast<int8_t>(r.type);
    dr.resource_name = r.name;
    if (r.keys.empty()) {
      dr.configuration_keys = std::nullopt;  // null: every config
    } else {
      dr.configuration_keys = r.keys;
    }
  }
  auto reply = co_await send_admin(req, false, never_misrouted);
  if (!reply.ok()) co_return reply.status();
  std::vector<ConfigResourceResult> out;
  for (const auto& r : reply->body.results) {
    ConfigResourceResult res;
    res.resource = resource_of(r.resource_type, r.resource_name);
    res.status = status_from(r.error_code, r.error_message, "configs of " + r.resource_name);
    for (const auto& c : r.configs) {
      ConfigEntry& e = res.entries.emplace_back();
      e = {c.name, c.value, c.read_only, c.is_sensitive,
           static_cast<ConfigSource>(c.config_source)};
      for (const auto& syn : c.synonyms) {
        e.synonyms.push_back({syn.name, syn.value, static_cast<ConfigSource>(syn.source)});
      }
    }
    out.push_back(std::move(res));
  }
  co_return out;
}

asio::awaitable<Result<std::vector<ResourceResult>>> Client::incremental_alter_configs(
    std::vector<AlterConfigResource> resources, bool validate_only) {
  protocol::IncrementalAlterConfigsRequest req;
  req.validate_only = validate_only;
  for (const AlterConfigResource& r : resources) {
    auto& ar = req.resources.emplace_back();
    ar.resource_type = static_cast<int8_t>(r.resource.type);
    ar.resource_name = r.resource.name;
    for (const ConfigAlteration& a : r.alterations) {
      auto& c = ar.configs.emplace_back();
      c.name = a.name;
      c.config_operation = static_cast<int8_t>(a.op);
      c.value = a.value;
    }
  }
  auto reply = co_await send_admin(req, false, never_misrouted);
  if (!reply.ok()) co_return reply.status();
  std::vector<ResourceResult> out;
  for (const auto& r : reply->body.responses) {
    out.push_back({resource_of(r.resource_type, r.resource_name),
                   status_from(r.error_code, r.error_message, "configs of " + r.resource_name)});
  }
  co_return out;
}

}  // namespace mirra::client
