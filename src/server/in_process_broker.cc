#include "server/in_process_broker.h"

#include <fmt/format.h>

#include <cstdlib>

#include "server/dispatch.h"

namespace mirra::server {

Result<std::unique_ptr<InProcessBroker>> InProcessBroker::start(
    std::vector<std::string> overrides) {
  std::unique_ptr<InProcessBroker> b(new InProcessBroker());
  bool has_dir = false;
  for (const std::string& o : overrides) has_dir |= o.rfind("log.dirs=", 0) == 0;
  if (!has_dir) {
    char dir_template[] = "/tmp/mirra-inproc-XXXXXX";
    if (mkdtemp(dir_template) == nullptr) {
      return Status(ErrorCode::KAFKA_STORAGE_ERROR, "cannot create a temporary directory");
    }
    b->dir_ = dir_template;
    b->own_dir_ = true;
    overrides.push_back("log.dirs=" + b->dir_.string());
  }
  auto loaded = load_config(std::nullopt, overrides);
  if (!loaded.ok()) return loaded.status();
  b->loaded_ = std::move(loaded.value());
  b->dir_ = b->loaded_.config.log_dir;
  b->broker_ = std::make_unique<Broker>(b->io_, b->loaded_);
  Status started = Status::OK();
  b->run([&]() -> asio::awaitable<void> { started = co_await b->broker_->start(false); }());
  if (!started.ok()) return started;
  return b;
}

InProcessBroker::~InProcessBroker() {
  if (broker_) run(broker_->stop());
  broker_.reset();
  if (own_dir_) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

void InProcessBroker::run(asio::awaitable<void> a) {
  bool done = false;
  std::exception_ptr error;
  asio::co_spawn(io_, std::move(a), [&](std::exception_ptr e) {
    error = e;
    done = true;
  });
  while (!done) io_.run_one();  // shard jobs post their completions back to io_
  if (error) std::rethrow_exception(error);
}

HandlerResult InProcessBroker::dispatch(std::span<uint8_t> frame) {
  std::optional<HandlerResult> out;
  run([&]() -> asio::awaitable<void> {
    out.emplace(co_await dispatch_request(frame, conn_, state()));
  }());
  return std::move(*out);
}

protocol::RequestHeader InProcessBroker::header(int16_t key, int16_t version) {
  protocol::RequestHeader h;
  h.request_api_key = key;
  h.request_api_version = version;
  h.correlation_id = next_correlation_id_++;
  h.client_id = "in-process";
  return h;
}

Result<protocol::Bytes> InProcessBroker::send(protocol::Bytes frame) {
  std::span<uint8_t> body(frame);
  auto r = dispatch(body.subspan(protocol::kFrameSizeBytes));
  if (!r.ok()) return r.status();
  return materialize(r.value());
}

void InProcessBroker::spawn(const std::shared_ptr<Call>& call) {
  asio::co_spawn(
      io_,
      [this, call]() -> asio::awaitable<void> {
        std::span<uint8_t> body(call->frame);
        call->result.emplace(
            co_await dispatch_request(body.subspan(protocol::kFrameSizeBytes), conn_, state()));
      },
      asio::detached);
}

void InProcessBroker::run_until_done(const Call& call) {
  while (!call.result) io_.run_one();
}

Result<protocol::Bytes> InProcessBroker::materialized(const Call& call) {
  if (!call.result) return Status(ErrorCode::REQUEST_TIMED_OUT, "the call has not finished");
  if (!call.result->ok()) return call.result->status();
  return materialize(call.result->value());
}

Result<std::span<const uint8_t>> InProcessBroker::response_body(int16_t key, int16_t version,
                                                                const protocol::Bytes& frame) {
  const protocol::ApiInfo* api = protocol::find_api(key);
  if (api == nullptr || frame.size() < protocol::kFrameSizeBytes) {
    return Status(ErrorCode::CORRUPT_MESSAGE, "not a response frame");
  }
  std::span<const uint8_t> rest(frame);
  rest = rest.subspan(protocol::kFrameSizeBytes);
  protocol::Reader r(rest);
  protocol::ResponseHeader h;
  if (Status s = h.decode(r, protocol::response_header_version(*api, version)); !s.ok()) return s;
  return rest.subspan(rest.size() - r.remaining());
}

}  // namespace mirra::server
