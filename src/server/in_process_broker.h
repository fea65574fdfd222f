// InProcessBroker: a real broker (metadata log, partition logs, shard threads) in a temporary
// directory, without listeners, driven request by request through dispatch_request() on the
// calling thread, which acts as the core thread. For handler tests and the request-path
// fuzzer: everything but the sockets is the production code.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/asio.h"
#include "protocol/frame.h"
#include "server/broker.h"

namespace mirra::server {

class InProcessBroker {
 public:
  // `overrides` are server.properties settings ("key=value"); log.dirs defaults to a fresh
  // temporary directory, removed again by the destructor.
  static Result<std::unique_ptr<InProcessBroker>> start(std::vector<std::string> overrides = {});
  ~InProcessBroker();

  BrokerState& state() { return broker_->state(); }
  const std::filesystem::path& dir() const { return dir_; }

  // One request frame (without its size prefix) through the whole request path.
  HandlerResult dispatch(std::span<uint8_t> frame);

  // Encodes `req` at `version`, dispatches it and decodes the response; spliced record data is
  // read in. A closed connection or a malformed response is a failed Result. Decoded responses
  // view their frame (record sets are not copied), so frames are kept as long as the broker.
  template <typename Resp, typename Req>
  Result<Resp> call(const Req& req, int16_t version) {
    auto frame = send(protocol::encode_request_frame(header(Req::kApiKey, version), req));
    if (!frame.ok()) return frame.status();
    return decode<Resp>(std::move(frame.value()), version);
  }

  // Starts a request without waiting for it (e.g. a long-polling Fetch); poll with run_until.
  struct Call {
    std::optional<HandlerResult> result;
    protocol::Bytes frame;  // owned here while the handler runs
  };
  template <typename Req>
  std::shared_ptr<Call> start_call(const Req& req, int16_t version) {
    auto call = std::make_shared<Call>();
    call->frame = protocol::encode_request_frame(header(Req::kApiKey, version), req);
    spawn(call);
    return call;
  }
  // Runs the core loop until `call` has its result.
  void run_until_done(const Call& call);
  // Runs whatever is ready on the core loop now, without waiting.
  void poll() { io_.poll(); }
  // Runs the core loop for `d` (timers included: e.g. the group coordinator's sweep).
  void run_for(std::chrono::milliseconds d) { io_.run_for(d); }
  // Runs the core loop (timers included) until `done` holds; false after `limit`.
  template <typename F>
  bool run_until(F done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      run_for(std::chrono::milliseconds(10));
    }
    return true;
  }
  // Decodes a finished call's response.
  template <typename Resp>
  Result<Resp> response_of(const Call& call, int16_t version) {
    auto frame = materialized(call);
    if (!frame.ok()) return frame.status();
    return decode<Resp>(std::move(frame.value()), version);
  }

  // Runs the core loop until the coroutine completes.
  void run(asio::awaitable<void> a);

 private:
  InProcessBroker() = default;
  protocol::RequestHeader header(int16_t key, int16_t version);
  Result<protocol::Bytes> send(protocol::Bytes frame);
  void spawn(const std::shared_ptr<Call>& call);
  Result<protocol::Bytes> materialized(const Call& call);
  // Frame (size prefix included) -> response body after the header of this API and version.
  template <typename Resp>
  Result<Resp> decode(protocol::Bytes frame_in, int16_t version) {
    const protocol::Bytes& frame = keep(std::move(frame_in));
    auto body = response_body(Resp::kApiKey, version, frame);
    if (!body.ok()) return body.status();
    Resp resp;
    protocol::Reader r(body.value());
    if (Status s = resp.decode(r, version); !s.ok()) return s;
    return resp;
  }
  const protocol::Bytes& keep(protocol::Bytes frame) {
    return *kept_frames_.emplace_back(std::make_unique<protocol::Bytes>(std::move(frame)));
  }
  Result<std::span<const uint8_t>> response_body(int16_t key, int16_t version,
                                                 const protocol::Bytes& frame);

  std::filesystem::path dir_;
  bool own_dir_ = false;
  asio::io_context io_{1};
  LoadedConfig loaded_;
  std::unique_ptr<Broker> broker_;
  int32_t next_correlation_id_ = 1;
  const ConnectionInfo conn_{1, "in-process", "PLAINTEXT", "127.0.0.1"};
  std::vector<std::unique_ptr<protocol::Bytes>> kept_frames_;  // see call()
};

}  // namespace mirra::server
