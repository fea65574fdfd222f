// SharePartition: one topic-partition as one share group sees it (docs/share-groups-design.md):
// which records are being worked on, by whom, and how often they were handed out.
//
// Offsets below the start offset (Kafka's SPSO) are finished. Offsets in [start, end) are in
// flight, each in one state:
//   Available     may be handed out (again): never yet, or released, or its lock expired;
//   Acquired      handed to one member until it acknowledges or its lock deadline passes;
//   Acknowledged  accepted by a member: done;
//   Archived      rejected, a gap (no record there), or handed out delivery-count-limit times.
// Offsets from `end` on have never been handed out. The start moves up over the finished
// (Acknowledged or Archived) prefix; at most `max_in_flight` offsets are in flight, so a slow
// consumer holds back acquisition of new records, not the partition.
//
// Invariants (asserted after every change): start <= end; every offset of [start, end) has an
// entry and nothing else has; the entry at start, if any, is not finished; an Acquired entry
// has a member and a deadline; a delivery count is at least 1 once acquired.
//
// Pure logic: time is passed in, nothing is read or written. Threading: not synchronised; the
// broker keeps share partitions on its core thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/error_codes.h"
#include "base/status.h"

namespace mirra::share {

enum class RecordState : int8_t { available = 0, acquired = 1, acknowledged = 2, archived = 4 };

// Kafka's acknowledgement types on the wire (ShareFetch, ShareAcknowledge).
enum class AckType : int8_t { gap = 0, accept = 1, release = 2, reject = 3, renew = 4 };

struct ShareLimits {
  int64_t lock_duration_ms = 30'000;  // share.record.lock.duration.ms
  int16_t delivery_count_limit = 5;   // group.share.delivery.count.limit
  int64_t max_in_flight = 2'000;      // group.share.partition.max.record.locks
};

// Consecutive offsets handed out together with the same delivery count (AcquiredRecords).
struct AcquiredRange {
  int64_t first = 0;
  int64_t last = 0;
  int16_t delivery_count = 0;
  bool operator==(const AcquiredRange&) const = default;
};

// What survives a restart of one share partition (docs/formats/share_group_state.md): the start
// offset and, for every in-flight offset in order, its state and delivery count in runs.
// Acquired is never written: an offset acquired at the time comes back Available with its
// delivery count.
struct ShareSnapshot {
  struct Run {
    int64_t first = 0;
    int64_t last = 0;
    RecordState state = RecordState::available;
    int16_t delivery_count = 0;
    bool operator==(const Run&) const = default;
  };
  int64_t start_offset = 0;
  std::vector<Run> runs;  // consecutive, from start_offset on
  bool operator==(const ShareSnapshot&) const = default;
};

class SharePartition {
 public:
  explicit SharePartition(int64_t start_offset);

  int64_t start_offset() const { return start_; }
  int64_t end_offset() const { return end_; }
  size_t in_flight() const { return records_.size(); }
  // The state of an in-flight offset; archived below the start, available from the end.
  RecordState state(int64_t offset) const;
  int16_t delivery_count(int64_t offset) const;
  // In-flight offsets already finished (Acknowledged or Archived): above the start, but not to
  // be delivered again (Kafka's delivery-complete count, which a group's lag leaves out).
  int64_t finished_in_flight() const;

  // Hands `member` up to `max_records` offsets in [from, readable_end): `readable_end` is the
  // log's end as the group may read it (the high watermark, or the LSO under read_committed)
  // or less, `from` where the caller's read of the log begins, so that every offset handed out
  // is in the records it sends. Released and expired ones first, lowest offset first, then
  // new ones from the end (when the end is at or above `from`) while fewer than max_in_flight
  // are in flight. Each one's lock runs until now_ms + lock_duration_ms.
  std::vector<AcquiredRange> acquire(const std::string& member, int64_t from, int64_t readable_end,
                                     int64_t max_records, int64_t now_ms,
                                     const ShareLimits& limits);
  // Where a read for acquire() should begin: the lowest Available offset, else the end; -1
  // when nothing could be acquired (no Available offset and the window is full).
  int64_t first_acquirable(const ShareLimits& limits) const;
  // The earliest lock deadline of an Acquired offset; INT64_MAX when none is held.
  int64_t next_deadline() const;

  // One acknowledgement batch [first, last] with one type for all, or one per offset.
  // INVALID_RECORD_STATE and nothing changed when an offset is not Acquired by `member`
  // (Gap may also name an Available offset: there is no record to hand out); INVALID_REQUEST
  // for a malformed batch (first > last, types neither 1 nor last - first + 1 long, an unknown
  // type).
  ErrorCode acknowledge(const std::string& member, int64_t first, int64_t last,
                        const std::vector<AckType>& types, int64_t now_ms,
                        const ShareLimits& limits);

  // Locks past their deadline: the records are Available again, or Archived at the limit.
  void expire_locks(int64_t now_ms, const ShareLimits& limits);
  // Everything `member` holds goes back, as for an expired lock (it left, was fenced, or its
  // share session closed).
  void release_member(const std::string& member, const ShareLimits& limits);
  // The log no longer holds offsets below `log_start` (retention, DeleteRecords): they are gone
  // from the window as if finished.
  void advance_log_start(int64_t log_start);
  // AlterShareGroupOffsets: everything forgotten, consumption restarts at `start_offset`.
  void reset(int64_t start_offset);

  ShareSnapshot snapshot() const;
  // The partition a snapshot describes; INVALID_REQUEST (nothing built) when the snapshot
  // breaks the window's rules: runs not consecutive from the start, a finished run at the
  // start, an Acquired run, a negative offset or count.
  static Result<SharePartition> restore(const ShareSnapshot& snapshot);

 private:
  struct Record {
    RecordState state = RecordState::available;
    int16_t delivery_count = 0;
    std::string member;       // Acquired only
    int64_t deadline_ms = 0;  // Acquired only
  };

  void give_back(Record& r, const ShareLimits& limits);
  void move_start();
  void check_invariants() const;

  int64_t start_;
  int64_t end_;
  std::map<int64_t, Record> records_;  // exactly the offsets [start_, end_)
};

}  // namespace mirra::share
