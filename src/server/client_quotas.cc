#include "server/client_quotas.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include <fmt/format.h>

#include "server/request_context.h"

namespace mirra::server {

namespace {

// Authentication is not a client's own work to throttle (Kafka serves it before the request
// path too).
bool exempt_from_request_quota(int16_t api_key) {
  constexpr int16_t kSaslHandshake = 17;
  constexpr int16_t kSaslAuthenticate = 36;
  return api_key == kSaslHandshake || api_key == kSaslAuthenticate;
}

}  // namespace

QuotaClient RequestContext::quota_client() const {
  std::string_view client_id;
  if (header.client_id) client_id = *header.client_id;
  return QuotaClient{quota_user(connection != nullptr ? std::string_view(connection->principal)
                                                      : std::string_view("ANONYMOUS")),
                     client_id};
}

int32_t settle_throttle(RequestContext& ctx) {
  if (!ctx.throttle_settled && ctx.broker != nullptr && ctx.broker->quotas != nullptr &&
      ctx.broker->quotas->active() && !exempt_from_request_quota(ctx.header.request_api_key)) {
    const auto busy = std::chrono::steady_clock::now() - ctx.started - ctx.waited;
    const int64_t nanos =
        std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(busy).count());
    const int64_t t = ctx.broker->quotas->record_request_time(ctx.quota_client(), nanos);
    ctx.throttle_ms = std::max(ctx.throttle_ms, t);
  }
  ctx.throttle_settled = true;
  return static_cast<int32_t>(
      std::clamp<int64_t>(ctx.throttle_ms, 0, std::numeric_limits<int32_t>::max()));
}

Status check_mutation_quota(RequestContext& ctx, bool strict) {
  ClientQuotas* q = ctx.broker != nullptr ? ctx.broker->quotas : nullptr;
  if (!strict || q == nullptr) return Status::OK();
  const int64_t t = q->mutation_throttle_ms(ctx.quota_client());
  if (t <= 0) return Status::OK();
  ctx.throttle_ms = std::max(ctx.throttle_ms, t);
  return Status(ErrorCode::THROTTLING_QUOTA_EXCEEDED,
                fmt::format("The controller mutation quota is exceeded; retry in {} ms", t));
}

void record_mutation(RequestContext& ctx, int64_t partitions) {
  ClientQuotas* q = ctx.broker != nullptr ? ctx.broker->quotas : nullptr;
  if (q == nullptr || partitions <= 0) return;
  ctx.throttle_ms = std::max(ctx.throttle_ms, q->record_mutations(ctx.quota_client(), partitions));
}

std::string_view quota_user(std::string_view principal) {
  const size_t colon = principal.find(':');
  return colon == std::string_view::npos ? principal : principal.substr(colon + 1);
}

ClientQuotas::ClientQuotas(const quota::QuotaTable& table, quota::WindowConfig window,
                           quota::WindowConfig controller_window)
    : table_(table),
      produce_(quota::QuotaType::produce, table, window),
      fetch_(quota::QuotaType::fetch, table, window),
      request_(quota::QuotaType::request, table, window),
      mutation_(quota::QuotaType::controller_mutation, table, controller_window) {}

int64_t ClientQuotas::now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t ClientQuotas::record_produce(const QuotaClient& c, int64_t bytes) {
  if (!active()) return 0;
  return produce_.record(c.user, c.client_id, static_cast<double>(bytes), now_ms());
}

int64_t ClientQuotas::record_fetch(const QuotaClient& c, int64_t bytes) {
  if (!active()) return 0;
  return fetch_.record(c.user, c.client_id, static_cast<double>(bytes), now_ms());
}

void ClientQuotas::unrecord_fetch(const QuotaClient& c, int64_t bytes) {
  if (!active()) return;
  fetch_.unrecord(c.user, c.client_id, static_cast<double>(bytes), now_ms());
}

int64_t ClientQuotas::record_request_time(const QuotaClient& c, int64_t nanos) {
  if (!active()) return 0;
  return request_.record(c.user, c.client_id, quota::nanos_to_percentage(nanos), now_ms());
}

int64_t ClientQuotas::record_mutations(const QuotaClient& c, int64_t partitions) {
  if (!active()) return 0;
  return mutation_.record(c.user, c.client_id, static_cast<double>(partitions), now_ms());
}

int64_t ClientQuotas::mutation_throttle_ms(const QuotaClient& c) {
  if (!active()) return 0;
  return mutation_.throttle_time_ms(c.user, c.client_id, now_ms());
}

std::optional<int64_t> ClientQuotas::fetch_max_bytes(const QuotaClient& c) {
  if (!active()) return std::nullopt;
  return fetch_.fetch_max_bytes_cap(c.user, c.client_id);
}

}  // namespace mirra::server
