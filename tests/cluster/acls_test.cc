// cluster/acls.h: an ACL record read as a binding and back, with the mirror that made it, and
// the records that add ACLs: only those the image does not hold, whoever made the held one,
// each once, each under its own fresh id.
#include <gtest/gtest.h>

#include <set>

#include "cluster/acls.h"

namespace mirra::cluster {
namespace {

security::AclBinding acl(std::string topic, std::string principal = "User:app") {
  security::AclBinding b;
  b.resource_name = std::move(topic);
  b.principal = std::move(principal);
  b.operation = security::AclOperation::read;
  return b;
}

metadata::MetadataImage image_with(const std::vector<metadata::AccessControlEntryRecord>& acls) {
  metadata::MetadataImage image;
  int64_t offset = 0;
  for (const auto& r : acls) EXPECT_TRUE(image.apply(r, offset++).ok());
  return image;
}

TEST(ClusterAcls, ARecordAndItsBindingAreTheSameAcl) {
  const security::AclBinding b = acl("orders");
  const metadata::AccessControlEntryRecord r = acl_record(Uuid::random(), b, "dr");
  EXPECT_EQ(r.mirror, "dr");
  EXPECT_EQ(r.resource_type, 2);  // TOPIC's wire code
  EXPECT_EQ(r.operation, 3);      // READ's
  EXPECT_EQ(acl_binding(r), b);
}

TEST(ClusterAcls, OnlyAclsNotHeldAreAddedEachOnceUnderFreshIds) {
  const metadata::MetadataImage image =
      image_with({acl_record(Uuid::random(), acl("held")),
                  acl_record(Uuid::random(), acl("by-other"), "other")});
  auto records = new_acl_records(
      image, {acl("held"), acl("by-other"), acl("new"), acl("new"), acl("new", "User:b")}, "dr");
  ASSERT_EQ(records.size(), 2u);
  std::set<Uuid> ids;
  for (const auto& rec : records) {
    const auto& r = std::get<metadata::AccessControlEntryRecord>(rec);
    EXPECT_EQ(r.mirror, "dr");
    EXPECT_EQ(r.resource_name, "new");
    EXPECT_FALSE(r.id.is_zero());
    EXPECT_FALSE(image.acls().contains(r.id));
    ids.insert(r.id);
  }
  EXPECT_EQ(ids.size(), 2u);
  // Made here: no mirror.
  auto local = new_acl_records(image, {acl("mine")});
  ASSERT_EQ(local.size(), 1u);
  EXPECT_TRUE(std::get<metadata::AccessControlEntryRecord>(local[0]).mirror.empty());
}

}  // namespace
}  // namespace mirra::cluster
