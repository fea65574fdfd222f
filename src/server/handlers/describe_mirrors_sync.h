// DescribeMirrors' answer, apart from its handler so that the broker's /v1/mirrors
// (server/http_json.h) shows exactly what DescribeMirrors answers.
//
// Its sync fields (docs/mirroring-design.md §12): the sync tasks' status of a
// mirror (mirror::describe_sync()) put on the wire as the DescribedMirror's tagged fields, so
// clients that predate them read the rest unchanged. Apart from the handler so that the
// translation is tested on its own (tests/server/describe_mirrors_sync_test.cc): in-process
// brokers run no sync tasks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mirror/mirror_describe.h"
#include "protocol/messages/describe_mirrors.h"

namespace mirra::mirror {
class MirrorManager;
}  // namespace mirra::mirror

namespace mirra::server {

// The answer to DescribeMirrors for `names` (every mirror when nullopt). Core thread.
protocol::DescribeMirrorsResponse describe_mirrors_response(
    const mirror::MirrorManager& mirrors, const std::optional<std::vector<std::string>>& names);

void sync_to_wire(const mirror::SyncDescription& sync,
                  protocol::DescribeMirrorsResponse::DescribedMirror& out);

}  // namespace mirra::server
