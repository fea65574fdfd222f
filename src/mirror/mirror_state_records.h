// The records of `__mirror_state` (docs/mirroring-design.md §3): one key per mirror partition, its
// latest value wins (the topic is compacted). Layout in docs/formats/mirror_state.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "base/status.h"
#include "base/uuid.h"
#include "protocol/wire.h"

namespace mirra::mirror {

// docs/mirroring-design.md §3's states, with the numbers DescribeMirrors and ListMirrors carry.
enum class MirrorState : int8_t {
  preparing = 0,
  mirroring = 1,
  paused = 2,
  stopping = 3,
  stopped = 4,
  failed = 5,
};

// Not a state of a mirror partition, never stored: DescribeMirrors' state for a source
// partition the destination's topic lacks (docs/mirroring-design.md §3.1, §8).
inline constexpr int8_t kNotMirroredState = 6;

struct MirrorStateKey {
  Uuid topic_id;
  int32_t partition = 0;
  bool operator==(const MirrorStateKey&) const = default;
  auto operator<=>(const MirrorStateKey& o) const {
    if (auto c = topic_id.bytes <=> o.topic_id.bytes; c != 0) return c;
    return partition <=> o.partition;
  }
};

struct MirrorStateValue {
  std::string mirror;
  std::string source_cluster_id;  // the source's cluster id ("" unknown): failback asks by it
  int8_t state = 0;               // a MirrorState
  int8_t previous_state = -1;
  int64_t last_mirrored_offset = -1;  // the LMO, set by a failover
  int32_t retries = 0;
  int32_t state_epoch = 0;  // +1 per write: a writer expecting an older epoch is fenced
  int16_t last_error_code = 0;
  std::optional<std::string> last_error;
  bool operator==(const MirrorStateValue&) const = default;
};

inline constexpr int16_t kMirrorStateKeyVersion = 0;
inline constexpr int16_t kMirrorStateValueVersion = 0;

protocol::Bytes encode_state_key(const MirrorStateKey& key);
protocol::Bytes encode_state_value(const MirrorStateValue& value);
// CORRUPT_MESSAGE on truncation, trailing bytes or an unknown version.
Result<MirrorStateKey> decode_state_key(std::span<const uint8_t> bytes);
Result<MirrorStateValue> decode_state_value(std::span<const uint8_t> bytes);

}  // namespace mirra::mirror
