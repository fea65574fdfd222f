// DescribeMirrors' sync fields (docs/mirroring-design.md §12): the sync tasks' status of a
// mirror (mirror::describe_sync()) put on the wire as the DescribedMirror's tagged fields, so
// clients that predate them read the rest unchanged. Apart from the handler so that the
// translation is tested on its own (tests/server/describe_mirrors_sync_test.cc): in-process
// brokers run no sync tasks.
#pragma once

#include "mirror/mirror_describe.h"
#include "protocol/messages/describe_mirrors.h"

namespace mirra::server {

void sync_to_wire(const mirror::SyncDescription& sync,
                  protocol::DescribeMirrorsResponse::DescribedMirror& out);

}  // namespace mirra::server
