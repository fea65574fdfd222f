#include "cli/common.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "base/properties.h"
#include "client/security.h"

namespace mirra::cli {

int fail(std::string_view command, std::string_view message) {
  fmt::print(stderr, "mirra {}: {}\n", command, message);
  return 1;
}

Result<Properties> parse_properties(const std::vector<std::string>& items,
                                    std::string_view option) {
  Properties out;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("{} '{}' is not of the form key=value", option, item));
    }
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

Result<bool> parse_bool(const Properties& p, const std::string& key, bool fallback) {
  auto it = p.find(key);
  if (it == p.end()) return fallback;
  std::string v = it->second;
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "true") return true;
  if (v == "false") return false;
  return Status(ErrorCode::INVALID_CONFIG,
                fmt::format("{}={} must be true or false", key, it->second));
}

Result<int64_t> parse_int(std::string_view text, std::string_view what) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("{} must be an integer, not '{}'", what, text));
  }
  return v;
}

Result<client::ClientOptions> client_options(const std::string& bootstrap_servers,
                                             const Properties& props) {
  if (bootstrap_servers.empty()) {
    return Status(ErrorCode::INVALID_CONFIG, "--bootstrap-server is required");
  }
  client::ClientOptions o;
  o.bootstrap_servers = bootstrap_servers;
  o.client_id = "mirra-cli";
  for (const auto& kv : props) {
    // Named references, not a structured binding: clang 14 cannot capture bindings.
    const std::string& key = kv.first;
    const std::string& value = kv.second;
    auto ms = [&](client::Millis& target) -> Status {
      auto v = parse_int(value, key);
      if (!v.ok()) return v.status();
      target = client::Millis(v.value());
      return Status::OK();
    };
    Status s;
    if (client::is_client_security_key(key)) {
      continue;  // read together below
    } else if (key == "client.id") {
      o.client_id = value;
    } else if (key == "request.timeout.ms") {
      s = ms(o.request_timeout);
    } else if (key == "socket.connection.setup.timeout.ms") {
      s = ms(o.connect_timeout);
    } else if (key == "retry.backoff.ms") {
      s = ms(o.retry_backoff);
    } else if (key == "delivery.timeout.ms" || key == "default.api.timeout.ms") {
      s = ms(o.retry_timeout);
    }
    // Other Kafka client properties have no meaning for this client; they are accepted so
    // that existing command lines keep working.
    if (!s.ok()) return s;
  }
  // TLS and SASL as Kafka's clients read them; a setting that cannot be honoured is refused
  // rather than connected without (client/security.h).
  auto security = client::read_client_security(props, "client property");
  if (!security.ok()) return security.status();
  o.security = std::move(security.value());
  auto servers = client::parse_bootstrap_servers(bootstrap_servers);
  if (!servers.ok()) return servers.status();
  return o;
}

Result<std::vector<std::string>> with_config_file(const std::string& path, std::string_view option,
                                                  const std::vector<std::string>& items) {
  std::vector<std::string> out;
  if (!path.empty()) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("cannot read {} {}: {}", option, path, std::strerror(errno)));
    }
    std::ostringstream text;
    text << in.rdbuf();
    auto props = mirra::parse_properties(text.str());
    if (!props.ok()) {
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("{} {}: {}", option, path, props.status().message()));
    }
    for (const Property& p : props.value()) out.push_back(p.key + "=" + p.value);
  }
  out.insert(out.end(), items.begin(), items.end());
  return out;
}

Result<std::unique_ptr<client::SyncClient>> open_client(
    const std::string& bootstrap_servers, const std::vector<std::string>& command_properties) {
  auto props = parse_properties(command_properties, "--command-property");
  if (!props.ok()) return props.status();
  auto options = client_options(bootstrap_servers, props.value());
  if (!options.ok()) return options.status();
  return client::SyncClient::create(options.value());
}

Result<std::unique_ptr<client::SyncClient>> open_client(
    const std::string& bootstrap_servers, const std::string& command_config,
    const std::vector<std::string>& command_properties) {
  auto items = with_config_file(command_config, "--command-config", command_properties);
  if (!items.ok()) return items.status();
  return open_client(bootstrap_servers, items.value());
}

void add_bootstrap_option(CLI::App* sub, std::string& target) {
  sub->add_option("--bootstrap-server", target,
                  "REQUIRED: the server(s) to connect to, host:port[,host:port...]");
}

}  // namespace mirra::cli
