// What the client's SCRAM user calls take and return (DescribeUserScramCredentials,
// AlterUserScramCredentials; client_scram.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "security/scram.h"

namespace mirra::client {

// A mechanism a user has a credential for; the secrets never leave the broker.
struct ScramCredentialInfo {
  security::ScramMechanism mechanism = security::ScramMechanism::sha256;
  int32_t iterations = 0;
};

struct UserScramCredentials {
  std::string user;
  Status status;  // RESOURCE_NOT_FOUND for a named user without credentials
  std::vector<ScramCredentialInfo> credentials;
};

// A credential to create or replace. The password never reaches the broker: the client sends
// a salt (random unless given) and the salted password (computed unless given, in which case
// `password` is unused). Holds secrets: never log it.
struct ScramUpsertion {
  std::string user;
  security::ScramMechanism mechanism = security::ScramMechanism::sha256;
  int32_t iterations = security::kScramMinIterations;
  std::string password;
  std::optional<std::string> salt;             // raw bytes
  std::optional<std::string> salted_password;  // raw bytes; needs `salt`
};

struct ScramDeletion {
  std::string user;
  security::ScramMechanism mechanism = security::ScramMechanism::sha256;
};

// The broker's answer for one user of an alteration.
struct ScramUserResult {
  std::string user;
  Status status;
};

}  // namespace mirra::client
