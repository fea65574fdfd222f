// A connection's responses in request order. Each request read takes the next sequence number
// (push); its handler may finish at any time (complete), and the writer only ever takes the
// head (pop) once it is complete, so a slow handler (long-poll fetch, acks=all) holds back the
// responses behind it and clients always see answers in the order they asked.
//
// The queue is bounded two ways, which is the connection's backpressure: by entries (requests
// read but not yet written) and by bytes of completed, unwritten responses. The reader stops
// reading from the socket while full(), so a client that does not read its answers only ever
// stalls itself.
//
// Owned by one connection on the core thread; no locking.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "server/response.h"

namespace mirra::server {

struct ResponseEntry {
  Response response;         // the response to write, if close is false
  bool close = false;        // close the connection here (after every earlier response)
  std::string close_reason;  // empty: the client closed, nothing worth a warning
};

class ResponseQueue {
 public:
  ResponseQueue(size_t max_entries, size_t max_bytes)
      : max_entries_(max_entries), max_bytes_(max_bytes) {}

  bool full() const { return slots_.size() >= max_entries_ || bytes_ >= max_bytes_; }
  bool empty() const { return slots_.empty(); }
  size_t size() const { return slots_.size(); }

  // Reserves the slot for the next request; returns its sequence number.
  uint64_t push() {
    slots_.emplace_back();
    return next_seq_++;
  }
  // Fills a reserved slot. Sequence numbers not currently reserved are ignored.
  void complete(uint64_t seq, ResponseEntry entry) {
    if (seq < head_seq_ || seq >= next_seq_) return;
    auto& slot = slots_[seq - head_seq_];
    if (slot) return;
    bytes_ += entry.response.size();
    slot = std::move(entry);
  }
  bool head_ready() const { return !slots_.empty() && slots_.front().has_value(); }
  // Only when head_ready().
  ResponseEntry pop() {
    ResponseEntry e = std::move(*slots_.front());
    slots_.pop_front();
    ++head_seq_;
    bytes_ -= e.response.size();
    return e;
  }

 private:
  size_t max_entries_;
  size_t max_bytes_;
  size_t bytes_ = 0;
  uint64_t head_seq_ = 0;
  uint64_t next_seq_ = 0;
  std::deque<std::optional<ResponseEntry>> slots_;
};

}  // namespace mirra::server
