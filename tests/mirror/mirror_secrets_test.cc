// A mirror's secrets at rest (mirror/mirror_secrets.h): sealed under password.encoder.secret,
// refused without it, opened only with the secret they were sealed with.
#include "mirror/mirror_secrets.h"

#include <gtest/gtest.h>

namespace mirra::mirror {
namespace {

security::PasswordEncoder encoder(std::string secret) {
  return security::PasswordEncoder::make(std::move(secret)).value();
}

const MirrorConfigs kPlain = {{"bootstrap.servers", "h:1"},
                              {"security.protocol", "SASL_SSL"},
                              {"sasl.username", "mirror"},
                              {"sasl.password", "hunter2"},
                              {"ssl.key.password", "keypw"}};

TEST(MirrorSecrets, SealedWithTheBrokerSecretAndOpenedBack) {
  const auto e = encoder("broker-secret");
  auto sealed = seal_mirror_secrets(kPlain, &e);
  ASSERT_TRUE(sealed.ok()) << sealed.status().to_string();
  EXPECT_EQ(sealed->at("sasl.username"), "mirror");  // not a secret: as given
  EXPECT_EQ(sealed->at("bootstrap.servers"), "h:1");
  for (const char* key : {"sasl.password", "ssl.key.password"}) {
    EXPECT_NE(sealed->at(key), kPlain.at(key));
    EXPECT_EQ(sealed->at(key).find(kPlain.at(key)), std::string::npos);
    EXPECT_TRUE(sealed->at(key).starts_with("encryptedPassword:")) << sealed->at(key);
  }
  auto opened = open_mirror_secrets(sealed.value(), &e);
  ASSERT_TRUE(opened.ok()) << opened.status().to_string();
  EXPECT_EQ(opened.value(), kPlain);
}

TEST(MirrorSecrets, WithoutTheBrokerSecretASecretIsRefused) {
  auto sealed = seal_mirror_secrets(kPlain, nullptr);
  ASSERT_FALSE(sealed.ok());
  EXPECT_EQ(sealed.status().code(), ErrorCode::INVALID_CONFIG);
  EXPECT_NE(sealed.status().message().find("set password.encoder.secret"), std::string::npos)
      << sealed.status().message();
  EXPECT_EQ(sealed.status().message().find("hunter2"), std::string::npos);
  // A mirror without secrets needs no broker secret.
  const MirrorConfigs plain = {{"bootstrap.servers", "h:1"}, {"security.protocol", "SSL"}};
  EXPECT_EQ(seal_mirror_secrets(plain, nullptr).value(), plain);
  EXPECT_EQ(open_mirror_secrets(plain, nullptr).value(), plain);
}

TEST(MirrorSecrets, AnotherBrokerSecretIsAClearErrorAndAnAlterCanReplaceTheValue) {
  const auto right = encoder("right");
  const auto wrong = encoder("wrong");
  auto sealed = seal_mirror_secrets(kPlain, &right);
  ASSERT_TRUE(sealed.ok());
  auto opened = open_mirror_secrets(sealed.value(), &wrong);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("mirror config sasl.password"), std::string::npos)
      << opened.status().message();
  EXPECT_NE(opened.status().message().find("password.encoder.secret"), std::string::npos);
  EXPECT_FALSE(open_mirror_secrets(sealed.value(), nullptr).ok());
  // The keys an alter replaces are skipped: the rest must still open.
  auto skipped = open_mirror_secrets(sealed.value(), &wrong, {"sasl.password", "ssl.key.password"});
  ASSERT_TRUE(skipped.ok()) << skipped.status().to_string();
  EXPECT_EQ(skipped->count("sasl.password"), 0u);
  EXPECT_EQ(skipped->at("sasl.username"), "mirror");
}

}  // namespace
}  // namespace mirra::mirror
