// A mirror's secrets at rest (docs/formats/metadata.md, "Encrypted config values"): the values
// of secret keys (security::is_secret_setting) are stored in the MirrorRecord encrypted with the
// broker's password.encoder.secret (security::PasswordEncoder), and decrypted only to build the
// mirror's source connection or to apply an alter. Pure, unit-tested in
// tests/mirror/mirror_secrets_test.cc.
#pragma once

#include <set>
#include <string>

#include "base/status.h"
#include "mirror/mirror_config.h"
#include "security/password_encoder.h"

namespace mirra::mirror {

// `plain` with every secret value encrypted. Without an encoder (no password.encoder.secret)
// a mirror with a secret is refused: INVALID_CONFIG naming the key and saying what to set.
Result<MirrorConfigs> seal_mirror_secrets(const MirrorConfigs& plain,
                                          const security::PasswordEncoder* encoder);

// `stored` with every secret value decrypted; INVALID_CONFIG naming the key when one cannot be
// (no encoder, another secret, a damaged value). Keys in `skip` are left out instead of being
// decrypted (an alter that replaces or removes them).
Result<MirrorConfigs> open_mirror_secrets(const MirrorConfigs& stored,
                                          const security::PasswordEncoder* encoder,
                                          const std::set<std::string>& skip = {});

}  // namespace mirra::mirror
