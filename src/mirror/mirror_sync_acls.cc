// MirrorSync's ACL sync (docs/mirroring-design.md §8): the source's ACLs that
// `mirror.acl.include` takes are created on the destination, so that after a failover the
// producers and consumers that were allowed on the source are allowed here.
//
// One round, only while the mirror has topics the sync works on (none paused or failed over:
// once failed over, the ACLs stay as they are and belong to the new primary), and only when
// `mirror.acl.include` is set (empty: off, nothing touched):
//   - the source's ACLs read in one DescribeAcls, those whose resource name one of the
//     include expressions matches whole are wanted;
//   - a wanted ACL the destination does not hold (made by anyone) is created as this mirror's;
//   - an ACL this mirror created that is no longer wanted (gone from the source, or no longer
//     matched) is removed;
//   - ACLs made on the destination (CreateAcls) or by another mirror are never touched.
// A source ACL this broker cannot create (a resource type or operation it does not know) is left
// out and named in the round's error, the others are synced.
#include <set>

#include <fmt/format.h>

#include "base/log.h"
#include "mirror/mirror_filters.h"
#include "mirror/mirror_sync.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

std::string acl_string(const security::AclBinding& b) {
  return security::resource_pattern_string(b) + " " + security::entry_string(b);
}

}  // namespace

asio::awaitable<SyncRound> MirrorSync::sync_acls() {
  MIRRA_ASSERT_OWNER(owner_);
  SyncRound round;
  const PatternList include(settings_.acl_include);
  if (include.empty() || synced_topics().empty()) co_return round;
  auto source = co_await source_->acls();
  if (stopping_) co_return round;
  if (!source.ok()) {
    round.status = Status(source.status().code(),
                          "the source's DescribeAcls failed: " + source.status().message());
    co_return round;
  }
  auto here = ctx_.destination.acls();
  if (!here.ok()) {
    round.status = here.status();
    co_return round;
  }
  std::set<security::AclBinding> wanted;
  size_t refused = 0;
  Status first_refusal;
  for (const security::AclBinding& b : source.value()) {
    if (!include.matches(b.resource_name)) continue;
    if (Status s = security::validate_for_creation(b); !s.ok()) {
      if (refused++ == 0) first_refusal = Status(s.code(), acl_string(b) + ": " + s.message());
      continue;
    }
    wanted.insert(b);
  }
  round.looked_at = static_cast<int64_t>(wanted.size() + refused);
  std::set<security::AclBinding> held;
  std::vector<security::AclBinding> remove;
  for (const DestinationAcl& a : here.value()) {
    held.insert(a.binding);
    if (a.mirror == mirror_ && !wanted.contains(a.binding)) remove.push_back(a.binding);
  }
  std::vector<security::AclBinding> add;
  for (const security::AclBinding& b : wanted) {
    if (!held.contains(b)) add.push_back(b);
  }
  if (!add.empty() || !remove.empty()) {
    const size_t added = add.size(), removed = remove.size();
    Status s = co_await ctx_.destination.change_acls(mirror_, std::move(add), std::move(remove));
    if (stopping_) co_return round;
    if (!s.ok()) {
      round.status = s;
      co_return round;
    }
    round.changed = static_cast<int64_t>(added + removed);
    MIRRA_LOG_INFO("mirror {}: ACL sync created {} and removed {} ACL(s)", mirror_, added, removed);
  }
  if (refused > 0) {
    round.status = Status(first_refusal.code(),
                          fmt::format("{} source ACL(s) cannot be created here; the first: {}",
                                      refused, first_refusal.message()));
  }
  co_return round;
}

}  // namespace mirra::mirror
