// Dispatch from a runtime API key to the generated request/response types.
#pragma once

#include <cstdint>

#include "protocol/messages/all_messages.h"

namespace mirra::protocol {

// Calls f.template operator()<Request, Response>() for the API with this key and returns true,
// or returns false when Mirra does not implement the key. Use with a templated lambda:
//   visit_api(key, [&]<typename Req, typename Resp>() { ... });
template <typename F>
bool visit_api(int16_t key, F&& f) {
  switch (key) {
#define MIRRA_VISIT_CASE(Api, Request, Response) \
  case Request::kApiKey:                         \
    f.template operator()<Request, Response>();  \
    return true;
    MIRRA_FOR_EACH_API(MIRRA_VISIT_CASE)
#undef MIRRA_VISIT_CASE
    default:
      return false;
  }
}

}  // namespace mirra::protocol
