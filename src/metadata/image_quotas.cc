// The image's client quotas (ClientQuotaRecord), kept in a quota::QuotaTable so that the broker
// resolves limits straight from the image (metadata/image.h).
#include <fmt/format.h>

#include "metadata/image.h"

namespace mirra::metadata {
namespace {

std::vector<quota::EntityComponent> components_of(const ClientQuotaRecord& r) {
  std::vector<quota::EntityComponent> out;
  for (const QuotaEntityPart& p : r.entity) out.push_back({p.entity_type, p.name});
  return out;
}

}  // namespace

Status MetadataImage::apply_client_quota(const ClientQuotaRecord& r) {
  auto refuse = [&](const Status& why) {
    return Status(ErrorCode::CORRUPT_MESSAGE, fmt::format("client quota: {}", why.message()));
  };
  auto entity = quota::entity_from_wire(components_of(r));
  if (!entity.ok()) return refuse(entity.status());
  auto key = quota::parse_quota_key(r.key);
  if (!key.ok()) return refuse(key.status());
  if (r.remove) {
    client_quotas_.remove(*entity, *key);
    return Status::OK();
  }
  if (Status s = quota::validate_quota_value(*key, r.value); !s.ok()) return refuse(s);
  client_quotas_.set(*entity, *key, r.value);
  return Status::OK();
}

void append_client_quota_records(const MetadataImage& image, std::vector<MetadataRecord>& out) {
  for (const auto& [entity, values] : image.client_quotas().entries()) {
    std::vector<QuotaEntityPart> parts;
    for (const quota::EntityComponent& c : quota::entity_to_wire(entity))
      parts.push_back({c.entity_type, c.name});
    for (const auto& [key, value] : values)
      out.emplace_back(ClientQuotaRecord{parts, std::string(quota::quota_key_name(key)), value});
  }
}

}  // namespace mirra::metadata
