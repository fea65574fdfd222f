// Compile-time facts about requests, for the client: which response type answers a request
// type, which requests get no response, and the oldest version of each API the client speaks.
#pragma once

#include <cstdint>

#include "protocol/messages/all_messages.h"

namespace mirra::client {

// response_t<protocol::ProduceRequest> is protocol::ProduceResponse; taken from the same
// X-macro table visit_api uses, so the pairing cannot drift from the generated code.
template <typename Req>
struct ResponseOf;
#define MIRRA_CLIENT_RESPONSE_OF(Api, Request, Response) \
  template <>                                            \
  struct ResponseOf<protocol::Request> {                 \
    using type = protocol::Response;                     \
  };
MIRRA_FOR_EACH_API(MIRRA_CLIENT_RESPONSE_OF)
#undef MIRRA_CLIENT_RESPONSE_OF

template <typename Req>
using response_t = typename ResponseOf<Req>::type;

// Produce with acks=0 is the one request a broker never answers.
template <typename Req>
bool expects_response(const Req&) {
  return true;
}
inline bool expects_response(const protocol::ProduceRequest& req) { return req.acks != 0; }

// The oldest version the client sends: Produce v3 and Fetch v4 are the first with record batch
// v2 (magic 2), which is the only format the client builds and reads; Metadata v1 is the first
// that can ask for all topics with a null list. Everything else: the codec's own minimum.
inline int16_t client_min_version(int16_t api_key, int16_t codec_min) {
  switch (api_key) {
    case protocol::ProduceRequest::kApiKey:
      return 3;
    case protocol::FetchRequest::kApiKey:
      return 4;
    case protocol::MetadataRequest::kApiKey:
      return 1;
    default:
      return codec_min;
  }
}

}  // namespace mirra::client
