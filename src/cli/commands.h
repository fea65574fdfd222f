// The client subcommands, one file each; main.cc registers them.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/common.h"

namespace mirra::cli {

void add_topics_command(CLI::App& app, CommandResult& result);
void add_produce_command(CLI::App& app, CommandResult& result);
void add_consume_command(CLI::App& app, CommandResult& result);
void add_groups_command(CLI::App& app, CommandResult& result);
void add_share_groups_command(CLI::App& app, CommandResult& result);
void add_transactions_command(CLI::App& app, CommandResult& result);
void add_mirror_command(CLI::App& app, CommandResult& result);
void add_configs_command(CLI::App& app, CommandResult& result);
void add_acls_command(CLI::App& app, CommandResult& result);

}  // namespace mirra::cli
