#include "metadata/meta_properties.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "metadata_test_util.h"

namespace mirra::metadata {
namespace {

using testing::TempDir;
namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(MetaProperties, CreatedWhenAbsentThenLoaded) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "logs" / "a";  // created too
  auto created = load_or_create_meta_properties(dir, 3);
  ASSERT_TRUE(created.ok()) << created.status().to_string();
  EXPECT_EQ(created->version, 1);
  EXPECT_EQ(created->node_id, 3);
  EXPECT_EQ(created->cluster_id.size(), 22u);
  EXPECT_TRUE(Uuid::parse(created->cluster_id).has_value());
  EXPECT_FALSE(created->directory_id.is_zero());

  const std::string text = read_text(dir / kMetaPropertiesFile);
  EXPECT_NE(text.find("version=1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("node.id=3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cluster.id=" + created->cluster_id + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("directory.id=" + created->directory_id.to_string() + "\n"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "meta.properties.tmp"));

  auto loaded = load_or_create_meta_properties(dir, 3);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(*loaded, *created);

  // Another directory gets another cluster id and directory id.
  auto other = load_or_create_meta_properties(tmp.path() / "b", 3);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->cluster_id, created->cluster_id);
  EXPECT_NE(other->directory_id, created->directory_id);
}

TEST(MetaProperties, ReadsKafkasFile) {
  TempDir tmp;
  write_text(tmp.path() / "meta.properties",
             "#\n#Thu Jan 01 00:00:00 UTC 2026\nnode.id=1\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\n"
             "version=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qg\n");
  auto p = load_or_create_meta_properties(tmp.path(), 1);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->cluster_id, "MkU3OEVBNTcwNTJENDM2Qg");
  EXPECT_EQ(p->directory_id.to_string(), "J8aAPcfLQt2bqs1JT_rMgQ");
}

TEST(MetaProperties, NodeIdMismatchRefused) {
  TempDir tmp;
  ASSERT_TRUE(load_or_create_meta_properties(tmp.path(), 1).ok());
  const std::string before = read_text(tmp.path() / kMetaPropertiesFile);
  auto p = load_or_create_meta_properties(tmp.path(), 2);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), ErrorCode::INVALID_CONFIG);
  const std::string msg = p.status().message();
  EXPECT_NE(msg.find((tmp.path() / "meta.properties").string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("node.id 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("node.id 2"), std::string::npos) << msg;
  EXPECT_EQ(read_text(tmp.path() / kMetaPropertiesFile), before);  // untouched
  EXPECT_EQ(load_or_create_meta_properties(tmp.path(), -1).status().code(),
            ErrorCode::INVALID_CONFIG);
}

TEST(MetaProperties, GarbageRefused) {
  const std::string id = "MkU3OEVBNTcwNTJENDM2Qg";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string("\x00\x01\xff binary", 10), "no version"},
      {"", "no version"},
      {"version=0\nbroker.id=1\ncluster.id=" + id + "\n", "version 0 is not supported"},
      {"version=2\nnode.id=1\ncluster.id=" + id + "\n", "version 2 is not supported"},
      {"version=1\nnode.id=1\n", "no cluster.id"},
      {"version=1\ncluster.id=" + id + "\n", "no node.id"},
      {"version=1\nnode.id=one\ncluster.id=" + id + "\n", "node.id 'one' is not a node id"},
      {"version=1\nnode.id=1x\ncluster.id=" + id + "\n", "node.id '1x'"},
      {"version=1\nnode.id=-3\ncluster.id=" + id + "\n", "node.id '-3'"},
      {"version=1\nnode.id=1\ncluster.id=not-a-uuid\n", "cluster.id 'not-a-uuid' is not a Uuid"},
      {"version=1\nnode.id=1\ncluster.id=" + id + "\ndirectory.id=zz\n", "directory.id 'zz'"},
      {"version=1\nnode.id=1\ncluster.id=" + id + "\nx=\\uZZZZ\n", "malformed \\uXXXX escape"},
  };
  for (const auto& [text, needle] : cases) {
    TempDir tmp;
    write_text(tmp.path() / "meta.properties", text);
    auto p = load_or_create_meta_properties(tmp.path(), 1);
    ASSERT_FALSE(p.ok()) << needle;
    EXPECT_EQ(p.status().code(), ErrorCode::KAFKA_STORAGE_ERROR) << needle;
    EXPECT_NE(p.status().message().find(needle), std::string::npos) << p.status().message();
    EXPECT_NE(p.status().message().find("meta.properties"), std::string::npos);
  }
}

TEST(MetaProperties, MissingDirectoryIdIsAddedDurably) {
  TempDir tmp;
  write_text(tmp.path() / "meta.properties",
             "version=1\nnode.id=4\ncluster.id=MkU3OEVBNTcwNTJENDM2Qg\n");
  auto p = load_or_create_meta_properties(tmp.path(), 4);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_FALSE(p->directory_id.is_zero());
  auto again = load_or_create_meta_properties(tmp.path(), 4);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->directory_id, p->directory_id);
  EXPECT_EQ(again->cluster_id, "MkU3OEVBNTcwNTJENDM2Qg");
}

TEST(MetaProperties, FormatParsesBack) {
  MetaProperties p;
  p.cluster_id = Uuid::random().to_string();
  p.node_id = 7;
  p.directory_id = Uuid::random();
  auto back = parse_meta_properties(format_meta_properties(p), "x");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, p);
}

}  // namespace
}  // namespace mirra::metadata
