// The protocol side of capture_broker: turns one decoded request envelope into a response frame.
// Just enough of a broker for real clients to produce and fetch (see capture_broker.cc); keeps
// per-topic end offsets in memory. Single-threaded, owned by the capture loop.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "protocol/frame.h"

namespace golden {

class CaptureHandlers {
 public:
  explicit CaptureHandlers(int port) : port_(port) {}

  // The response frame (size prefix included), or nullopt for none (acks=0 Produce, or when
  // close_requested() turned true: the connection must be closed).
  std::optional<mirra::protocol::Bytes> handle(const mirra::protocol::RequestEnvelope& env);

  bool close_requested() const { return !close_reason_.empty(); }
  const std::string& close_reason() const { return close_reason_; }

 private:
  template <typename Req>
  bool decode(const mirra::protocol::RequestEnvelope& env, Req& req);

  std::optional<mirra::protocol::Bytes> api_versions(const mirra::protocol::RequestEnvelope& env);
  std::optional<mirra::protocol::Bytes> metadata(const mirra::protocol::RequestEnvelope& env);
  std::optional<mirra::protocol::Bytes> produce(const mirra::protocol::RequestEnvelope& env);
  std::optional<mirra::protocol::Bytes> init_producer_id(
      const mirra::protocol::RequestEnvelope& env);
  std::optional<mirra::protocol::Bytes> find_coordinator(
      const mirra::protocol::RequestEnvelope& env);
  std::optional<mirra::protocol::Bytes> fetch(const mirra::protocol::RequestEnvelope& env);
  std::optional<mirra::protocol::Bytes> list_offsets(const mirra::protocol::RequestEnvelope& env);

  int port_;
  std::map<std::string, int64_t> end_offsets_;  // topic -> next offset of its only partition
  std::string close_reason_;
};

}  // namespace golden
