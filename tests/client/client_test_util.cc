#include "client_test_util.h"

#include "protocol/frame.h"
#include "protocol/messages/api_versions.h"
#include "protocol/records/record.h"
#include "protocol/records/record_set.h"

namespace mirra::client::test {
namespace {

records::NullableBytes bytes_of(const std::optional<std::string>& s) {
  return s ? records::NullableBytes(
                 records::Bytes(reinterpret_cast<const uint8_t*>(s->data()), s->size()))
           : std::nullopt;
}

std::optional<std::string> string_of(const records::NullableBytes& b) {
  return b ? std::optional<std::string>(records::as_string(*b)) : std::nullopt;
}

}  // namespace

protocol::Bytes make_batch(const std::vector<TestRecord>& input, records::Compression codec) {
  records::BatchOptions options;
  options.compression = codec;
  records::BatchBuilder builder(options);
  for (const TestRecord& r : input) {
    std::vector<records::HeaderInput> headers;
    for (const auto& [k, v] : r.headers) headers.push_back({k, bytes_of(v)});
    records::RecordInput in;
    in.key = bytes_of(r.key);
    in.value = bytes_of(r.value);
    in.timestamp = 1700000000000;
    in.headers = headers;
    EXPECT_TRUE(builder.append(in).ok());
  }
  auto batch = builder.finish();
  EXPECT_TRUE(batch.ok()) << batch.status().to_string();
  return batch.ok() ? std::move(batch.value()) : protocol::Bytes{};
}

std::vector<TestRecord> read_records(std::span<const uint8_t> record_set) {
  std::vector<TestRecord> out;
  records::RecordSetIterator it(record_set, /*validate=*/true);
  records::BatchView batch;
  std::vector<uint8_t> scratch;
  records::RecordSetStep step;
  while ((step = it.next(batch)) == records::RecordSetStep::batch) {
    Status s = records::for_each_record(batch, scratch, [&](const records::RecordView& rec) {
      TestRecord r;
      r.key = string_of(rec.key);
      r.value = string_of(rec.value);
      r.offset = batch.base_offset() + rec.offset_delta;
      auto headers = rec.headers();
      records::HeaderView h;
      while (headers.next(h)) r.headers.emplace_back(records::as_string(h.key), string_of(h.value));
      out.push_back(std::move(r));
      return Status::OK();
    });
    EXPECT_TRUE(s.ok()) << s.to_string();
  }
  EXPECT_NE(step, records::RecordSetStep::error) << it.status().to_string();
  return out;
}

FakeBroker::FakeBroker(asio::io_context& io, Handler on_request,
                       std::map<int16_t, int16_t> max_versions)
    : acceptor_(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
      on_request_(std::move(on_request)),
      max_versions_(std::move(max_versions)) {
  port_ = acceptor_.local_endpoint().port();
  asio::co_spawn(io, accept(), asio::detached);
}

asio::awaitable<void> FakeBroker::accept() {
  while (acceptor_.is_open()) {
    asio::error_code ec;
    auto socket = co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    asio::co_spawn(acceptor_.get_executor(), serve(std::move(socket)), asio::detached);
  }
}

asio::awaitable<void> FakeBroker::serve(asio::ip::tcp::socket socket) {
  while (socket.is_open()) {
    uint8_t prefix[4];
    asio::error_code ec;
    co_await asio::async_read(socket, asio::buffer(prefix),
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    auto size = protocol::read_frame_size(prefix, 1 << 20);
    if (!size.ok()) break;
    protocol::Bytes frame(static_cast<size_t>(size.value()));
    co_await asio::async_read(socket, asio::buffer(frame),
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    auto env = protocol::decode_request_envelope(frame);
    if (!env.ok()) break;
    if (env->header.request_api_key == protocol::kApiVersionsKey) {
      protocol::ApiVersionsResponse resp;
      for (const auto& api : protocol::all_apis()) {
        auto cap = max_versions_.find(api.key);
        const int16_t max = cap == max_versions_.end() ? api.max_version : cap->second;
        resp.api_keys.push_back({api.key, api.min_version, max, {}});
      }
      auto out = protocol::encode_response_frame(env->header.correlation_id,
                                                 env->header.request_api_version, resp);
      co_await asio::async_write(socket, asio::buffer(out),
                                 asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    on_request_(socket, frame);
  }
}

}  // namespace mirra::client::test
