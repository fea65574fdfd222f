#include "mirror/mirror_secrets.h"

#include <fmt/format.h>

namespace mirra::mirror {

Result<MirrorConfigs> seal_mirror_secrets(const MirrorConfigs& plain,
                                          const security::PasswordEncoder* encoder) {
  MirrorConfigs out;
  for (const auto& [key, value] : plain) {
    if (!is_secret(key)) {
      out.emplace(key, value);
      continue;
    }
    if (encoder == nullptr) {
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("mirror config {} is a secret, which the broker stores "
                                "encrypted: set password.encoder.secret in the broker's "
                                "configuration first",
                                key));
    }
    auto sealed = encoder->encode(value);
    if (!sealed.ok()) return sealed.status();
    out.emplace(key, std::move(sealed.value()));
  }
  return out;
}

Result<MirrorConfigs> open_mirror_secrets(const MirrorConfigs& stored,
                                          const security::PasswordEncoder* encoder,
                                          const std::set<std::string>& skip) {
  MirrorConfigs out;
  for (const auto& [key, value] : stored) {
    if (skip.count(key)) continue;
    if (!is_secret(key)) {
      out.emplace(key, value);
      continue;
    }
    if (encoder == nullptr) {
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("mirror config {} is stored encrypted and the broker has no "
                                "password.encoder.secret to decrypt it: set the secret it was "
                                "stored with, or set {} again",
                                key, key));
    }
    auto opened = encoder->decode(value);
    if (!opened.ok()) {
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("mirror config {}: {}; set the password.encoder.secret it was "
                                "stored with (or password.encoder.old.secret), or set {} again",
                                key, opened.status().message(), key));
    }
    out.emplace(key, std::move(opened.value()));
  }
  return out;
}

}  // namespace mirra::mirror
