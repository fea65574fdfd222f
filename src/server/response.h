// What a handler gives back: a complete response frame (size prefix included), possibly with
// holes for record data that the connection sends straight from segment files with
// sendfile(2) (zero copy on plaintext connections). Handlers without zero-copy data return
// plain bytes.
#pragma once

#include <memory>
#include <vector>

#include "base/status.h"
#include "protocol/frame.h"
#include "storage/partition_log.h"

namespace mirra::server {

// The external source of a spliced records view: whole batches in segment files.
using FileSliceList = std::vector<storage::FileSlice>;

struct Response {
  Response() = default;
  Response(protocol::Bytes b) : bytes(std::move(b)) {}  // NOLINT: plain responses
  explicit Response(protocol::SplicedFrame f, std::shared_ptr<const void> keep_alive)
      : bytes(std::move(f.bytes)),
        splices(std::move(f.splices)),
        keep_alive(std::move(keep_alive)) {}

  protocol::Bytes bytes;
  // Holes in `bytes`, in order; each source is a FileSliceList that keep_alive owns.
  std::vector<protocol::Splice> splices;
  std::shared_ptr<const void> keep_alive;
  // The client's quota throttle (docs/quotas.md): the connection reads no further request from
  // the client for this long after the response (KIP-219 muting), even if it has no bytes.
  int64_t throttle_ms = 0;

  bool empty() const { return bytes.empty() && splices.empty(); }
  size_t size() const {
    size_t n = bytes.size();
    for (const auto& s : splices) n += s.size;
    return n;
  }
};

// The response as one contiguous frame, spliced data read in (tests, fuzzing, and
// connections that cannot use sendfile). Reads files: not for the core thread in production.
Result<protocol::Bytes> materialize(const Response& r);

}  // namespace mirra::server
