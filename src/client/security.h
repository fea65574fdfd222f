// Security settings of a connection to a Kafka cluster (docs/mirroring-design.md §9). Mirra's
// client speaks plaintext only until TLS and SASL are built, so a setting that asks for either
// is refused rather than ignored: ignoring it would copy or send data in the clear, without
// authenticating, while the operator believes otherwise.
#pragma once

#include <string_view>

#include "base/status.h"

namespace mirra::client {

// OK for a setting a plaintext connection honours (including unrelated keys); INVALID_CONFIG
// naming the key for any security.protocol but PLAINTEXT (any case) and for every ssl.* and
// sasl.* key. Only security.protocol's value is ever shown: the others may be secrets. `what`
// names the settings in the message ("mirror config", "client property").
Status check_plaintext_setting(std::string_view what, std::string_view key, std::string_view value);

}  // namespace mirra::client
