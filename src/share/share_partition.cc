#include "share/share_partition.h"

#include <algorithm>

#include "base/assert.h"

namespace mirra::share {
namespace {

bool finished(RecordState s) {
  return s == RecordState::acknowledged || s == RecordState::archived;
}

bool known_type(AckType t) {
  return static_cast<int8_t>(t) >= static_cast<int8_t>(AckType::gap) &&
         static_cast<int8_t>(t) <= static_cast<int8_t>(AckType::renew);
}

// Appends `offset` to the last range when it continues it with the same delivery count.
void add_to(std::vector<AcquiredRange>& out, int64_t offset, int16_t delivery_count) {
  if (!out.empty() && out.back().last + 1 == offset &&
      out.back().delivery_count == delivery_count) {
    out.back().last = offset;
  } else {
    out.push_back({offset, offset, delivery_count});
  }
}

}  // namespace

SharePartition::SharePartition(int64_t start_offset) : start_(start_offset), end_(start_offset) {
  MIRRA_ASSERT(start_offset >= 0, "a share partition starts at an offset, not {}", start_offset);
}

RecordState SharePartition::state(int64_t offset) const {
  if (offset < start_) return RecordState::archived;
  auto it = records_.find(offset);
  return it == records_.end() ? RecordState::available : it->second.state;
}

int16_t SharePartition::delivery_count(int64_t offset) const {
  auto it = records_.find(offset);
  return it == records_.end() ? 0 : it->second.delivery_count;
}

int64_t SharePartition::finished_in_flight() const {
  int64_t n = 0;
  for (const auto& [offset, r] : records_) {
    if (r.state == RecordState::acknowledged || r.state == RecordState::archived) ++n;
  }
  return n;
}

std::vector<AcquiredRange> SharePartition::acquire(const std::string& member, int64_t from,
                                                   int64_t readable_end, int64_t max_records,
                                                   int64_t now_ms, const ShareLimits& limits) {
  MIRRA_ASSERT(!member.empty(), "records are acquired by a member");
  std::vector<AcquiredRange> out;
  int64_t taken = 0;
  auto take = [&](int64_t offset, Record& r) {
    r.state = RecordState::acquired;
    ++r.delivery_count;
    r.member = member;
    r.deadline_ms = now_ms + limits.lock_duration_ms;
    add_to(out, offset, r.delivery_count);
    ++taken;
  };
  for (auto it = records_.lower_bound(from); it != records_.end(); ++it) {
    if (taken >= max_records || it->first >= readable_end) break;
    if (it->second.state == RecordState::available) take(it->first, it->second);
  }
  while (taken < max_records && end_ >= from && end_ < readable_end &&
         static_cast<int64_t>(records_.size()) < limits.max_in_flight) {
    take(end_, records_[end_]);
    ++end_;
  }
  check_invariants();
  return out;
}

int64_t SharePartition::first_acquirable(const ShareLimits& limits) const {
  for (const auto& [offset, r] : records_) {
    if (r.state == RecordState::available) return offset;
  }
  return static_cast<int64_t>(records_.size()) < limits.max_in_flight ? end_ : -1;
}

int64_t SharePartition::next_deadline() const {
  int64_t next = INT64_MAX;
  for (const auto& [offset, r] : records_) {
    if (r.state == RecordState::acquired) next = std::min(next, r.deadline_ms);
  }
  return next;
}

ErrorCode SharePartition::acknowledge(const std::string& member, int64_t first, int64_t last,
                                      const std::vector<AckType>& types, int64_t now_ms,
                                      const ShareLimits& limits) {
  if (first < 0 || first > last || types.empty() ||
      (types.size() != 1 && types.size() != static_cast<uint64_t>(last - first) + 1) ||
      !std::all_of(types.begin(), types.end(), known_type)) {
    return ErrorCode::INVALID_REQUEST;
  }
  auto type_of = [&](int64_t offset) {
    return types.size() == 1 ? types[0] : types[static_cast<size_t>(offset - first)];
  };
  // All or nothing: every offset is checked before any changes.
  if (first < start_ || last >= end_) return ErrorCode::INVALID_RECORD_STATE;
  for (int64_t o = first; o <= last; ++o) {
    const Record& r = records_.at(o);
    const bool held = r.state == RecordState::acquired && r.member == member;
    const bool gap_ok = type_of(o) == AckType::gap && r.state == RecordState::available;
    if (!held && !gap_ok) return ErrorCode::INVALID_RECORD_STATE;
  }
  for (int64_t o = first; o <= last; ++o) {
    Record& r = records_.at(o);
    switch (type_of(o)) {
      case AckType::accept:
        r = Record{RecordState::acknowledged, r.delivery_count, {}, 0};
        break;
      case AckType::release:
        give_back(r, limits);
        break;
      case AckType::gap:
      case AckType::reject:
        r = Record{RecordState::archived, r.delivery_count, {}, 0};
        break;
      case AckType::renew:
        r.deadline_ms = now_ms + limits.lock_duration_ms;
        break;
    }
  }
  move_start();
  check_invariants();
  return ErrorCode::NONE;
}

void SharePartition::expire_locks(int64_t now_ms, const ShareLimits& limits) {
  for (auto& [offset, r] : records_) {
    if (r.state == RecordState::acquired && r.deadline_ms <= now_ms) give_back(r, limits);
  }
  move_start();
  check_invariants();
}

void SharePartition::release_member(const std::string& member, const ShareLimits& limits) {
  for (auto& [offset, r] : records_) {
    if (r.state == RecordState::acquired && r.member == member) give_back(r, limits);
  }
  move_start();
  check_invariants();
}

void SharePartition::advance_log_start(int64_t log_start) {
  if (log_start <= start_) return;
  records_.erase(records_.begin(), records_.lower_bound(log_start));
  start_ = log_start;
  end_ = std::max(end_, log_start);
  move_start();
  check_invariants();
}

void SharePartition::reset(int64_t start_offset) {
  MIRRA_ASSERT(start_offset >= 0, "a share partition starts at an offset, not {}", start_offset);
  records_.clear();
  start_ = end_ = start_offset;
  check_invariants();
}

ShareSnapshot SharePartition::snapshot() const {
  ShareSnapshot out{start_, {}};
  for (const auto& [offset, r] : records_) {
    const RecordState state = r.state == RecordState::acquired ? RecordState::available : r.state;
    if (!out.runs.empty() && out.runs.back().last + 1 == offset && out.runs.back().state == state &&
        out.runs.back().delivery_count == r.delivery_count) {
      out.runs.back().last = offset;
    } else {
      out.runs.push_back({offset, offset, state, r.delivery_count});
    }
  }
  return out;
}

Result<SharePartition> SharePartition::restore(const ShareSnapshot& snapshot) {
  auto bad = [](std::string why) {
    return Status(ErrorCode::INVALID_REQUEST, "share partition snapshot: " + why);
  };
  if (snapshot.start_offset < 0) return bad("negative start offset");
  SharePartition p(snapshot.start_offset);
  int64_t next = snapshot.start_offset;
  for (const ShareSnapshot::Run& run : snapshot.runs) {
    if (run.first != next || run.last < run.first) return bad("runs not consecutive");
    if (run.state == RecordState::acquired || run.delivery_count < 0) return bad("bad run state");
    if (run.state != RecordState::available && run.state != RecordState::acknowledged &&
        run.state != RecordState::archived) {
      return bad("unknown record state");
    }
    if (run.last - run.first >= 1'000'000) return bad("run longer than any in-flight window");
    for (int64_t o = run.first; o <= run.last; ++o) {
      p.records_.emplace_hint(p.records_.end(), o, Record{run.state, run.delivery_count, {}, 0});
    }
    next = run.last + 1;
  }
  p.end_ = next;
  // A finished prefix (a snapshot of an older format, or hand-made) moves the start as usual.
  p.move_start();
  p.check_invariants();
  return p;
}

void SharePartition::give_back(Record& r, const ShareLimits& limits) {
  const RecordState next = r.delivery_count >= limits.delivery_count_limit ? RecordState::archived
                                                                           : RecordState::available;
  r = Record{next, r.delivery_count, {}, 0};
}

void SharePartition::move_start() {
  while (!records_.empty() && finished(records_.begin()->second.state)) {
    records_.erase(records_.begin());
    ++start_;
  }
}

void SharePartition::check_invariants() const {
  MIRRA_ASSERT(start_ <= end_, "start {} above end {}", start_, end_);
  MIRRA_ASSERT(static_cast<int64_t>(records_.size()) == end_ - start_,
               "{} entries for the {} offsets in flight", records_.size(), end_ - start_);
  if (records_.empty()) return;
  MIRRA_ASSERT(records_.begin()->first == start_ && records_.rbegin()->first == end_ - 1,
               "entries {}..{} for offsets {}..{}", records_.begin()->first,
               records_.rbegin()->first, start_, end_ - 1);
  MIRRA_ASSERT(!finished(records_.begin()->second.state), "a finished offset {} at the start",
               start_);
#if MIRRA_ASSERTIONS_ACTIVE
  for (const auto& [offset, r] : records_) {
    MIRRA_ASSERT(r.state != RecordState::acquired || (!r.member.empty() && r.delivery_count >= 1),
                 "offset {} acquired without a member or a delivery", offset);
  }
#endif
}

}  // namespace mirra::share
