#include "security/secrets.h"

namespace mirra::security {

bool is_secret_setting(std::string_view key) {
  return key.find("password") != std::string_view::npos || key.ends_with("sasl.jaas.config") ||
         key.ends_with("ssl.keystore.key") || key.ends_with("secret");
}

}  // namespace mirra::security
