// Request dispatch: a table indexed by API key with one handler per API
// (src/server/handlers/<api>.cc). dispatch_request() turns one request frame into a response
// frame or a reason to close the connection.
//
// What closes the connection (with a log line), as Kafka 4.x does:
//   - a header that does not decode, an API key Mirra does not know;
//   - a version outside the advertised range, except ApiVersions above its range, which gets
//     the KIP-511 answer (v0 layout, UNSUPPORTED_VERSION, the full API list);
//   - an API that is advertised but has no handler yet (this slice of the broker);
//   - a body that does not decode (the handler's decode Status is logged).
#pragma once

#include <cstdint>
#include <span>

#include "server/request_context.h"

namespace mirra::server {

// The handler for an API key, or nullptr when none is registered yet.
Handler find_handler(int16_t api_key);

// Checks the envelope and picks the handler. On success fills ctx (except connection/broker)
// and returns the handler; else a Status saying why to close.
Result<Handler> route_request(std::span<uint8_t> frame, RequestContext& ctx);

// route_request() + the handler. `frame` must stay alive until the returned awaitable finishes.
// `security`: the connection's authentication state, for the SASL handlers (may be null).
asio::awaitable<HandlerResult> dispatch_request(std::span<uint8_t> frame,
                                                const ConnectionInfo& conn, BrokerState& broker,
                                                ConnectionSecurity* security = nullptr);

// dispatch_request() run to completion on a private io_context: for tests, fuzzing and tools,
// never on the core thread. A handler's exception is rethrown.
HandlerResult dispatch_request_now(std::span<uint8_t> frame, const ConnectionInfo& conn,
                                   BrokerState& broker);

}  // namespace mirra::server
