// The SCRAM credentials of the image (UserScramCredentialRecord and its removal).
#include <fmt/format.h>

#include "metadata/image.h"

namespace mirra::metadata {
namespace {

Status refuse(std::string message) {
  return Status(ErrorCode::CORRUPT_MESSAGE, std::move(message));
}

bool known_mechanism(int8_t m) { return m == kScramSha256 || m == kScramSha512; }

}  // namespace

const ScramCredentialInfo* MetadataImage::scram_credential(std::string_view user,
                                                           int8_t mechanism) const {
  auto it = scram_users_.find(user);
  if (it == scram_users_.end()) return nullptr;
  auto m = it->second.find(mechanism);
  return m == it->second.end() ? nullptr : &m->second;
}

// Messages name the user and mechanism, never the salt or keys.
Status MetadataImage::apply_scram(const UserScramCredentialRecord& r) {
  if (r.name.empty()) return refuse("SCRAM credential with an empty user name");
  if (!known_mechanism(r.mechanism))
    return refuse(
        fmt::format("SCRAM credential of user '{}': unknown mechanism {}", r.name, r.mechanism));
  if (r.iterations <= 0)
    return refuse(
        fmt::format("SCRAM credential of user '{}': {} iterations", r.name, r.iterations));
  if (r.salt.empty() || r.stored_key.empty() || r.server_key.empty())
    return refuse(fmt::format("SCRAM credential of user '{}': empty salt or key", r.name));
  scram_users_[r.name][r.mechanism] =
      ScramCredentialInfo{r.salt, r.stored_key, r.server_key, r.iterations};
  return Status::OK();
}

Status MetadataImage::apply_remove_scram(const RemoveUserScramCredentialRecord& r) {
  auto it = scram_users_.find(r.name);
  if (it == scram_users_.end() || it->second.erase(r.mechanism) == 0)
    return refuse(fmt::format("remove of unknown SCRAM credential of user '{}' (mechanism {})",
                              r.name, r.mechanism));
  if (it->second.empty()) scram_users_.erase(it);
  return Status::OK();
}

void append_scram_records(const MetadataImage& image, std::vector<MetadataRecord>& out) {
  for (const auto& [user, by_mechanism] : image.scram_users()) {
    for (const auto& [mechanism, c] : by_mechanism) {
      out.emplace_back(UserScramCredentialRecord{user, mechanism, c.salt, c.stored_key,
                                                 c.server_key, c.iterations});
    }
  }
}

}  // namespace mirra::metadata
