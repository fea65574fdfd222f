// Feeds arbitrary bytes through the broker's whole request path as one connection's byte
// stream, in-process, against a real broker (metadata log, partition logs and shard threads in
// a temporary directory): size prefix (checked against socket.request.max.bytes), frame,
// envelope, routing, and every handler, storage included. A "close" outcome ends the stream,
// as it ends a connection. Responses must be well-formed frames (a size prefix matching their
// length), or nothing at all for Produce with acks=0.
//
// Fetch long polls are capped at 0 ms (BrokerState::max_fetch_wait) and topics at 8
// partitions, so that one input cannot stall the fuzzer or fill the disk.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "server/broker.h"
#include "server/dispatch.h"

using namespace mirra;
using namespace mirra::server;

namespace {

class FuzzBroker {
 public:
  FuzzBroker() {
    char dir_template[] = "/tmp/mirra-fuzz-XXXXXX";
    if (mkdtemp(dir_template) == nullptr) abort();
    dir_ = dir_template;
    auto loaded = load_config(std::nullopt, {"log.dirs=" + dir_.string(), "num.io.threads=2",
                                             "num.partitions=2"});
    if (!loaded.ok()) abort();
    loaded_ = std::move(loaded.value());
    broker_ = std::make_unique<Broker>(io_, loaded_);
    if (!run(broker_->start(/*listen=*/false)).ok()) abort();
    broker_->state().max_fetch_wait = std::chrono::milliseconds(0);
    broker_->state().topic_admin->set_max_partitions(8);
  }
  ~FuzzBroker() {
    run_void(broker_->stop());
    broker_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  HandlerResult dispatch(std::span<uint8_t> frame) {
    return run(dispatch_request(frame, conn_, broker_->state()));
  }

 private:
  // Runs the broker's core io_context until the coroutine is done (shard jobs post back to it).
  template <typename T>
  T run(asio::awaitable<T> a) {
    // Through awaitable<void>: co_spawn's completion wants a default-constructible T.
    std::optional<T> out;
    run_void([&]() -> asio::awaitable<void> { out.emplace(co_await std::move(a)); }());
    return std::move(*out);
  }
  void run_void(asio::awaitable<void> a) {
    bool done = false;
    std::exception_ptr error;
    asio::co_spawn(io_, std::move(a), [&](std::exception_ptr e) {
      error = e;
      done = true;
    });
    while (!done) io_.run_one();
    if (error) std::rethrow_exception(error);  // a crash for the fuzzer
  }

  std::filesystem::path dir_;
  asio::io_context io_{1};
  LoadedConfig loaded_;
  std::unique_ptr<Broker> broker_;
  const ConnectionInfo conn_{1, "fuzz", "PLAINTEXT"};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static FuzzBroker broker;
  constexpr int32_t kMaxRequest = 1 << 20;

  std::span<const uint8_t> stream(data, size);
  for (int requests = 0; requests < 64 && stream.size() >= protocol::kFrameSizeBytes; ++requests) {
    auto frame_size = protocol::read_frame_size(stream, kMaxRequest);
    if (!frame_size.ok()) break;
    stream = stream.subspan(protocol::kFrameSizeBytes);
    if (stream.size() < static_cast<size_t>(frame_size.value())) break;  // truncated frame
    // A copy of exactly the frame, so ASan sees any read past its end.
    protocol::Bytes frame(stream.begin(), stream.begin() + frame_size.value());
    stream = stream.subspan(static_cast<size_t>(frame_size.value()));

    HandlerResult r = broker.dispatch(frame);
    if (!r.ok()) break;  // the broker closes the connection here
    if (r->empty()) continue;  // Produce with acks=0
    auto materialized = materialize(r.value());
    if (!materialized.ok()) abort();  // the files it points at are the broker's own
    const protocol::Bytes& out = materialized.value();
    auto n = protocol::read_frame_size(out, INT32_MAX);
    if (out.size() < 8 || !n.ok() || static_cast<size_t>(n.value()) + 4 != out.size()) abort();
  }
  return 0;
}
