// MirrorStateStore: the durable state of every mirror partition (docs/mirroring-design.md §3) in
// the compacted internal topic `__mirror_state`, owned by this broker's mirror manager (the
// MirrorCoordinator of a single node). A state is appended before it is adopted, and each write
// names the state epoch it expects, so that a writer working from a stale read is fenced
// (INVALID_MIRROR_STATE).
//
// Threading: the core thread (checked: MIRRA_ASSERT_OWNER, base/assert.h).
#pragma once

#include <map>
#include <set>
#include <vector>

#include "base/asio.h"
#include "base/assert.h"
#include "cluster/internal_topic.h"
#include "mirror/mirror_state_records.h"

namespace mirra::mirror {

class MirrorStateStore {
 public:
  explicit MirrorStateStore(cluster::InternalTopic& topic) : topic_(topic) {}

  // Reads every partition of the topic, if it exists (start-up).
  asio::awaitable<Status> load();
  const MirrorStateValue* get(const MirrorStateKey& key) const;
  const std::map<MirrorStateKey, MirrorStateValue>& all() const { return states_; }
  // The state epoch a write must expect: the stored one, or -1 for a key never written.
  int32_t epoch_of(const MirrorStateKey& key) const;
  // Persists `value` (its state_epoch becomes expected + 1) and adopts it. INVALID_MIRROR_STATE
  // when the stored epoch is not `expected_epoch` or another write of the key is in flight.
  asio::awaitable<Status> put(const MirrorStateKey& key, MirrorStateValue value,
                              int32_t expected_epoch);
  // put() for many keys in one append per state partition (a topic's partitions share one):
  // the first states of a topic of 1,000 partitions are one write, not 1,000. All or none are
  // adopted; a key whose epoch is not the expected one, or written meanwhile, or named twice,
  // refuses the lot (INVALID_MIRROR_STATE) before anything is written.
  struct Put {
    MirrorStateKey key;
    MirrorStateValue value;
    int32_t expected_epoch = -1;
  };
  asio::awaitable<Status> put_all(std::vector<Put> puts);

 private:
  int32_t partition_of(const MirrorStateKey& key) const;

  cluster::InternalTopic& topic_;
  std::map<MirrorStateKey, MirrorStateValue> states_;
  std::set<MirrorStateKey> writing_;
  ThreadOwner owner_;  // the core thread
};

}  // namespace mirra::mirror
