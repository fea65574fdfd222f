#include "capture_handlers.h"

#include <cstdio>

#include "protocol/messages/all_messages.h"
#include "protocol/records/record_set.h"

namespace golden {

using namespace mirra::protocol;

namespace {

constexpr int32_t kNodeId = 1;
constexpr const char* kHost = "127.0.0.1";
constexpr int16_t kUnsupportedVersion = 35;

// A stable id per topic name (FNV-1a), so that topic-id based requests can be mapped back.
mirra::Uuid topic_id_of(const std::string& name) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ULL;
  return mirra::Uuid::from_bits(h | 1, ~h);
}

// Records in a Produce record set: the sum of lastOffsetDelta + 1 over its v2 batches.
int64_t record_count(const std::optional<RecordsView>& records) {
  if (!records) return 0;
  int64_t n = 0;
  mirra::records::RecordSetIterator it(records->span());
  mirra::records::BatchView batch;
  while (it.next(batch) == mirra::records::RecordSetStep::batch) n += batch.last_offset_delta() + 1;
  return n;
}

}  // namespace

template <typename Req>
bool CaptureHandlers::decode(const RequestEnvelope& env, Req& req) {
  Reader r(env.body);
  const mirra::Status s = req.decode(r, env.header.request_api_version);
  if (!s) close_reason_ = s.to_string();
  else if (r.remaining() != 0) close_reason_ = std::to_string(r.remaining()) + " trailing bytes";
  return s && r.remaining() == 0;
}

std::optional<Bytes> CaptureHandlers::handle(const RequestEnvelope& env) {
  const int16_t key = env.header.request_api_key;
  const int16_t version = env.header.request_api_version;
  if (key == kApiVersionsKey) return api_versions(env);
  if (env.api == nullptr || !env.api->supports(version)) {
    close_reason_ = "unsupported api key or version";
    return std::nullopt;
  }
  switch (key) {
    case ProduceRequest::kApiKey:
      return produce(env);
    case FetchRequest::kApiKey:
      return fetch(env);
    case ListOffsetsRequest::kApiKey:
      return list_offsets(env);
    case MetadataRequest::kApiKey:
      return metadata(env);
    case FindCoordinatorRequest::kApiKey:
      return find_coordinator(env);
    case InitProducerIdRequest::kApiKey:
      return init_producer_id(env);
    default:
      close_reason_ = "api not served by capture_broker";
      return std::nullopt;
  }
}

std::optional<Bytes> CaptureHandlers::api_versions(const RequestEnvelope& env) {
  const int32_t corr = env.header.correlation_id;
  int16_t version = env.header.request_api_version;
  ApiVersionsResponse resp;
  for (const ApiInfo& api : all_apis())
    resp.api_keys.push_back({api.key, api.min_version, api.max_version, {}});
  if (version > ApiVersionsResponse::kMaxVersion) {  // KIP-511: v0 layout, error, the full list
    resp.error_code = kUnsupportedVersion;
    return encode_response_frame(corr, int16_t{0}, resp);
  }
  ApiVersionsRequest req;
  if (!decode(env, req)) return std::nullopt;
  return encode_response_frame(corr, version, resp);
}

std::optional<Bytes> CaptureHandlers::metadata(const RequestEnvelope& env) {
  const int16_t version = env.header.request_api_version;
  MetadataRequest req;
  if (!decode(env, req)) return std::nullopt;
  MetadataResponse resp;
  resp.brokers.push_back({kNodeId, kHost, port_, std::nullopt, {}});
  resp.cluster_id = "golden-cluster";
  resp.controller_id = kNodeId;
  std::vector<std::string> names;
  // All topics: a null list (v1+) or, in v0, an empty one.
  if (!req.topics || (version == 0 && req.topics->empty())) {
    names.push_back("golden");
  } else {
    for (const auto& t : *req.topics) {
      if (t.name) names.push_back(*t.name);
      else
        for (const auto& [n, off] : end_offsets_)
          if (topic_id_of(n) == t.topic_id) names.push_back(n);
    }
  }
  for (const std::string& name : names) {
    end_offsets_.try_emplace(name, 0);
    MetadataResponse::MetadataResponseTopic t;
    t.name = name;
    t.topic_id = topic_id_of(name);
    MetadataResponse::MetadataResponsePartition p;
    p.partition_index = 0;
    p.leader_id = kNodeId;
    p.leader_epoch = 0;
    p.replica_nodes = {kNodeId};
    p.isr_nodes = {kNodeId};
    t.partitions.push_back(p);
    resp.topics.push_back(std::move(t));
  }
  return encode_response_frame(env.header.correlation_id, version, resp);
}

std::optional<Bytes> CaptureHandlers::produce(const RequestEnvelope& env) {
  ProduceRequest req;
  if (!decode(env, req)) return std::nullopt;
  ProduceResponse resp;
  for (const auto& topic : req.topic_data) {
    ProduceResponse::TopicProduceResponse tr;
    tr.name = topic.name;
    for (const auto& part : topic.partition_data) {
      int64_t& end = end_offsets_[topic.name];
      ProduceResponse::PartitionProduceResponse pr;
      pr.index = part.index;
      pr.base_offset = end;
      pr.log_start_offset = 0;
      end += record_count(part.records);
      tr.partition_responses.push_back(std::move(pr));
    }
    resp.responses.push_back(std::move(tr));
  }
  if (req.acks == 0) return std::nullopt;
  return encode_response_frame(env.header.correlation_id, env.header.request_api_version, resp);
}

std::optional<Bytes> CaptureHandlers::init_producer_id(const RequestEnvelope& env) {
  InitProducerIdRequest req;
  if (!decode(env, req)) return std::nullopt;
  InitProducerIdResponse resp;
  resp.producer_id = 1000;
  resp.producer_epoch = 0;
  return encode_response_frame(env.header.correlation_id, env.header.request_api_version, resp);
}

std::optional<Bytes> CaptureHandlers::find_coordinator(const RequestEnvelope& env) {
  FindCoordinatorRequest req;
  if (!decode(env, req)) return std::nullopt;
  FindCoordinatorResponse resp;
  resp.error_message = std::nullopt;
  resp.node_id = kNodeId;
  resp.host = kHost;
  resp.port = port_;
  for (const std::string& key : req.coordinator_keys) {
    resp.coordinators.push_back({key, kNodeId, kHost, port_, 0, std::nullopt, {}});
  }
  return encode_response_frame(env.header.correlation_id, env.header.request_api_version, resp);
}

std::optional<Bytes> CaptureHandlers::fetch(const RequestEnvelope& env) {
  FetchRequest req;
  if (!decode(env, req)) return std::nullopt;
  FetchResponse resp;
  for (const auto& topic : req.topics) {
    std::string name = topic.topic;
    for (const auto& [n, off] : end_offsets_)
      if (name.empty() && topic_id_of(n) == topic.topic_id) name = n;
    FetchResponse::FetchableTopicResponse tr;
    tr.topic = name;
    tr.topic_id = topic.topic_id;
    for (const auto& part : topic.partitions) {
      FetchResponse::PartitionData pd;
      pd.partition_index = part.partition;
      pd.high_watermark = end_offsets_[name];
      pd.last_stable_offset = pd.high_watermark;
      pd.log_start_offset = 0;
      pd.records = RecordsView{};
      tr.partitions.push_back(std::move(pd));
    }
    resp.responses.push_back(std::move(tr));
  }
  return encode_response_frame(env.header.correlation_id, env.header.request_api_version, resp);
}

std::optional<Bytes> CaptureHandlers::list_offsets(const RequestEnvelope& env) {
  ListOffsetsRequest req;
  if (!decode(env, req)) return std::nullopt;
  ListOffsetsResponse resp;
  for (const auto& topic : req.topics) {
    ListOffsetsResponse::ListOffsetsTopicResponse tr;
    tr.name = topic.name;
    for (const auto& part : topic.partitions) {
      ListOffsetsResponse::ListOffsetsPartitionResponse pr;
      pr.partition_index = part.partition_index;
      pr.offset = part.timestamp == -2 ? 0 : end_offsets_[topic.name];  // -2: earliest
      pr.leader_epoch = 0;
      tr.partitions.push_back(pr);
    }
    resp.topics.push_back(std::move(tr));
  }
  return encode_response_frame(env.header.correlation_id, env.header.request_api_version, resp);
}

}  // namespace golden
