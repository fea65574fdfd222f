// LogWriter: who changes a partition's log, for PartitionManager::start_write().
//
// A mirror topic is read-only while it is mirrored (docs/mirroring-design.md §4): its log is
// the source's, offset for offset, so any other append, marker, truncation or log start move
// would put something at an offset where the source has something else, and the mirror would
// never notice. The manager therefore refuses every write to a partition its read-only check
// reports as mirrored unless the writer is the mirror itself. The mirror's writer is a
// capability: only PartitionManager makes one, once (take_mirror_writer()), for the mirror
// manager; clients' and coordinators' writers can be named by anyone.
#pragma once

#include <cstdint>
#include <string_view>

namespace mirra::cluster {

class LogWriter {
 public:
  // Produce, DeleteRecords: what a client asked for.
  static LogWriter client() { return LogWriter(Kind::client); }
  // The transaction and group coordinators' markers and internal-topic appends.
  static LogWriter coordinator() { return LogWriter(Kind::coordinator); }

  bool is_mirror() const { return kind_ == Kind::mirror; }
  std::string_view name() const {
    switch (kind_) {
      case Kind::client:
        return "client";
      case Kind::coordinator:
        return "coordinator";
      case Kind::mirror:
        break;
    }
    return "mirror";
  }

 private:
  enum class Kind : uint8_t { client, coordinator, mirror };
  explicit LogWriter(Kind kind) : kind_(kind) {}
  friend class PartitionManager;  // the only maker of the mirror's writer

  Kind kind_;
};

}  // namespace mirra::cluster
