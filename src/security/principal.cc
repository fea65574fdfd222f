#include "security/principal.h"

#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <openssl/x509.h>

#include <cctype>

#include <fmt/format.h>

#include "base/assert.h"

namespace mirra::security {
namespace {

// The attributes Java's X500Principal names by keyword in RFC 2253 form.
std::optional<std::string_view> rfc2253_keyword(int nid) {
  switch (nid) {
    case NID_commonName:
      return "CN";
    case NID_countryName:
      return "C";
    case NID_localityName:
      return "L";
    case NID_stateOrProvinceName:
      return "ST";
    case NID_organizationName:
      return "O";
    case NID_organizationalUnitName:
      return "OU";
    case NID_streetAddress:
      return "STREET";
    case NID_domainComponent:
      return "DC";
    case NID_userId:
      return "UID";
    default:
      return std::nullopt;
  }
}

// The string types Java prints as text (AVA.isDerString, non-canonical); others print as hex.
bool is_text_type(int type) {
  switch (type) {
    case V_ASN1_PRINTABLESTRING:
    case V_ASN1_T61STRING:
    case V_ASN1_IA5STRING:
    case V_ASN1_GENERALSTRING:
    case V_ASN1_UTF8STRING:
    case V_ASN1_BMPSTRING:
    case V_ASN1_UNIVERSALSTRING:
      return true;
    default:
      return false;
  }
}

// Java reads the value's bytes as UTF-8 whatever the string type (so a BMPString's zero bytes
// come out as NULs), replacing each maximal invalid subsequence with U+FFFD as its decoder does.
std::string java_utf8(std::string_view in) {
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  size_t i = 0;
  while (i < in.size()) {
    const auto b = static_cast<unsigned char>(in[i]);
    size_t need = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range (excludes overlongs, surrogates)
    if (b < 0x80) {
      out.push_back(in[i++]);
      continue;
    } else if (b >= 0xC2 && b <= 0xDF) {
      need = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      need = 2;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      need = 3;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      out += kReplacement;
      ++i;
      continue;
    }
    size_t got = 0;
    while (got < need && i + 1 + got < in.size()) {
      const auto c = static_cast<unsigned char>(in[i + 1 + got]);
      if (got == 0 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) break;
      ++got;
    }
    if (got == need) {
      out.append(in.substr(i, need + 1));
    } else {
      out += kReplacement;
    }
    i += got + 1;
  }
  return out;
}

// RFC 2253 escaping as Java does it: ',', '=', '+', '<', '>', '#', ';', '"' and '\' anywhere
// get a backslash, NUL becomes "\00", and leading and trailing spaces (and CRs) a backslash.
std::string escape_value(std::string_view value) {
  std::string escaped;
  for (char c : value) {
    if (c == '\0') {
      escaped += "\\00";
      continue;
    }
    if (std::string_view(",=+<>#;\"\\").find(c) != std::string_view::npos) escaped.push_back('\\');
    escaped.push_back(c);
  }
  const auto blank = [](char c) { return c == ' ' || c == '\r'; };
  size_t lead = 0;
  while (lead < escaped.size() && blank(escaped[lead])) ++lead;
  size_t trail = escaped.size();
  while (trail > lead && blank(escaped[trail - 1])) --trail;
  std::string out;
  for (size_t i = 0; i < escaped.size(); ++i) {
    if (i < lead || i >= trail) out.push_back('\\');
    out.push_back(escaped[i]);
  }
  return out;
}

// "#" and the value's DER encoding in lower-case hex.
std::string hex_der(const ASN1_STRING* value) {
  std::string der;
  const int type = ASN1_STRING_type(value);
  const auto* data = reinterpret_cast<const char*>(ASN1_STRING_get0_data(value));
  const auto len = static_cast<size_t>(ASN1_STRING_length(value));
  if (type == V_ASN1_SEQUENCE || type == V_ASN1_SET || type == V_ASN1_OTHER) {
    der.assign(data, len);  // OpenSSL keeps these as their whole encoding already
  } else {
    ASN1_TYPE* any = ASN1_TYPE_new();
    unsigned char* buf = nullptr;
    int n = -1;
    if (any != nullptr && ASN1_TYPE_set1(any, type, value) == 1) n = i2d_ASN1_TYPE(any, &buf);
    if (n > 0) der.assign(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
    OPENSSL_free(buf);
    ASN1_TYPE_free(any);
  }
  std::string out = "#";
  for (unsigned char c : der) out += fmt::format("{:02x}", c);
  return out;
}

std::string attribute(const X509_NAME_ENTRY* entry) {
  const ASN1_OBJECT* object = X509_NAME_ENTRY_get_object(entry);
  const ASN1_STRING* value = X509_NAME_ENTRY_get_data(entry);
  const auto keyword = rfc2253_keyword(OBJ_obj2nid(object));
  std::string out;
  if (keyword) {
    out = *keyword;
  } else {
    char oid[128];
    const int n = OBJ_obj2txt(oid, sizeof oid, object, /*no_name=*/1);
    out.assign(oid, n > 0 ? std::min<size_t>(static_cast<size_t>(n), sizeof oid - 1) : 0);
  }
  out.push_back('=');
  if (keyword && is_text_type(ASN1_STRING_type(value))) {
    const auto* data = reinterpret_cast<const char*>(ASN1_STRING_get0_data(value));
    out += escape_value(java_utf8(std::string_view(data, ASN1_STRING_length(value))));
  } else {
    out += hex_der(value);
  }
  return out;
}

}  // namespace

std::string rfc2253_name(const X509_NAME* name) {
  // Entries come in certificate order, each tagged with its RDN ("set"); Java prints the RDNs
  // last first and a multi-valued RDN's values in their stored order, joined by '+'.
  std::vector<std::string> rdns;
  int current_set = -1;
  for (int i = 0; i < X509_NAME_entry_count(name); ++i) {
    const X509_NAME_ENTRY* entry = X509_NAME_get_entry(name, i);
    const int set = X509_NAME_ENTRY_set(entry);
    if (rdns.empty() || set != current_set) {
      rdns.emplace_back();
      current_set = set;
    } else {
      rdns.back().push_back('+');
    }
    rdns.back() += attribute(entry);
  }
  std::string out;
  for (auto it = rdns.rbegin(); it != rdns.rend(); ++it) {
    if (!out.empty()) out.push_back(',');
    out += *it;
  }
  return out;
}

namespace {

Status invalid_rule(std::string_view rule, std::string_view why) {
  return Status(ErrorCode::INVALID_CONFIG,
                fmt::format("ssl.principal.mapping.rules: invalid rule '{}': {}", rule, why));
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// One part of "RULE:<regex>/<replacement>/": up to the first '/' not escaped by a backslash
// (a backslash always takes the next character with it). nullopt when no '/' ends it.
std::optional<std::string_view> take_part(std::string_view& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '/') {
      std::string_view part = text.substr(0, i);
      text.remove_prefix(i + 1);
      return part;
    }
  }
  return std::nullopt;
}

// The rules' text cut into rules, as Kafka cuts it: a ',' ends a rule only where the rule's
// grammar is complete (a regex may hold commas), empty rules are dropped. "RULE:" and "DEFAULT"
// start rules; anything else is an invalid rule.
std::vector<std::string_view> split_rules(std::string_view text) {
  std::vector<std::string_view> rules;
  text = trim(text);
  while (!text.empty()) {
    size_t end = 0;  // the rule's length
    if (text.starts_with("RULE:")) {
      std::string_view rest = text.substr(5);
      if (take_part(rest) && take_part(rest)) {
        end = text.size() - rest.size();
        if (end < text.size() && (text[end] == 'L' || text[end] == 'U')) ++end;
      }
    }
    // The rule runs to the next ','; what lies between the grammar's end and it is an error.
    const size_t comma = text.find(',', end);
    const std::string_view rule = trim(text.substr(0, comma));
    if (!rule.empty()) rules.push_back(rule);
    if (comma == std::string_view::npos) break;
    text = trim(text.substr(comma + 1));
  }
  return rules;
}

// A Java replacement string: "\x" is x, "$n" is group n (more digits join while they name a
// group), a "$n" beyond the groups is literal text (Kafka escapes it so).
Status check_replacement(std::string_view rule, std::string_view replacement) {
  for (size_t i = 0; i < replacement.size(); ++i) {
    if (replacement[i] == '\\') {
      ++i;
    } else if (replacement[i] == '$' &&
               (i + 1 == replacement.size() || !std::isdigit(uint8_t(replacement[i + 1])))) {
      return invalid_rule(rule, "'$' in the replacement must be followed by a group number");
    }
  }
  return Status::OK();
}

std::string expand(std::string_view replacement,
                   const std::match_results<std::string_view::const_iterator>& m) {
  const size_t groups = m.size() - 1;
  std::string out;
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    if (c == '\\' && i + 1 < replacement.size()) {
      out.push_back(replacement[++i]);
    } else if (c == '$' && i + 1 < replacement.size() &&
               std::isdigit(uint8_t(replacement[i + 1])) &&
               size_t(replacement[i + 1] - '0') <= groups) {
      size_t group = size_t(replacement[++i] - '0');
      while (i + 1 < replacement.size() && std::isdigit(uint8_t(replacement[i + 1])) &&
             group * 10 + size_t(replacement[i + 1] - '0') <= groups) {
        group = group * 10 + size_t(replacement[++i] - '0');
      }
      out += m[group].str();
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

Result<PrincipalMappingRules> PrincipalMappingRules::parse(std::string_view text) {
  PrincipalMappingRules rules;
  for (std::string_view text_rule : split_rules(text)) {
    Rule rule;
    if (text_rule == "DEFAULT") {
      rule.is_default = true;
      rules.rules_.push_back(std::move(rule));
      continue;
    }
    if (!text_rule.starts_with("RULE:"))
      return invalid_rule(text_rule, "expected RULE: or DEFAULT");
    std::string_view rest = text_rule.substr(5);
    auto pattern = take_part(rest);
    auto replacement = pattern ? take_part(rest) : std::nullopt;
    if (!replacement) return invalid_rule(text_rule, "expected RULE:<regex>/<replacement>/");
    if (rest == "L" || rest == "U") {
      rule.case_flag = rest[0];
    } else if (!rest.empty()) {
      return invalid_rule(text_rule, "only L or U may follow the replacement");
    }
    if (Status s = check_replacement(text_rule, *replacement); !s.ok()) return s;
    try {
      rule.pattern = std::regex(pattern->begin(), pattern->end(), std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return invalid_rule(text_rule, fmt::format("bad regular expression ({})", e.what()));
    }
    rule.replacement = std::string(*replacement);
    rules.rules_.push_back(std::move(rule));
  }
  if (rules.rules_.empty()) {
    return Status(ErrorCode::INVALID_CONFIG, "ssl.principal.mapping.rules: no rules");
  }
  return rules;
}

Result<std::string> PrincipalMappingRules::apply(std::string_view name) const {
  using Iterator = std::regex_iterator<std::string_view::const_iterator>;
  // libstdc++'s matcher recurses per character: a bound keeps a huge name off the stack's end.
  // Real subject names are far shorter.
  constexpr size_t kMaxName = 8192;
  if (name.size() > kMaxName) {
    return Status(ErrorCode::SASL_AUTHENTICATION_FAILED,
                  fmt::format("a subject name of {} bytes is too long to map", name.size()));
  }
  for (const Rule& rule : rules_) {
    if (rule.is_default) return std::string(name);
    try {
      if (!std::regex_match(name.begin(), name.end(), rule.pattern)) continue;
      // As Java's replaceAll: every match in turn, not only the whole-name one.
      std::string out;
      auto last = name.begin();
      for (Iterator it(name.begin(), name.end(), rule.pattern), end; it != end; ++it) {
        out.append(last, (*it)[0].first);
        out += expand(rule.replacement, *it);
        last = (*it)[0].second;
      }
      out.append(last, name.end());
      for (char& c : out) {
        if (rule.case_flag == 'L') c = static_cast<char>(std::tolower(uint8_t(c)));
        if (rule.case_flag == 'U') c = static_cast<char>(std::toupper(uint8_t(c)));
      }
      return out;
    } catch (const std::regex_error&) {
      // libstdc++ gives up on some patterns over long input (its matcher recurses).
      return Status(ErrorCode::SASL_AUTHENTICATION_FAILED,
                    fmt::format("ssl.principal.mapping.rules: matching {} failed", name));
    }
  }
  return Status(ErrorCode::SASL_AUTHENTICATION_FAILED, fmt::format("No rules apply to {}", name));
}

}  // namespace mirra::security
