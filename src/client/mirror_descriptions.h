// DescribeMirrors' answer as the client's types: one translation for Client::describe_mirrors()
// and for the broker's own /v1/mirrors, which builds the same answer without a connection
// (server/http_json.h), so that both show the same figures.
#pragma once

#include <vector>

#include "client/types.h"
#include "protocol/messages/describe_mirrors.h"

namespace mirra::client {

std::vector<MirrorDescription> mirror_descriptions(const protocol::DescribeMirrorsResponse& r);

}  // namespace mirra::client
