// The sensors of one client quota type, Kafka's ClientQuotaManager (and its request and
// controller-mutation variants) with the time passed in.
//
// A connection's usage is recorded against the sensor of the quota that applies to its user and
// client id (QuotaTable::resolve; SensorKey says which connections share a sensor). A sensor is
// made on first use and dropped after an hour without recordings (Kafka's inactive sensor
// expiry). When no quota applies nothing is kept and the throttle time is 0. The limit is looked
// up again once the table's version moves, so a changed or removed quota holds at once; the
// samples already recorded stay with the sensor, as in Kafka.
//
// Threading: one owner thread (the broker's core thread). The table must outlive the manager
// and be changed only on that thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/assert.h"
#include "quota/quota_table.h"
#include "quota/sampled_rate.h"

namespace mirra::quota {

enum class QuotaType { produce, fetch, request, controller_mutation };

// The key a quota type is limited by.
QuotaKey quota_key(QuotaType type);

// request_percentage is recorded as thread time in percent-seconds, so that its rate reads as
// a percentage of one thread.
inline double nanos_to_percentage(int64_t nanos) { return static_cast<double>(nanos) * 1e-7; }

// Kafka drops a quota sensor this long after its last recording.
inline constexpr int64_t kInactiveSensorExpiryMs = 3'600'000;

class ClientQuotaManager {
 public:
  // `window`: quota.window.* for produce, fetch and request; controller.quota.window.* for
  // controller mutations.
  ClientQuotaManager(QuotaType type, const QuotaTable& table, WindowConfig window = {});

  // Records `value` (bytes; percent-seconds for request; partitions for controller mutations)
  // and returns how long the connection is to be throttled, 0 when within the quota.
  // request_percentage's throttle is capped at one window (its usage is recorded after the
  // fact, so a long throttle would punish the past, not the present).
  int64_t record(std::string_view user, std::string_view client_id, double value, int64_t now_ms);
  // Takes back a recorded value (a throttled fetch sends no records). No-op without a sensor.
  void unrecord(std::string_view user, std::string_view client_id, double value, int64_t now_ms);

  // The throttle time the sensor shows now, without recording: for controller mutations in
  // Kafka's strict mode (CreateTopics v6+, ...), which rejects a request with
  // THROTTLING_QUOTA_EXCEEDED while this is above 0.
  int64_t throttle_time_ms(std::string_view user, std::string_view client_id, int64_t now_ms);

  // The most bytes one fetch response may carry: quota * (num - 1) * window, so that a single
  // fetch cannot guarantee a throttle. None when no quota applies.
  std::optional<int64_t> fetch_max_bytes_cap(std::string_view user, std::string_view client_id);

  // Drops the sensors idle for longer than kInactiveSensorExpiryMs. record() runs it every
  // 30 seconds of its own accord (Kafka's expiry task period).
  void expire_idle(int64_t now_ms);

  size_t sensor_count() const { return sensors_.size(); }

 private:
  struct Sensor {
    SampledRate rate;
    std::optional<TokenBucket> bucket;  // controller mutations only
    int64_t last_record_ms = 0;
  };
  struct Resolution {
    double limit = 0;
    SensorKey key;
  };

  // The quota for this connection, through a cache cleared when the table's version moves.
  const Resolution* resolve(std::string_view user, std::string_view client_id);
  Sensor& sensor(const Resolution& r, int64_t now_ms);
  int64_t throttle_of(Sensor& s, double limit, int64_t now_ms);

  QuotaType type_;
  QuotaKey key_;
  const QuotaTable& table_;
  WindowConfig window_;
  std::map<SensorKey, Sensor> sensors_;
  // user -> client id -> the resolved quota (none when no quota applies). Emptied when the
  // table's version moves and on every expiry sweep, which keeps it bounded by recent clients.
  using ClientCache = std::map<std::string, std::optional<Resolution>, std::less<>>;
  std::map<std::string, ClientCache, std::less<>> cache_;
  uint64_t cache_version_ = 0;
  int64_t next_expiry_ms_ = 0;
  ThreadOwner owner_;
};

}  // namespace mirra::quota
