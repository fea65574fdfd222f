// MirrorSource: what a mirror's data path needs of the source cluster (docs/mirroring-design.md
// §2), behind a small interface so that MirrorRunner can be driven by a fake source in unit
// tests (tests/mirror/fake_source.h). The real one, ClientMirrorSource (client_mirror_source.cc),
// goes through Mirra's Kafka client.
//
// A source hands out connections, one per client id: the runner's admin connection (metadata,
// list offsets) and one per fetcher. A connection keeps its own KIP-227 fetch sessions, one per
// source broker, so the loops of one fetcher share them.
//
// Threading: the core thread, like the runner.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/status.h"
#include "client/security.h"
#include "client/types.h"

namespace mirra::client {
class Client;
}

namespace mirra::mirror {

class SourceConnection {
 public:
  virtual ~SourceConnection() = default;

  // Metadata of `topics` (their leaders), which also refreshes cached_metadata().
  virtual asio::awaitable<Result<client::ClusterMetadata>> metadata(
      std::vector<std::string> topics) = 0;
  // The leaders as of the last metadata answer; a fetch routes by them.
  virtual const client::ClusterMetadata& cached_metadata() const = 0;
  // One Fetch request per leader of `positions` (a loop asks only partitions of one leader),
  // with the connection's fetch session for that broker; the answers in the order asked. A
  // failed request is the Status; a partition's own error is in its answer.
  virtual asio::awaitable<Result<std::vector<client::FetchedPartition>>> fetch(
      std::vector<client::FetchPosition> positions, client::FetchOptions options) = 0;
  virtual asio::awaitable<Result<std::vector<client::PartitionOffset>>> list_offsets(
      std::vector<client::OffsetQuery> queries) = 0;
  // OffsetForLeaderEpoch: where each asked epoch ends in the source's log
  // (docs/mirroring-design.md §2.4); UNSUPPORTED_VERSION from a source without the API.
  virtual asio::awaitable<Result<std::vector<client::EpochEndOffset>>> offset_for_leader_epoch(
      std::vector<client::EpochQuery> queries) = 0;
  // The throttle time the source's quotas asked of this connection so far, in ms; the
  // connection waits it out before its next request (docs/quotas.md, KIP-219).
  virtual int64_t throttled_ms() const { return 0; }
  // Ends every call in progress; the connection is not used again.
  virtual void close() = 0;
};

class MirrorSource {
 public:
  virtual ~MirrorSource() = default;
  // A connection with this client id (the source's quotas see it, docs/mirroring-design.md
  // §10). `retry_timeout`: how long a call retries a leader that moved or a lost connection
  // before it returns the error.
  virtual Result<std::unique_ptr<SourceConnection>> connect(
      const std::string& client_id, std::chrono::milliseconds retry_timeout) = 0;
};

// The real source: `bootstrap_servers` through client::Client.
class ClientMirrorSource : public MirrorSource {
 public:
  // `security` with its TLS context made (client::prepare_client_security), shared by every
  // client this source makes.
  ClientMirrorSource(asio::any_io_executor core, std::string bootstrap_servers,
                     client::ClientSecurity security)
      : core_(core),
        bootstrap_servers_(std::move(bootstrap_servers)),
        security_(std::move(security)) {}
  Result<std::unique_ptr<SourceConnection>> connect(
      const std::string& client_id, std::chrono::milliseconds retry_timeout) override;
  // A plain client of the source for the mirror manager's admin calls (adding topics, the
  // failback's loop check), which go beyond what the data path needs.
  Result<std::unique_ptr<client::Client>> admin_client(const std::string& client_id) const;
  // A connection over a client someone else owns (and closes), for the runner's admin calls
  // on the same client the manager uses.
  static std::unique_ptr<SourceConnection> borrow(client::Client& client);

 private:
  asio::any_io_executor core_;
  std::string bootstrap_servers_;
  client::ClientSecurity security_;
};

}  // namespace mirra::mirror
