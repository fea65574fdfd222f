// The broker's client quotas at work: the four quota managers (produce, fetch, request,
// controller mutation; quota/client_quota_manager.h) over the metadata image's quota table, fed
// with the usage of each connection's user and client id. docs/quotas.md says what a client sees.
//
// The user of a connection is its principal's name ("alice" for User:alice, ANONYMOUS before
// authentication), as Kafka matches user quotas. While no quota is configured at all, every
// call returns at once without touching a sensor, so quotas cost nothing until they are used.
//
// Threading: the core thread owns this object, like the image it reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "quota/client_quota_manager.h"
#include "quota/quota_table.h"

namespace mirra::server {

struct ConnectionInfo;

// Who a quota is counted against.
struct QuotaClient {
  std::string_view user;
  std::string_view client_id;
};

struct RequestContext;

// controller_mutation_rate in CreateTopics, CreatePartitions and DeleteTopics, as Kafka applies
// it: in strict mode (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+) a topic is
// refused with THROTTLING_QUOTA_EXCEEDED while the client's quota is exceeded; older versions
// are never refused. Either way the partitions changed are recorded and the request's throttle
// grows to the quota's (docs/quotas.md).
Status check_mutation_quota(RequestContext& ctx, bool strict);
void record_mutation(RequestContext& ctx, int64_t partitions);

// The user name of a principal ("User:alice" -> "alice").
std::string_view quota_user(std::string_view principal);

class ClientQuotas {
 public:
  // `table` (the image's) must outlive this object.
  ClientQuotas(const quota::QuotaTable& table, quota::WindowConfig window,
               quota::WindowConfig controller_window);

  // Each returns the throttle time in ms (0 within the quota or without one).
  int64_t record_produce(const QuotaClient& c, int64_t bytes);
  int64_t record_fetch(const QuotaClient& c, int64_t bytes);
  // A throttled fetch sends no records: its bytes no longer count.
  void unrecord_fetch(const QuotaClient& c, int64_t bytes);
  // Time a request kept the broker busy (request_percentage).
  int64_t record_request_time(const QuotaClient& c, int64_t nanos);
  // Partitions created or deleted (controller_mutation_rate).
  int64_t record_mutations(const QuotaClient& c, int64_t partitions);
  // The mutation throttle now, without recording (strict mode: refuse while above 0).
  int64_t mutation_throttle_ms(const QuotaClient& c);
  // The most bytes one fetch response may carry; nullopt without a consumer quota.
  std::optional<int64_t> fetch_max_bytes(const QuotaClient& c);

  // True once any quota is configured (the table is not empty).
  bool active() const { return !table_.entries().empty(); }

 private:
  static int64_t now_ms();

  const quota::QuotaTable& table_;
  quota::ClientQuotaManager produce_;
  quota::ClientQuotaManager fetch_;
  quota::ClientQuotaManager request_;
  quota::ClientQuotaManager mutation_;
};

}  // namespace mirra::server
