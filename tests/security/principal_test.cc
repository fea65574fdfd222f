#include "security/principal.h"

#include <openssl/asn1.h>
#include <openssl/x509.h>

#include <gtest/gtest.h>

#include <memory>

namespace mirra::security {
namespace {

struct Entry {
  const char* field;
  std::string value;
  int type = MBSTRING_UTF8;
  bool joins_previous = false;  // part of the previous RDN (a multi-valued RDN)
};

using NamePtr = std::unique_ptr<X509_NAME, decltype(&X509_NAME_free)>;

// A name built entry by entry, then encoded and parsed again, as a peer certificate's subject
// reaches the broker (DER orders the values of a multi-valued RDN).
NamePtr make_name(const std::vector<Entry>& entries) {
  NamePtr built(X509_NAME_new(), &X509_NAME_free);
  for (const Entry& e : entries) {
    const int ok = X509_NAME_add_entry_by_txt(
        built.get(), e.field, e.type, reinterpret_cast<const unsigned char*>(e.value.data()),
        static_cast<int>(e.value.size()), -1, e.joins_previous ? -1 : 0);
    EXPECT_EQ(ok, 1) << e.field;
  }
  unsigned char* der = nullptr;
  const int len = i2d_X509_NAME(built.get(), &der);
  EXPECT_GT(len, 0);
  const unsigned char* p = der;
  NamePtr parsed(d2i_X509_NAME(nullptr, &p, len), &X509_NAME_free);
  OPENSSL_free(der);
  EXPECT_NE(parsed, nullptr);
  return parsed;
}

// The expected strings below were printed by OpenJDK 17's X500Principal.getName() for
// certificates with the same subjects.
TEST(Rfc2253Name, ReversedAsJavaPrintsIt) {
  EXPECT_EQ(rfc2253_name(make_name({{"CN", "alice"}, {"OU", "eng"}, {"O", "Mirra"}}).get()),
            "O=Mirra,OU=eng,CN=alice");
  EXPECT_EQ(rfc2253_name(make_name({{"O", "Mirra"}, {"OU", "eng"}, {"CN", "bob"}}).get()),
            "CN=bob,OU=eng,O=Mirra");
}

TEST(Rfc2253Name, EmailAddressAsOidAndHex) {
  EXPECT_EQ(
      rfc2253_name(
          make_name({{"CN", "carol"}, {"emailAddress", "carol@example.com"}, {"O", "Mirra, Inc."}})
              .get()),
      "O=Mirra\\, Inc.,1.2.840.113549.1.9.1=#16116361726f6c406578616d706c652e636f6d,"
      "CN=carol");
}

TEST(Rfc2253Name, EscapesAsJava) {
  EXPECT_EQ(
      rfc2253_name(
          make_name({{"CN", "#lead+plus<lt>gt;semi\"q\\back"}, {"O", " sp "}, {"OU", "a=b#c"}})
              .get()),
      "OU=a\\=b\\#c,O=\\ sp\\ ,CN=\\#lead\\+plus\\<lt\\>gt\\;semi\\\"q\\\\back");
  EXPECT_EQ(
      rfc2253_name(
          make_name({{"CN", "Mirra, Inc."}, {"O", "  "}, {"OU", "", V_ASN1_UTF8STRING}}).get()),
      "OU=,O=\\ \\ ,CN=Mirra\\, Inc.");
  EXPECT_EQ(rfc2253_name(make_name({{"CN", "a\r"}, {"O", "\rb"}, {"ST", "x\x01y"}}).get()),
            "ST=x\x01y,O=\\\rb,CN=a\\\r");
  EXPECT_EQ(rfc2253_name(make_name({{"CN", "caf\xc3\xa9"}}).get()), "CN=caf\xc3\xa9");
}

TEST(Rfc2253Name, MultiValuedRdnsInDerOrder) {
  EXPECT_EQ(rfc2253_name(
                make_name({{"O", "Mirra"}, {"OU", "b"}, {"CN", "a", MBSTRING_UTF8, true}}).get()),
            "CN=a+OU=b,O=Mirra");
}

TEST(Rfc2253Name, KeywordsAndStringTypes) {
  EXPECT_EQ(rfc2253_name(make_name({{"DC", "com"},
                                    {"DC", "example"},
                                    {"UID", "u1"},
                                    {"street", "Main St"},
                                    {"serialNumber", "42", V_ASN1_PRINTABLESTRING}})
                             .get()),
            "2.5.4.5=#13023432,STREET=Main St,UID=u1,DC=example,DC=com");
  // Text types print as text even when not UTF-8 (a BMPString's zero bytes become \00, as in
  // Java); a NumericString is not a text type for Java.
  EXPECT_EQ(rfc2253_name(make_name({{"C", "DE", V_ASN1_PRINTABLESTRING},
                                    {"L", "t61", V_ASN1_T61STRING},
                                    {"CN", "ia5", V_ASN1_IA5STRING},
                                    {"OU", "123", V_ASN1_NUMERICSTRING},
                                    {"title", "boss"}})
                             .get()),
            "2.5.4.12=#0c04626f7373,OU=#1203313233,CN=ia5,L=t61,C=DE");
  EXPECT_EQ(rfc2253_name(make_name({{"CN", std::string("\0a\0b", 4), V_ASN1_BMPSTRING}}).get()),
            "CN=\\00a\\00b");
}

TEST(Rfc2253Name, EmptyName) { EXPECT_EQ(rfc2253_name(make_name({}).get()), ""); }

constexpr std::string_view kDocsRules =
    "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,"
    "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
    "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,DEFAULT";

std::string map(const PrincipalMappingRules& rules, std::string_view name) {
  auto r = rules.apply(name);
  return r.ok() ? r.value() : "error: " + r.status().message();
}

TEST(PrincipalMappingRules, KafkaDocsExample) {
  auto rules = PrincipalMappingRules::parse(kDocsRules);
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  EXPECT_EQ(map(rules.value(), "CN=kafka1,OU=ServiceUsers,O=Unknown,L=Unknown,ST=Unknown,C=US"),
            "kafka1");
  EXPECT_EQ(map(rules.value(), "CN=adminUser,OU=Admin,O=Unknown,L=Unknown,ST=Unknown,C=Unknown"),
            "adminuser@admin");
  EXPECT_EQ(map(rules.value(), "O=Mirra,OU=eng,CN=Alice.B"), "alice.b");
  EXPECT_EQ(map(rules.value(), "OU=JavaSoft,O=Sun Microsystems,C=US"),
            "OU=JavaSoft,O=Sun Microsystems,C=US");
}

TEST(PrincipalMappingRules, DefaultAndUpperCase) {
  auto rules = PrincipalMappingRules::parse("DEFAULT");
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(map(rules.value(), "O=Mirra,OU=eng,CN=alice"), "O=Mirra,OU=eng,CN=alice");
  auto upper = PrincipalMappingRules::parse(" RULE:^.*CN=([a-z]+)$/$1/U , DEFAULT ");
  ASSERT_TRUE(upper.ok()) << upper.status().to_string();
  EXPECT_EQ(map(upper.value(), "O=Mirra,CN=alice"), "ALICE");
}

TEST(PrincipalMappingRules, WholeNameOnlyAndNoMatchIsAnError) {
  auto rules = PrincipalMappingRules::parse("RULE:CN=([a-z]+)/$1/");
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(map(rules.value(), "CN=alice"), "alice");
  auto miss = rules->apply("O=Mirra,CN=alice");  // matches a part only
  ASSERT_FALSE(miss.ok());
  EXPECT_NE(miss.status().message().find("No rules apply"), std::string::npos);
}

TEST(PrincipalMappingRules, ReplacementEscapesAndGroups) {
  auto rules = PrincipalMappingRules::parse("RULE:^CN=(a)(b)\\/x$/$2$1$3\\$1\\\\\\//,DEFAULT");
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  // $3 does not exist: literal, as Kafka treats it; \$ is '$', \\ is '\', \/ is '/'.
  EXPECT_EQ(map(rules.value(), "CN=ab/x"), "ba$3$1\\/");
}

TEST(PrincipalMappingRules, RefusesBadRules) {
  for (const char* text :
       {"", " , ", "RULE:abc", "RULE:a/b", "RULE:a/b/X", "RULE:a/b/Lx", "foo", "DEFAULTX",
        "RULE:(/x/", "RULE:a/$x/", "RULE:a/b$/", "DEFAULT,nonsense"}) {
    auto rules = PrincipalMappingRules::parse(text);
    ASSERT_FALSE(rules.ok()) << text;
    EXPECT_EQ(rules.status().code(), ErrorCode::INVALID_CONFIG) << text;
  }
}

TEST(PrincipalMappingRules, EmptyRulesBetweenCommasIgnored) {
  auto rules = PrincipalMappingRules::parse("RULE:^CN=(.*)$/$1/,,DEFAULT");
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  EXPECT_EQ(map(rules.value(), "CN=x"), "x");
  EXPECT_EQ(map(rules.value(), "O=y"), "O=y");
}

TEST(PrincipalMappingRules, HugeNamesRefused) {
  auto rules = PrincipalMappingRules::parse("RULE:^(.*)$/$1/");
  ASSERT_TRUE(rules.ok());
  EXPECT_FALSE(rules->apply("CN=" + std::string(100000, 'a')).ok());
  EXPECT_TRUE(rules->apply("CN=" + std::string(1000, 'a')).ok());
}

}  // namespace
}  // namespace mirra::security
