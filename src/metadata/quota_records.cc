#include "metadata/quota_records.h"

#include "protocol/wire.h"

namespace mirra::metadata {
namespace {

constexpr bool kCompact = true;  // as every record (records.cc)
// An entity part takes at least two bytes: the type's length and the name's.
constexpr size_t kMinPartSize = 2;

}  // namespace

void write_client_quota_fields(protocol::Writer& w, const ClientQuotaRecord& r) {
  w.write_array_length(kCompact, static_cast<int32_t>(r.entity.size()));
  for (const QuotaEntityPart& p : r.entity) {
    w.write_string(kCompact, p.entity_type);
    w.write_nullable_string(kCompact, p.name);
  }
  w.write_string(kCompact, r.key);
  w.write_float64(r.remove ? 0 : r.value);
  w.write_bool(r.remove);
}

ClientQuotaRecord read_client_quota(protocol::Reader& r) {
  ClientQuotaRecord q;
  const int32_t parts = r.read_array_length(kCompact, kMinPartSize);
  if (parts < 0 && !r.failed()) r.fail("ClientQuotaRecord with a null entity");
  for (int32_t i = 0; i < parts && !r.failed(); ++i) {
    QuotaEntityPart& p = q.entity.emplace_back();
    r.read_string(kCompact, p.entity_type);
    std::string name;
    if (r.read_nullable_string(kCompact, name)) p.name = std::move(name);
  }
  r.read_string(kCompact, q.key);
  q.value = r.read_float64();
  q.remove = r.read_bool();
  return q;
}

}  // namespace mirra::metadata
