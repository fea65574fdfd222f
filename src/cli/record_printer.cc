#include "cli/record_printer.h"

#include <algorithm>
#include <set>

#include <fmt/core.h>

#include "protocol/records/record.h"
#include "protocol/records/record_set.h"

namespace mirra::cli {
namespace {

// Aborted transactions of one fetch response, applied as batches go by (Kafka's consumer
// algorithm): a producer's data is dropped from its abort's first offset to its ABORT marker.
class AbortFilter {
 public:
  explicit AbortFilter(std::vector<client::AbortedTransaction> aborted)
      : aborted_(std::move(aborted)) {
    std::sort(aborted_.begin(), aborted_.end(),
              [](const auto& a, const auto& b) { return a.first_offset < b.first_offset; });
  }
  // False when the batch's records are to be skipped.
  bool keep(const records::BatchView& b, std::vector<uint8_t>& scratch) {
    while (next_ < aborted_.size() && aborted_[next_].first_offset <= b.last_offset()) {
      active_.insert(aborted_[next_++].producer_id);
    }
    if (b.is_control()) {
      auto it = records::iterate_records(b, scratch);
      records::RecordView rec;
      if (it.ok() && it->next(rec)) {
        auto marker = records::parse_control_record(rec);
        if (marker.ok() && marker->type == static_cast<int16_t>(records::ControlType::ABORT)) {
          active_.erase(b.producer_id());
        }
      }
      return false;
    }
    return !(b.is_transactional() && active_.count(b.producer_id()) != 0);
  }

 private:
  std::vector<client::AbortedTransaction> aborted_;
  size_t next_ = 0;
  std::set<int64_t> active_;
};

void write(std::FILE* out, std::string_view s) { std::fwrite(s.data(), 1, s.size(), out); }

}  // namespace

Result<RecordPrinter> RecordPrinter::from_properties(const Properties& props) {
  RecordPrinter p;
  const std::pair<const char*, bool*> flags[] = {{"print.timestamp", &p.timestamp_},
                                                 {"print.partition", &p.partition_},
                                                 {"print.offset", &p.offset_},
                                                 {"print.headers", &p.headers_},
                                                 {"print.key", &p.key_},
                                                 {"print.value", &p.value_}};
  for (const auto& [key, target] : flags) {
    auto v = parse_bool(props, key, *target);
    if (!v.ok()) return v.status();
    *target = v.value();
  }
  const std::pair<const char*, std::string*> texts[] = {
      {"key.separator", &p.key_separator_},
      {"line.separator", &p.line_separator_},
      {"headers.separator", &p.headers_separator_},
      {"headers.key.separator", &p.headers_key_separator_},
      {"null.literal", &p.null_literal_}};
  for (const auto& [key, target] : texts) {
    if (auto it = props.find(key); it != props.end()) *target = it->second;
  }
  return p;
}

Result<int64_t> RecordPrinter::print(const client::FetchedPartition& f, int64_t& position,
                                     int64_t limit, std::FILE* out) {
  int64_t printed = 0;
  AbortFilter aborts(f.aborted_transactions);
  records::RecordSetIterator it(f.records, /*validate=*/true);
  records::BatchView batch;
  records::RecordSetStep step;
  auto nullable = [&](const records::NullableBytes& b) {
    return b ? records::as_string(*b) : std::string_view(null_literal_);
  };
  while ((step = it.next(batch)) == records::RecordSetStep::batch) {
    if (batch.next_offset() <= position) continue;
    if (!aborts.keep(batch, scratch_)) {
      position = batch.next_offset();
      continue;
    }
    Status s = records::for_each_record(batch, scratch_, [&](const records::RecordView& r) {
      const int64_t offset = batch.base_offset() + r.offset_delta;
      if (offset < position) return Status::OK();
      if (limit >= 0 && printed >= limit) return Status::OK();  // skip the rest
      std::string line;
      // Each column is followed by the key separator when another column follows it.
      auto column = [&](std::string_view text, bool more) {
        line += text;
        line += more ? key_separator_ : line_separator_;
      };
      if (timestamp_) {
        const bool append = batch.timestamp_type() == records::TimestampType::log_append_time;
        const int64_t ts =
            append ? batch.max_timestamp()
                   : records::record_timestamp(batch.base_timestamp(), r.timestamp_delta);
        column(fmt::format("{}:{}", append ? "LogAppendTime" : "CreateTime", ts),
               partition_ || offset_ || headers_ || key_ || value_);
      }
      if (partition_)
        column(fmt::format("Partition:{}", f.tp.partition), offset_ || headers_ || key_ || value_);
      if (offset_) column(fmt::format("Offset:{}", offset), headers_ || key_ || value_);
      if (headers_) {
        std::string hs;
        auto hit = r.headers();
        records::HeaderView h;
        for (bool first = true; hit.next(h); first = false) {
          if (!first) hs += headers_separator_;
          hs += records::as_string(h.key);
          hs += headers_key_separator_;
          hs += nullable(h.value);
        }
        column(r.header_count == 0 ? "NO_HEADERS" : hs, key_ || value_);
      }
      if (key_) column(nullable(r.key), value_);
      if (value_) column(nullable(r.value), false);
      write(out, line);
      ++printed;
      position = offset + 1;
      return Status::OK();
    });
    if (!s.ok()) return s;
    if (limit >= 0 && printed >= limit) return printed;
    position = std::max(position, batch.next_offset());
  }
  if (step == records::RecordSetStep::error) return it.status();
  return printed;
}

}  // namespace mirra::cli
