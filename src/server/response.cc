#include "server/response.h"

namespace mirra::server {

Result<protocol::Bytes> materialize(const Response& r) {
  if (r.splices.empty()) return r.bytes;
  protocol::Bytes out;
  out.reserve(r.size());
  size_t pos = 0;
  for (const protocol::Splice& s : r.splices) {
    out.insert(out.end(), r.bytes.begin() + static_cast<std::ptrdiff_t>(pos),
               r.bytes.begin() + static_cast<std::ptrdiff_t>(s.at));
    pos = s.at;
    const auto& slices = *static_cast<const FileSliceList*>(s.source);
    if (Status st = storage::copy_slices(slices, out); !st.ok()) return st;
  }
  out.insert(out.end(), r.bytes.begin() + static_cast<std::ptrdiff_t>(pos), r.bytes.end());
  return out;
}

}  // namespace mirra::server
