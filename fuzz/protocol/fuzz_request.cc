// Fuzzes the request path's decoding: frame size prefix, request header, and the body of
// whichever API the header names, at whichever version it names. Anything the decoder accepts
// must re-encode, and the re-encoding must be a fixed point (decode(encode(x)) encodes to the
// same bytes), so encode and decode cannot silently disagree.
#include <cstdint>
#include <cstdlib>

#include "protocol/api_visit.h"
#include "protocol/frame.h"

using namespace mirra::protocol;

namespace {

template <typename M>
Bytes reencode(std::span<const uint8_t> body, int16_t version, bool& ok) {
  M m;
  Reader r(body);
  ok = m.decode(r, version).ok();
  Bytes out;
  if (ok) append_message(out, m, version);
  return out;
}

template <typename M>
void check_body(std::span<const uint8_t> body, int16_t version) {
  bool ok = false;
  Bytes first = reencode<M>(body, version, ok);
  if (!ok) return;
  bool ok2 = false;
  Bytes second = reencode<M>(first, version, ok2);
  if (!ok2 || second != first) abort();  // encode/decode disagree
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> in(data, size);
  // The first 4 bytes double as a size prefix, checked like the broker checks it.
  auto frame_size = read_frame_size(in, 100 << 20);
  (void)frame_size;

  auto env = decode_request_envelope(in);
  if (!env.ok()) return 0;
  const int16_t version = env->header.request_api_version;
  if (env->api == nullptr || !env->api->supports(version)) return 0;
  visit_api(env->api->key, [&]<typename Req, typename Resp>() {
    check_body<Req>(env->body, version);
    // Responses travel the other way (the mirror's and the CLI's client decodes them).
    check_body<Resp>(env->body, version);
  });
  return 0;
}
