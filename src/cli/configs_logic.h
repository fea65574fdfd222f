// The pure part of `mirra configs` (configs.cc): kafka-configs.sh's option rules and the
// `--add-config` / `--delete-config` syntax for SCRAM users, and the describe lines. Entity
// types other than users come later (issue 18); the rules here are shaped to take them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "client/scram_users.h"

namespace mirra::cli {

// The options of one `mirra configs` run, as given.
struct ConfigsArgs {
  std::string bootstrap;
  std::vector<std::string> command_properties;
  bool alter = false;
  bool describe = false;
  std::string entity_type;
  std::optional<std::string> entity_name;
  bool entity_default = false;
  std::string add_config;
  std::string delete_config;
};

// kafka-configs.sh's entity type names (plural; the singular forms are accepted too).
inline constexpr std::string_view kUsersEntity = "users";

// Checks the option combination and normalises the entity type ("user" -> "users"). Errors are
// one line each, naming the option.
Status check_configs_args(ConfigsArgs& a);

// `SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=x]`: one
// upsertion per mechanism for `user` (iterations default to 4096). INVALID_CONFIG for anything
// else; messages never show a password.
Result<std::vector<client::ScramUpsertion>> parse_scram_add_config(std::string_view text,
                                                                   const std::string& user);
// `SCRAM-SHA-512` or `SCRAM-SHA-256,SCRAM-SHA-512`.
Result<std::vector<client::ScramDeletion>> parse_scram_delete_config(std::string_view text,
                                                                     const std::string& user);

// "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192,
// SCRAM-SHA-512=iterations=4096", as kafka-configs.sh prints it.
std::string describe_line(const client::UserScramCredentials& user);

}  // namespace mirra::cli
