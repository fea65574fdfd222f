// Failure injection for tests of error paths that a real fault would take (a storage error in
// the middle of mirroring, a crash between two steps of a failover). Off unless the
// environment variable MIRRA_FAILPOINTS is set when the process starts:
//
//   MIRRA_FAILPOINTS="name=ACTION[*COUNT];name=ACTION..."
//
// ACTION is an error code name (KAFKA_STORAGE_ERROR, ...): the failpoint returns that error,
// or `crash`: the process ends at once as if killed (_exit(137), no cleanup, nothing flushed).
// COUNT limits how many hits fire (default: every hit). Unknown names never fire; a malformed
// variable is reported on stderr and ignored. The names are listed where they are hit
// (grep "failpoint(").
#pragma once

#include <string_view>

#include "base/status.h"

namespace mirra {

// OK, or the error the failpoint `name` is set to fire (which counts as one hit).
Status failpoint(std::string_view name);
// Whether MIRRA_FAILPOINTS set any: callers that build a name per hit check this first.
bool failpoints_active();

}  // namespace mirra
