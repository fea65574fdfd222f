// The SCRAM credentials of the metadata image as the security module wants them: the lookup a
// listener's SaslUsers::scram (security/sasl.h) calls during an exchange. The image keeps its
// own plain struct (metadata does not depend on security); this is the one conversion.
#pragma once

#include <optional>
#include <string>

#include "metadata/image.h"
#include "security/scram.h"

namespace mirra::server {

// nullopt: the user has no credential for this mechanism.
std::optional<security::ScramCredential> scram_credential_of(const metadata::MetadataImage& image,
                                                             const std::string& user,
                                                             security::ScramMechanism mechanism);

}  // namespace mirra::server
