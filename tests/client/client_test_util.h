// Helpers for the client tests: records in and out of batches, and a scripted fake broker for
// the failures a real broker will not produce on demand.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/asio.h"
#include "client/types.h"
#include "protocol/records/batch_builder.h"

namespace mirra::client::test {

struct TestRecord {
  std::optional<std::string> key, value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
  int64_t offset = -1;  // filled in when read back
  bool operator==(const TestRecord& o) const {
    return key == o.key && value == o.value && headers == o.headers;
  }
};

// One batch holding `records`, compressed with `codec`.
protocol::Bytes make_batch(const std::vector<TestRecord>& records,
                           records::Compression codec = records::Compression::none);

// Every record of a fetched record set, CRC-checked; a trailing partial batch is ignored.
std::vector<TestRecord> read_records(std::span<const uint8_t> record_set);

// A broker on 127.0.0.1 that answers ApiVersions with Mirra's table (each API's top version
// capped by `max_versions`, by key), then hands each later request frame (no size prefix) to
// `on_request`, which may write raw bytes back or close the socket. It takes any number of
// connections (a client opens another one to a coordinator or a broker found in metadata).
class FakeBroker {
 public:
  using Handler = std::function<void(asio::ip::tcp::socket&, const protocol::Bytes& frame)>;
  FakeBroker(asio::io_context& io, Handler on_request,
             std::map<int16_t, int16_t> max_versions = {});
  uint16_t port() const { return port_; }

 private:
  asio::awaitable<void> accept();
  asio::awaitable<void> serve(asio::ip::tcp::socket socket);
  asio::ip::tcp::acceptor acceptor_;
  Handler on_request_;
  std::map<int16_t, int16_t> max_versions_;
  uint16_t port_ = 0;
};

}  // namespace mirra::client::test
