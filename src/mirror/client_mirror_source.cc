// ClientMirrorSource: the mirror's source cluster through Mirra's Kafka client
// (mirror_source.h).
#include "client/client.h"
#include "client/fetch_sessions.h"
#include "mirror/mirror_source.h"

namespace mirra::mirror {
namespace {

class ClientSourceConnection : public SourceConnection {
 public:
  // `owned` is null for a borrowed client.
  ClientSourceConnection(client::Client& client, std::unique_ptr<client::Client> owned)
      : client_(client), owned_(std::move(owned)) {}

  asio::awaitable<Result<client::ClusterMetadata>> metadata(
      std::vector<std::string> topics) override {
    co_return co_await client_.metadata(std::move(topics));
  }
  const client::ClusterMetadata& cached_metadata() const override {
    return client_.cached_metadata();
  }
  asio::awaitable<Result<std::vector<client::FetchedPartition>>> fetch(
      std::vector<client::FetchPosition> positions, client::FetchOptions options) override {
    options.sessions = &sessions_;
    co_return co_await client_.fetch(std::move(positions), options);
  }
  asio::awaitable<Result<std::vector<client::PartitionOffset>>> list_offsets(
      std::vector<client::OffsetQuery> queries) override {
    co_return co_await client_.list_offsets(std::move(queries));
  }
  asio::awaitable<Result<std::vector<client::EpochEndOffset>>> offset_for_leader_epoch(
      std::vector<client::EpochQuery> queries) override {
    co_return co_await client_.offset_for_leader_epoch(std::move(queries));
  }
  int64_t throttled_ms() const override { return client_.throttled_ms(); }
  void close() override {
    if (owned_) owned_->close();
  }

 private:
  client::Client& client_;
  std::unique_ptr<client::Client> owned_;
  client::FetchSessions sessions_;  // KIP-227: one session per source broker
};

Result<std::unique_ptr<client::Client>> make_client(asio::any_io_executor core,
                                                    const std::string& bootstrap_servers,
                                                    const client::ClientSecurity& security,
                                                    const std::string& client_id,
                                                    std::chrono::milliseconds retry_timeout) {
  client::ClientOptions o;
  o.security = security;
  o.bootstrap_servers = bootstrap_servers;
  o.client_id = client_id;
  o.retry_timeout = retry_timeout;
  return client::Client::create(core, o);
}

}  // namespace

Result<std::unique_ptr<SourceConnection>> ClientMirrorSource::connect(
    const std::string& client_id, std::chrono::milliseconds retry_timeout) {
  auto c = make_client(core_, bootstrap_servers_, security_, client_id, retry_timeout);
  if (!c.ok()) return c.status();
  client::Client& ref = *c.value();
  return std::unique_ptr<SourceConnection>(
      std::make_unique<ClientSourceConnection>(ref, std::move(c.value())));
}

Result<std::unique_ptr<client::Client>> ClientMirrorSource::admin_client(
    const std::string& client_id) const {
  return make_client(core_, bootstrap_servers_, security_, client_id,
                     std::chrono::milliseconds(5000));
}

std::unique_ptr<SourceConnection> ClientMirrorSource::borrow(client::Client& client) {
  return std::make_unique<ClientSourceConnection>(client, nullptr);
}

}  // namespace mirra::mirror
