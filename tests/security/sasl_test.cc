#include "security/sasl.h"

#include <gtest/gtest.h>

namespace mirra::security {
namespace {

TEST(SecretsEqual, ComparesWholeSecrets) {
  EXPECT_TRUE(secrets_equal("alice-secret", "alice-secret"));
  EXPECT_FALSE(secrets_equal("alice-secret", "alice-secreT"));
  EXPECT_FALSE(secrets_equal("alice-secret", "alice-secret2"));
  EXPECT_FALSE(secrets_equal("", "x"));
  EXPECT_TRUE(secrets_equal("", ""));
}

TEST(SaslMechanisms, NamesAsKafkaSpellsThem) {
  EXPECT_EQ(supported_sasl_mechanisms(),
            (std::vector<std::string>{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}));
}

}  // namespace
}  // namespace mirra::security
