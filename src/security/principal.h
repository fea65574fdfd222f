// Principals of TLS clients: the certificate's subject as Kafka (Java's X500Principal) prints
// it in RFC 2253 form, mapped through `ssl.principal.mapping.rules`.
#pragma once

#include <openssl/types.h>

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mirra::security {

// The subject name in RFC 2253 order (last RDN first), as Java's X500Principal.getName()
// prints it: CN, C, L, ST, O, OU, STREET, DC and UID by keyword, any other attribute as
// "<dotted OID>=#<hex DER>", with RFC 2253 escaping. "/CN=alice/OU=eng/O=Mirra" reads
// "O=Mirra,OU=eng,CN=alice".
std::string rfc2253_name(const X509_NAME* name);

// `ssl.principal.mapping.rules`: comma-separated rules tried in order, each either DEFAULT (the
// name unchanged) or RULE:<regex>/<replacement>/[L|U]; a rule applies only when the regex
// matches the WHOLE name; $1.. in the replacement are its groups, "\x" is a literal x.
//
// Kafka's regexes are Java's; these are std::regex ECMAScript. Kafka's documented rules use
// only what both share (groups, lazy quantifiers, classes, anchors). Not available here:
// possessive quantifiers (a*+), atomic groups, lookbehind, named groups (and ${name} in the
// replacement), inline flags such as (?i), \p{...} classes, \A and \Z. L and U fold ASCII
// letters only (Java folds every letter). Names over 8 KiB are refused, not matched.
class PrincipalMappingRules {
 public:
  // INVALID_CONFIG naming the bad rule.
  static Result<PrincipalMappingRules> parse(std::string_view text);
  // The mapped name; an error when no rule matches (Kafka refuses the connection then).
  Result<std::string> apply(std::string_view distinguished_name) const;

 private:
  struct Rule {
    bool is_default = false;
    std::regex pattern;
    std::string replacement;
    char case_flag = 0;  // 0, 'L' or 'U'
  };
  std::vector<Rule> rules_;
};

}  // namespace mirra::security
