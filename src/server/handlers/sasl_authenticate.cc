// SaslAuthenticate (key 36): one SASL token of the exchange a SaslHandshake v1 started
// (server/sasl_session.h). A failed authentication is answered with SASL_AUTHENTICATION_FAILED
// and a message, then the connection closes; outside an exchange the answer is
// ILLEGAL_SASL_STATE.
#include "protocol/messages/sasl_authenticate.h"

#include "server/handlers/handlers.h"
#include "server/sasl_session.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_sasl_authenticate(RequestContext& ctx) {
  auto req = decode_body<protocol::SaslAuthenticateRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::SaslAuthenticateResponse resp;
  if (ctx.security == nullptr || ctx.security->sasl == nullptr) {
    resp.error_code = static_cast<int16_t>(ErrorCode::ILLEGAL_SASL_STATE);
    resp.error_message = "SaslAuthenticate on a listener without SASL";
    co_return respond(ctx, resp);
  }
  const std::string_view token(reinterpret_cast<const char*>(req->auth_bytes.data()),
                               req->auth_bytes.size());
  SaslSession::Step step = ctx.security->sasl->authenticate(token, SaslSession::Clock::now());
  resp.error_code = static_cast<int16_t>(step.error);
  if (step.error != ErrorCode::NONE) resp.error_message = std::move(step.message);
  resp.auth_bytes.assign(step.token.begin(), step.token.end());
  resp.session_lifetime_ms = step.session_lifetime_ms;
  ctx.security->close_after_response = step.close;
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
