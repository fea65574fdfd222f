#include "server/scram_lookup.h"

namespace mirra::server {

std::optional<security::ScramCredential> scram_credential_of(const metadata::MetadataImage& image,
                                                             const std::string& user,
                                                             security::ScramMechanism mechanism) {
  const metadata::ScramCredentialInfo* c =
      image.scram_credential(user, static_cast<int8_t>(mechanism));
  if (c == nullptr) return std::nullopt;
  return security::ScramCredential{c->salt, c->stored_key, c->server_key, c->iterations};
}

}  // namespace mirra::server
