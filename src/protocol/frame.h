// Framing: every Kafka request and response is a 4-byte big-endian size, then a header, then the
// body. This file reads and writes that envelope; the header and body codecs are generated.
#pragma once

#include <cstdint>
#include <span>

#include "base/status.h"
#include "protocol/api_table.h"
#include "protocol/messages/headers.h"
#include "protocol/wire.h"

namespace mirra::protocol {

inline constexpr size_t kFrameSizeBytes = 4;

// The size announced by a frame's 4-byte prefix, checked against the limit
// (socket.request.max.bytes on the broker). Negative sizes and sizes over the limit are errors:
// the connection cannot be resynchronised after either.
Result<int32_t> read_frame_size(std::span<const uint8_t> prefix, int32_t max_size);

// A request frame body (without the size prefix) split into its decoded header and the body
// bytes that follow it. `api` is null when the key is unknown to Mirra; the header is then
// decoded as v1, which every client uses for such probes.
struct RequestEnvelope {
  RequestHeader header;
  const ApiInfo* api = nullptr;
  int16_t header_version = 1;
  std::span<const uint8_t> body;
};
Result<RequestEnvelope> decode_request_envelope(std::span<const uint8_t> frame);

// Writes out.size() - 4 into the first four bytes.
void patch_frame_size(Bytes& out);
// The same for a frame with holes: the size counts the spliced bytes too.
void patch_frame_size(Bytes& out, const std::vector<Splice>& splices);

// Appends a message to `out` with exactly one reservation.
template <typename M>
void append_message(Bytes& out, const M& m, int16_t version) {
  out.reserve(out.size() + m.size(version));
  Writer w(out);
  m.encode(w, version);
}

// size prefix + header + body, with one reservation for the whole frame.
template <typename H, typename M>
Bytes encode_frame(const H& header, int16_t header_version, const M& body, int16_t version) {
  Bytes out;
  out.reserve(kFrameSizeBytes + header.size(header_version) + body.size(version));
  out.resize(kFrameSizeBytes);
  append_message(out, header, header_version);
  append_message(out, body, version);
  patch_frame_size(out);
  return out;
}

// A request frame (client side); the version is the header's request_api_version.
template <typename M>
Bytes encode_request_frame(const RequestHeader& header, const M& body) {
  const ApiInfo* api = find_api(M::kApiKey);
  const int16_t version = header.request_api_version;
  return encode_frame(header, api ? request_header_version(*api, version) : 1, body, version);
}

// A response frame (broker side).
template <typename M>
Bytes encode_response_frame(int32_t correlation_id, int16_t version, const M& body) {
  const ApiInfo* api = find_api(M::kApiKey);
  ResponseHeader header;
  header.correlation_id = correlation_id;
  return encode_frame(header, api ? response_header_version(*api, version) : 0, body, version);
}

// A response frame whose external records views are left as holes (zero-copy fetch).
struct SplicedFrame {
  Bytes bytes;
  std::vector<Splice> splices;
};

template <typename M>
SplicedFrame encode_response_frame_spliced(int32_t correlation_id, int16_t version, const M& body) {
  const ApiInfo* api = find_api(M::kApiKey);
  ResponseHeader header;
  header.correlation_id = correlation_id;
  SplicedFrame f;
  f.bytes.resize(kFrameSizeBytes);
  append_message(f.bytes, header, api ? response_header_version(*api, version) : 0);
  Writer w(f.bytes, &f.splices);
  body.encode(w, version);
  patch_frame_size(f.bytes, f.splices);
  return f;
}

}  // namespace mirra::protocol
