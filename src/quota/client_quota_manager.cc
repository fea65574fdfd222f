#include "quota/client_quota_manager.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mirra::quota {
namespace {

// Kafka's ExpireSensorTask period.
constexpr int64_t kExpirySweepMs = 30'000;

}  // namespace

QuotaKey quota_key(QuotaType type) {
  switch (type) {
    case QuotaType::produce:
      return QuotaKey::producer_byte_rate;
    case QuotaType::fetch:
      return QuotaKey::consumer_byte_rate;
    case QuotaType::request:
      return QuotaKey::request_percentage;
    case QuotaType::controller_mutation:
      return QuotaKey::controller_mutation_rate;
  }
  MIRRA_ASSERT(false, "unknown quota type {}", static_cast<int>(type));
  return QuotaKey::producer_byte_rate;
}

ClientQuotaManager::ClientQuotaManager(QuotaType type, const QuotaTable& table, WindowConfig window)
    : type_(type), key_(quota_key(type)), table_(table), window_(window) {}

const ClientQuotaManager::Resolution* ClientQuotaManager::resolve(std::string_view user,
                                                                  std::string_view client_id) {
  if (cache_version_ != table_.version()) {
    cache_.clear();
    cache_version_ = table_.version();
  }
  auto u = cache_.find(user);
  if (u == cache_.end()) u = cache_.emplace(std::string(user), ClientCache{}).first;
  auto c = u->second.find(client_id);
  if (c == u->second.end()) {
    std::optional<Resolution> r;
    if (auto q = table_.resolve(user, client_id, key_)) r = Resolution{q->limit, q->sensor};
    c = u->second.emplace(std::string(client_id), std::move(r)).first;
  }
  return c->second ? &*c->second : nullptr;
}

ClientQuotaManager::Sensor& ClientQuotaManager::sensor(const Resolution& r, int64_t now_ms) {
  auto it = sensors_.find(r.key);
  if (it == sensors_.end()) {
    Sensor s{SampledRate(window_), std::nullopt, now_ms};
    if (type_ == QuotaType::controller_mutation) s.bucket.emplace(window_, r.limit, now_ms);
    it = sensors_.emplace(r.key, std::move(s)).first;
  }
  return it->second;
}

int64_t ClientQuotaManager::throttle_of(Sensor& s, double limit, int64_t now_ms) {
  if (s.bucket) return s.bucket->throttle_time_ms(limit, now_ms);
  const double observed = s.rate.rate(now_ms);
  if (observed <= limit) return 0;
  const int64_t t = quota::throttle_time_ms(observed, limit, s.rate.window_ms(now_ms));
  if (type_ == QuotaType::request) return std::min(t, window_.size_ms);
  return t;
}

int64_t ClientQuotaManager::record(std::string_view user, std::string_view client_id, double value,
                                   int64_t now_ms) {
  MIRRA_ASSERT_OWNER(owner_);
  if (now_ms >= next_expiry_ms_) {
    expire_idle(now_ms);
    next_expiry_ms_ = now_ms + kExpirySweepMs;
  }
  const Resolution* r = resolve(user, client_id);
  if (r == nullptr) return 0;
  Sensor& s = sensor(*r, now_ms);
  s.last_record_ms = now_ms;
  if (s.bucket) {
    s.bucket->record(value, r->limit, now_ms);
  } else {
    s.rate.record(value, now_ms);
  }
  return throttle_of(s, r->limit, now_ms);
}

void ClientQuotaManager::unrecord(std::string_view user, std::string_view client_id, double value,
                                  int64_t now_ms) {
  MIRRA_ASSERT_OWNER(owner_);
  const Resolution* r = resolve(user, client_id);
  if (r == nullptr) return;
  auto it = sensors_.find(r->key);
  if (it == sensors_.end()) return;
  it->second.last_record_ms = now_ms;
  if (it->second.bucket) {
    it->second.bucket->record(-value, r->limit, now_ms);
  } else {
    it->second.rate.unrecord(value, now_ms);
  }
}

int64_t ClientQuotaManager::throttle_time_ms(std::string_view user, std::string_view client_id,
                                             int64_t now_ms) {
  MIRRA_ASSERT_OWNER(owner_);
  const Resolution* r = resolve(user, client_id);
  if (r == nullptr) return 0;
  auto it = sensors_.find(r->key);
  if (it == sensors_.end()) return 0;
  return throttle_of(it->second, r->limit, now_ms);
}

std::optional<int64_t> ClientQuotaManager::fetch_max_bytes_cap(std::string_view user,
                                                               std::string_view client_id) {
  MIRRA_ASSERT_OWNER(owner_);
  const Resolution* r = resolve(user, client_id);
  if (r == nullptr) return std::nullopt;
  const double cap = r->limit * static_cast<double>(window_.num - 1) *
                     (static_cast<double>(window_.size_ms) / 1000.0);
  if (cap >= static_cast<double>(std::numeric_limits<int64_t>::max())) {
    return std::numeric_limits<int64_t>::max();
  }
  return static_cast<int64_t>(cap);
}

void ClientQuotaManager::expire_idle(int64_t now_ms) {
  MIRRA_ASSERT_OWNER(owner_);
  std::erase_if(sensors_, [now_ms](const auto& kv) {
    return now_ms - kv.second.last_record_ms > kInactiveSensorExpiryMs;
  });
  cache_.clear();
}

}  // namespace mirra::quota
