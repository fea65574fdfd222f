// What the files of `mirra configs` share (configs.cc: options and dispatch;
// configs_resources.cc: topics and brokers; configs_quotas.cc: users and clients, quotas and
// SCRAM credentials). The pure logic is in configs_logic.h and configs_quota_logic.h.
#pragma once

#include <string_view>

#include "cli/configs_logic.h"
#include "client/sync_client.h"

namespace mirra::cli::configs_cmd {

constexpr std::string_view kCommand = "configs";

// Topics and brokers: DescribeConfigs (with synonyms) and IncrementalAlterConfigs.
int describe_resources(client::SyncClient& c, const ConfigsArgs& a);
int alter_resource(client::SyncClient& c, const ConfigsArgs& a);

// Users and clients: DescribeClientQuotas / AlterClientQuotas, and for users alone the SCRAM
// credential calls.
int describe_quotas(client::SyncClient& c, const ConfigsArgs& a);
int alter_quotas(client::SyncClient& c, const ConfigsArgs& a);

}  // namespace mirra::cli::configs_cmd
