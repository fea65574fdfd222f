// What `mirra mirror --describe` prints (docs/mirroring.md "Watch it"), as pure functions of the
// DescribeMirrors answer and the time, so that tests/cli/mirror_describe_format_test.cc checks
// them without a broker.
//
// Text: one table of every mirror partition, then per mirror its sync tasks (docs/mirroring-
// design.md §8): "Sync of mirror M", a row per kind, and the groups with something to say.
// JSON: one array; the partition rows first, as they always were (no "type" key), then rows with
// "type": "throttle", "sync" (one per mirror and kind) and "syncGroup" (mirror/describe_json.h
// writes each row, as for the broker's /v1/mirrors).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/types.h"

namespace mirra::cli {

// How long ago `then_ms` was at `now_ms`: "1.5s ago", "3m07s ago", "2h05m ago"; "-" for never
// (-1). A time ahead of ours (another clock) counts as now.
std::string age(int64_t then_ms, int64_t now_ms);

std::string describe_text(const std::vector<client::MirrorDescription>& mirrors, int64_t now_ms);
std::string describe_json(const std::vector<client::MirrorDescription>& mirrors);

}  // namespace mirra::cli
