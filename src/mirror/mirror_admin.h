// MirrorAdmin: creating, altering and deleting mirrors (CreateMirror, the mirror config
// resource of IncrementalAlterConfigs / AlterConfigs, DeleteMirror) through the metadata store,
// and the read side MirrorManager's describe and list share. A mirror is a MirrorRecord in the
// metadata log; its topics are the topics whose `mirror.name` config names it. Each change
// written calls the on_change() hook, which the broker points at MirrorManager::sync(): the
// runners follow every change without the handlers' help.
//
// Threading: the core thread, like the MetadataStore it writes through (checked:
// MIRRA_ASSERT_OWNER, base/assert.h).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/assert.h"
#include "base/status.h"
#include "cluster/metadata_store.h"
#include "mirror/mirror_config.h"
#include "mirror/mirror_state_store.h"
#include "security/password_encoder.h"

namespace mirra::mirror {

// The topics of mirror `name`, by name.
std::vector<const metadata::TopicInfo*> mirror_topics(const metadata::MetadataImage& image,
                                                      std::string_view name);

// READ_ONLY_TOPIC (docs/mirroring-design.md §4) when `partition` of `topic` (-1: any of its
// partitions) is a mirror partition in any state but STOPPED, naming its mirror and the way to make
// it writable; OK otherwise (unknown topics included: the caller reports those). Without `states`
// (mirroring not running) every mirror partition is read-only.
Status check_writable(const metadata::MetadataImage& image, const MirrorStateStore* states,
                      std::string_view topic, int32_t partition);

// The source cluster's id as the mirror recorded it when it added these topics (nullopt before
// any topic was added, or for a source that reports none).
std::optional<std::string> recorded_source_cluster_id(
    const MirrorStateStore& states, const std::vector<const metadata::TopicInfo*>& topics);

// "PREPARING", "MIRRORING", ... ("-" for a number that is no state).
std::string_view mirror_state_name(int8_t state);

// A topic's state as ListMirrors shows it: STOPPED when every partition is, else the state of
// the first partition that is not (PREPARING for one without a state yet). `partitions`: each
// partition's state in partition order, nullptr for none.
int8_t topic_state(const std::vector<const MirrorStateValue*>& partitions);
int8_t topic_state(const MirrorStateStore& states, const metadata::TopicInfo& topic);

class MirrorAdmin {
 public:
  // `encoder` (nullable: no password.encoder.secret) encrypts secret configs in the
  // MirrorRecord (mirror_secrets.h); it must outlive the admin.
  explicit MirrorAdmin(cluster::MetadataStore& store,
                       const security::PasswordEncoder* encoder = nullptr)
      : store_(store), encoder_(encoder) {}

  // Called after each change that was written (not for validate_only, nor for a refused
  // change), once the image shows it.
  void on_change(std::function<void()> hook) { on_change_ = std::move(hook); }

  // INVALID_MIRROR_NAME, INVALID_CONFIG (mirror_config.h; a secret without an encoder),
  // MIRROR_ALREADY_EXISTS; secrets are written encrypted; with
  // `validate_only` nothing is written.
  asio::awaitable<Status> create(
      const std::string& name,
      const std::vector<std::pair<std::string, std::optional<std::string>>>& configs,
      bool validate_only);
  // The mirror config resource of DescribeConfigs' alter side: `changes` (key -> value, or
  // nullopt to remove) checked as CreateMirror checks configs (INVALID_CONFIG naming the key),
  // then the MirrorRecord replaced; the on_change hook reconnects that mirror with them.
  // UNKNOWN_MIRROR.
  asio::awaitable<Status> alter_configs(
      const std::string& name, const std::map<std::string, std::optional<std::string>>& changes,
      bool validate_only);
  // UNKNOWN_MIRROR; MIRROR_NOT_EMPTY while any topic of the mirror is not STOPPED. Its
  // STOPPED topics become ordinary topics (mirror.name removed); their states stay.
  asio::awaitable<Status> remove(const std::string& name, const MirrorStateStore& states);

 private:
  void changed() const;

  cluster::MetadataStore& store_;
  const security::PasswordEncoder* encoder_;
  std::function<void()> on_change_;
  ThreadOwner owner_;  // the core thread
};

}  // namespace mirra::mirror
