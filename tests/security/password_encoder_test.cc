// PasswordEncoder: secrets at rest under password.encoder.secret (PBKDF2-HMAC-SHA512, AES-256-GCM).
#include "security/password_encoder.h"

#include <gtest/gtest.h>

#include <string>

namespace mirra::security {
namespace {

PasswordEncoder encoder(std::string secret, std::optional<std::string> old_secret = std::nullopt) {
  auto e = PasswordEncoder::make(std::move(secret), PasswordEncoder::kDefaultIterations,
                                 std::move(old_secret));
  EXPECT_TRUE(e.ok()) << e.status().to_string();
  return std::move(e).value();
}

TEST(PasswordEncoder, RoundTripsWithAFreshSaltAndIvEachTime) {
  const PasswordEncoder e = encoder("broker-secret");
  for (std::string plain : {std::string(), std::string("hunter2"), std::string(1000, 'x'),
                            std::string("with\0nul, commas: and colons", 28)}) {
    auto a = e.encode(plain);
    auto b = e.encode(plain);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NE(a.value(), b.value());  // random salt and IV
    if (!plain.empty()) {
      EXPECT_EQ(a->find(plain), std::string::npos);
    }
    EXPECT_NE(a->find("keyFactoryAlgorithm:PBKDF2WithHmacSHA512"), std::string::npos) << *a;
    EXPECT_NE(a->find("cipherAlgorithm:AES/GCM/NoPadding"), std::string::npos) << *a;
    EXPECT_NE(a->find("iterations:4096"), std::string::npos) << *a;
    auto back = e.decode(a.value());
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back.value(), plain);
  }
}

TEST(PasswordEncoder, AWrongSecretIsAClearErrorNotGarbage) {
  auto encoded = encoder("right").encode("hunter2");
  ASSERT_TRUE(encoded.ok());
  auto wrong = encoder("wrong").decode(encoded.value());
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), ErrorCode::INVALID_CONFIG);
  EXPECT_NE(wrong.status().message().find("password.encoder.secret"), std::string::npos)
      << wrong.status().message();
  EXPECT_EQ(wrong.status().message().find("hunter2"), std::string::npos);
  // Rotation: the old secret still decodes what it encoded.
  auto rotated = encoder("wrong", "right").decode(encoded.value());
  ASSERT_TRUE(rotated.ok()) << rotated.status().to_string();
  EXPECT_EQ(rotated.value(), "hunter2");
}

TEST(PasswordEncoder, DamagedValuesAreRefused) {
  const PasswordEncoder e = encoder("s");
  auto encoded = e.encode("hunter2");
  ASSERT_TRUE(encoded.ok());
  std::string flipped = encoded.value();
  // One character of the ciphertext changed: the GCM tag no longer verifies.
  const size_t at = flipped.find("encryptedPassword:") + 18;
  flipped[at] = flipped[at] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(e.decode(flipped).ok());
  EXPECT_FALSE(e.decode("hunter2").ok());  // a value never encoded
  EXPECT_FALSE(e.decode("").ok());
  std::string other_cipher = encoded.value();
  other_cipher.replace(other_cipher.find("AES/GCM/NoPadding"), 17, "AES/CBC/PKCS5Padding");
  auto cbc = e.decode(other_cipher);
  ASSERT_FALSE(cbc.ok());
  EXPECT_NE(cbc.status().message().find("does not implement"), std::string::npos);
  std::string spin = encoded.value();
  spin.replace(spin.find("iterations:4096"), 15, "iterations:2000000000");
  EXPECT_FALSE(e.decode(spin).ok());
}

TEST(PasswordEncoder, SettingsAreChecked) {
  EXPECT_FALSE(PasswordEncoder::make("").ok());
  EXPECT_FALSE(PasswordEncoder::make("s", 10).ok());
  EXPECT_TRUE(PasswordEncoder::make("s", 8192).ok());
}

}  // namespace
}  // namespace mirra::security
