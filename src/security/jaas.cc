#include "security/jaas.h"

#include <cctype>
#include <optional>

#include <fmt/format.h>

namespace mirra::security {
namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// A bare token runs to whitespace or one of the grammar's own characters.
bool is_bare(char c) { return !is_space(c) && c != '=' && c != ';' && c != '"'; }

// Splits the text into tokens: bare words, quoted strings (their content, escapes undone) and
// the single characters '=' and ';'. Quoting is remembered so that a quoted "=" is a value.
class Lexer {
 public:
  struct Token {
    std::string text;
    bool quoted = false;
    bool is(char c) const { return !quoted && text.size() == 1 && text[0] == c; }
  };

  explicit Lexer(std::string_view text) : text_(text) {}

  // nullopt at the end; an error for an unterminated quote.
  Result<std::optional<Token>> next() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
    if (pos_ == text_.size()) return std::optional<Token>();
    const char c = text_[pos_];
    if (c == '=' || c == ';') {
      ++pos_;
      return std::optional<Token>(Token{std::string(1, c), false});
    }
    if (c == '"') return quoted();
    Token t;
    while (pos_ < text_.size() && is_bare(text_[pos_])) t.text.push_back(text_[pos_++]);
    return std::optional<Token>(std::move(t));
  }

 private:
  // A backslash makes the next character literal (\" and \\ are the ones that matter).
  Result<std::optional<Token>> quoted() {
    Token t{std::string(), true};
    for (++pos_; pos_ < text_.size(); ++pos_) {
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return std::optional<Token>(std::move(t));
      }
      if (c == '\\') {
        if (++pos_ == text_.size()) break;
        c = text_[pos_];
      }
      t.text.push_back(c);
    }
    return Status(ErrorCode::INVALID_CONFIG, "sasl.jaas.config: unterminated quoted value");
  }

  std::string_view text_;
  size_t pos_ = 0;
};

Status invalid(std::string why) {
  return Status(ErrorCode::INVALID_CONFIG, fmt::format("sasl.jaas.config: {}", why));
}

std::optional<std::string> control_flag(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (text == "required" || text == "requisite" || text == "sufficient" || text == "optional") {
    return text;
  }
  return std::nullopt;
}

}  // namespace

Result<JaasConfig> parse_jaas_config(std::string_view text) {
  Lexer lexer(text);
  auto next = [&lexer]() { return lexer.next(); };
  JaasConfig config;

  auto module = next();
  if (!module.ok()) return module.status();
  if (!module.value() || module.value()->quoted || module.value()->text.empty() ||
      module.value()->is('=') || module.value()->is(';')) {
    return invalid("expected a login module class name");
  }
  config.login_module = module.value()->text;

  auto flag_token = next();
  if (!flag_token.ok()) return flag_token.status();
  std::optional<std::string> flag;
  if (flag_token.value() && !flag_token.value()->quoted)
    flag = control_flag(flag_token.value()->text);
  if (!flag) {
    return invalid(fmt::format(
        "expected a control flag (required, requisite, sufficient or optional) after {}",
        config.login_module));
  }
  config.control_flag = *flag;

  // Options until ';'. Names are printed in errors, values never (they are passwords).
  while (true) {
    auto name = next();
    if (!name.ok()) return name.status();
    if (!name.value()) return invalid("the entry does not end with ';'");
    if (name.value()->is(';')) break;
    if (name.value()->quoted || name.value()->is('=')) return invalid("expected an option name");
    const std::string key = name.value()->text;
    auto eq = next();
    if (!eq.ok()) return eq.status();
    if (!eq.value() || !eq.value()->is('=')) {
      return invalid(fmt::format("expected '=' after option {}", key));
    }
    auto value = next();
    if (!value.ok()) return value.status();
    if (!value.value() || value.value()->is('=') || value.value()->is(';')) {
      return invalid(fmt::format("option {} has no value", key));
    }
    if (!config.options.emplace(key, std::move(value.value()->text)).second) {
      return invalid(fmt::format("option {} is given twice", key));
    }
  }

  auto rest = next();
  if (!rest.ok()) return rest.status();
  if (rest.value()) return invalid("expected exactly one login module entry");
  return config;
}

std::map<std::string, std::string> jaas_plain_users(const JaasConfig& config) {
  constexpr std::string_view kPrefix = "user_";
  std::map<std::string, std::string> users;
  for (const auto& [key, value] : config.options) {
    if (key.size() > kPrefix.size() && key.starts_with(kPrefix)) {
      users.emplace(key.substr(kPrefix.size()), value);
    }
  }
  return users;
}

}  // namespace mirra::security
