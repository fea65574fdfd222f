#include "cli/configs_logic.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <openssl/evp.h>

#include "base/parse.h"
#include "base/text.h"

namespace mirra::cli {
namespace {

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_CONFIG, std::move(message));
}

// Splits at commas that are not inside [...], as kafka-configs.sh does.
Result<std::vector<std::string_view>> split_top_level(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && --depth < 0) return invalid("unbalanced ']' in --add-config");
    if (text[i] == ',' && depth == 0) {
      out.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (depth != 0) return invalid("unbalanced '[' in --add-config");
  out.push_back(trim(text.substr(start)));
  return out;
}

std::string known_mechanisms() { return "SCRAM-SHA-256 and SCRAM-SHA-512"; }

Result<security::ScramMechanism> mechanism_of(std::string_view name, std::string_view option) {
  auto m = security::scram_mechanism_from_name(name);
  if (!m)
    return invalid(fmt::format("{}: '{}' is not a config of users (known: {})", option, name,
                               known_mechanisms()));
  return *m;
}

// Standard base64 with padding, optionally in double quotes (kafka-storage.sh's form).
std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
    text = text.substr(1, text.size() - 2);
  if (text.empty() || text.size() % 4 != 0) return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  const size_t padding = text.ends_with("==") ? 2 : text.ends_with('=') ? 1 : 0;
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

// salt=B64 / saltedpassword=B64. The value is never shown: a salted password is a secret.
Status parse_base64_setting(std::string_view key, std::string_view value,
                            std::optional<std::string>& target) {
  auto bytes = base64_decode(value);
  if (!bytes || bytes->empty()) return invalid(fmt::format("--add-config: {} is not base64", key));
  target = std::move(*bytes);
  return Status::OK();
}

// The inside of `[...]`: iterations=N and password=P (the password may hold '='), or instead of
// the password saltedpassword=B64 with salt=B64 (salt alone keeps the password).
Status parse_mechanism_settings(std::string_view body, client::ScramUpsertion& u) {
  bool has_password = false;
  size_t start = 0;
  while (start <= body.size()) {
    size_t comma = body.find(',', start);
    if (comma == std::string_view::npos) comma = body.size();
    std::string_view item = trim(body.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return invalid(fmt::format("--add-config: '{}' of {} is not key=value", item.substr(0, 20),
                                 security::scram_mechanism_name(u.mechanism)));
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    if (key == "iterations") {
      auto n = parse_decimal<int32_t>(value);
      if (!n) return invalid(fmt::format("--add-config: iterations '{}' is not a number", value));
      u.iterations = *n;
    } else if (key == "password") {
      u.password = std::string(value);
      has_password = true;
    } else if (key == "salt") {
      if (Status s = parse_base64_setting(key, value, u.salt); !s.ok()) return s;
    } else if (key == "saltedpassword") {
      if (Status s = parse_base64_setting(key, value, u.salted_password); !s.ok()) return s;
    } else {
      return invalid(
          fmt::format("--add-config: unknown SCRAM setting '{}' (known: iterations, "
                      "password, salt, saltedpassword)",
                      key));
    }
  }
  const std::string_view name = security::scram_mechanism_name(u.mechanism);
  if (has_password == u.salted_password.has_value())
    return invalid(
        fmt::format("--add-config: {} needs either password=... or saltedpassword=...", name));
  if (u.salted_password && !u.salt)
    return invalid(fmt::format("--add-config: {}: saltedpassword needs salt", name));
  return Status::OK();
}

}  // namespace

Status check_configs_args(ConfigsArgs& a) {
  if (a.alter == a.describe) return invalid("exactly one of --alter and --describe is needed");
  if (a.entity_type.empty()) return invalid("--entity-type is required");
  if (a.entity_type == "user") a.entity_type = std::string(kUsersEntity);
  if (a.entity_type != kUsersEntity)
    return invalid(
        fmt::format("--entity-type '{}' is not supported (supported: users)", a.entity_type));
  if (a.entity_default)
    return invalid(
        "--entity-default is not allowed for users: SCRAM credentials belong to named users");
  if (a.entity_name && a.entity_name->empty()) return invalid("--entity-name must not be empty");
  if (a.describe && (!a.add_config.empty() || !a.delete_config.empty()))
    return invalid("--add-config and --delete-config go with --alter, not --describe");
  if (a.alter) {
    if (!a.entity_name) return invalid("--alter needs --entity-name");
    if (a.add_config.empty() && a.delete_config.empty())
      return invalid("--alter needs --add-config or --delete-config");
  }
  return Status::OK();
}

Result<std::vector<client::ScramUpsertion>> parse_scram_add_config(std::string_view text,
                                                                   const std::string& user) {
  auto items = split_top_level(text);
  if (!items.ok()) return items.status();
  std::vector<client::ScramUpsertion> out;
  for (std::string_view item : *items) {
    const size_t eq = item.find('=');
    const std::string_view name = trim(item.substr(0, eq));
    auto m = mechanism_of(name, "--add-config");
    if (!m.ok()) return m.status();
    const std::string_view value = eq == std::string_view::npos ? "" : trim(item.substr(eq + 1));
    if (value.size() < 2 || value.front() != '[' || value.back() != ']')
      return invalid(fmt::format("--add-config: {} takes [iterations=N,password=P]", name));
    if (std::any_of(out.begin(), out.end(), [&](const auto& u) { return u.mechanism == *m; }))
      return invalid(fmt::format("--add-config: {} given twice", name));
    client::ScramUpsertion& u = out.emplace_back();
    u.user = user;
    u.mechanism = *m;
    if (Status s = parse_mechanism_settings(value.substr(1, value.size() - 2), u); !s.ok())
      return s;
  }
  return out;
}

Result<std::vector<client::ScramDeletion>> parse_scram_delete_config(std::string_view text,
                                                                     const std::string& user) {
  auto items = split_top_level(text);
  if (!items.ok()) return items.status();
  std::vector<client::ScramDeletion> out;
  for (std::string_view item : *items) {
    auto m = mechanism_of(item, "--delete-config");
    if (!m.ok()) return m.status();
    if (std::any_of(out.begin(), out.end(), [&](const auto& d) { return d.mechanism == *m; }))
      return invalid(fmt::format("--delete-config: {} given twice", item));
    out.push_back({user, *m});
  }
  return out;
}

std::string describe_line(const client::UserScramCredentials& user) {
  std::vector<std::string> items;
  for (const client::ScramCredentialInfo& c : user.credentials) {
    items.push_back(
        fmt::format("{}=iterations={}", security::scram_mechanism_name(c.mechanism), c.iterations));
  }
  return fmt::format("SCRAM credential configs for user-principal '{}' are {}", user.user,
                     fmt::join(items, ", "));
}

}  // namespace mirra::cli
