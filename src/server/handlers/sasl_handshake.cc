// SaslHandshake (key 17): picks the SASL mechanism of a connection on a SASL listener
// (server/sasl_session.h). Anywhere else, and after authentication without a session lifetime,
// it is answered with ILLEGAL_SASL_STATE, as Kafka's API layer does. The answer always lists
// the listener's enabled mechanisms (clients print them when theirs is missing).
#include "protocol/messages/sasl_handshake.h"

#include "server/handlers/handlers.h"
#include "server/listener_security.h"
#include "server/sasl_session.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_sasl_handshake(RequestContext& ctx) {
  auto req = decode_body<protocol::SaslHandshakeRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::SaslHandshakeResponse resp;
  if (ctx.security == nullptr || ctx.security->sasl == nullptr) {
    resp.error_code = static_cast<int16_t>(ErrorCode::ILLEGAL_SASL_STATE);
    co_return respond(ctx, resp);
  }
  resp.mechanisms = ctx.security->listener->sasl_mechanisms;
  const SaslSession::Handshake h =
      ctx.security->sasl->handshake(req->mechanism, ctx.api_version, SaslSession::Clock::now());
  resp.error_code = static_cast<int16_t>(h.error);
  ctx.security->close_after_response = h.close;
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
