#include "protocol/frame.h"

namespace mirra::protocol {

Result<int32_t> read_frame_size(std::span<const uint8_t> prefix, int32_t max_size) {
  if (prefix.size() < kFrameSizeBytes) {
    return Status(ErrorCode::CORRUPT_MESSAGE, "frame size prefix is shorter than 4 bytes");
  }
  Reader r(prefix.first(kFrameSizeBytes));
  const int32_t size = r.read_int32();
  if (size < 0) {
    return Status(ErrorCode::CORRUPT_MESSAGE, "negative frame size " + std::to_string(size));
  }
  if (size > max_size) {
    return Status(ErrorCode::INVALID_REQUEST, "frame of " + std::to_string(size) +
                                                  " bytes exceeds the limit of " +
                                                  std::to_string(max_size));
  }
  return size;
}

namespace {

// Header version for a request. A version above the range is read with the flexibility of the
// newest version: KIP-511 clients send their newest ApiVersions with header v2 and expect an
// UNSUPPORTED_VERSION answer, which needs the correlation id.
int16_t header_version_for(const ApiInfo* api, int16_t version) {
  if (api == nullptr) return 1;
  if (version > api->max_version) return request_header_version(*api, api->max_version);
  return request_header_version(*api, version);
}

}  // namespace

Result<RequestEnvelope> decode_request_envelope(std::span<const uint8_t> frame) {
  RequestEnvelope env;
  Reader peek(frame);
  const int16_t key = peek.read_int16();
  const int16_t version = peek.read_int16();
  if (peek.failed()) return peek.status("request header");
  env.api = find_api(key);
  env.header_version = header_version_for(env.api, version);
  Reader r(frame);
  Status s = env.header.decode(r, env.header_version);
  if (!s) return s;
  env.body = frame.subspan(r.position());
  return env;
}

void patch_frame_size(Bytes& out) { patch_frame_size(out, {}); }

void patch_frame_size(Bytes& out, const std::vector<Splice>& splices) {
  size_t total = out.size() - kFrameSizeBytes;
  for (const Splice& s : splices) total += s.size;
  const auto size = static_cast<uint32_t>(total);
  out[0] = static_cast<uint8_t>(size >> 24);
  out[1] = static_cast<uint8_t>(size >> 16);
  out[2] = static_cast<uint8_t>(size >> 8);
  out[3] = static_cast<uint8_t>(size);
}

}  // namespace mirra::protocol
