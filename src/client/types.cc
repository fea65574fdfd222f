#include "client/types.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "base/text.h"

namespace mirra::client {
namespace {

Result<HostPort> parse_host_port(std::string_view item) {
  auto bad = [&](std::string_view why) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("invalid bootstrap server '{}': {} (expected host:port)", item, why));
  };
  const size_t colon = item.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = item.substr(0, colon);
  const std::string_view port_text = item.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);  // [IPv6]:port
  }
  if (host.empty()) return bad("no host");
  int port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 || port > 65535) {
    return bad("port must be 1-65535");
  }
  return HostPort{std::string(host), static_cast<uint16_t>(port)};
}

}  // namespace

Result<std::vector<HostPort>> parse_bootstrap_servers(std::string_view text) {
  std::vector<HostPort> out;
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    if (!item.empty()) {
      auto hp = parse_host_port(item);
      if (!hp.ok()) return hp.status();
      out.push_back(std::move(hp.value()));
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (out.empty()) return Status(ErrorCode::INVALID_CONFIG, "no bootstrap servers given");
  return out;
}

std::string to_string(const TopicPartition& tp) {
  return fmt::format("{}-{}", tp.topic, tp.partition);
}

const PartitionInfo* TopicInfo::partition(int32_t index) const {
  auto it = std::lower_bound(partitions.begin(), partitions.end(), index,
                             [](const PartitionInfo& p, int32_t i) { return p.partition < i; });
  return it != partitions.end() && it->partition == index ? &*it : nullptr;
}

const TopicInfo* ClusterMetadata::topic(std::string_view name) const {
  auto it = std::lower_bound(topics.begin(), topics.end(), name,
                             [](const TopicInfo& t, std::string_view n) { return t.name < n; });
  return it != topics.end() && it->name == name ? &*it : nullptr;
}

const BrokerInfo* ClusterMetadata::broker(int32_t node_id) const {
  auto it = std::lower_bound(brokers.begin(), brokers.end(), node_id,
                             [](const BrokerInfo& b, int32_t id) { return b.node_id < id; });
  return it != brokers.end() && it->node_id == node_id ? &*it : nullptr;
}

}  // namespace mirra::client
