// Feeds arbitrary bytes to what reads a peer's or an operator's text in the security module.
// The first byte picks the target, the rest is its input:
//   0  one PLAIN token to SaslServer;
//   1  two SCRAM-SHA-512 client tokens (split at the first NUL) to SaslServer;
//   2  the same to a ScramServer (SHA-256) with a fixed server nonce ("fuzz") and a known user
//      "user"/"pencil" (salt "salt", 4096 iterations), so that an input can get through the
//      nonce check and, with a right proof, complete: client-first "n,,n=user,r=N" makes the
//      combined nonce "Nfuzz";
//   3  a sasl.jaas.config text;
//   4  a subject name (at most 256 bytes) mapped by two of Kafka's documented
//      ssl.principal.mapping.rules;
//   5  ssl.principal.mapping.rules text (at most 64 bytes, no '{' and no quantified group),
//      applied to a short fixed name.
// std::regex backtracks: a rule with nested or many lazy repetitions can take exponential or
// high-polynomial time on an adversarial name, as Java's regex can in Kafka. That is the rule
// author's cost, not a parsing bug, so the fuzzer leaves such rules out (counted repetitions
// also make libstdc++ build a huge automaton) and bounds the name; it checks parsing and the
// application of ordinary rules.
// Every answer must be a value or a Status; nothing may crash, leak or assert.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "security/jaas.h"
#include "security/principal.h"
#include "security/sasl.h"
#include "security/scram.h"

using namespace mirra::security;

namespace {

const SaslUsers& users() {
  static const SaslUsers u = [] {
    SaslUsers s;
    s.plain = {{"alice", "alice-secret"}, {"user", "pencil"}};
    s.scram = [](const std::string& user, ScramMechanism m) -> std::optional<ScramCredential> {
      if (user != "user") return std::nullopt;
      return scram_credential(m, scram_salted_password(m, "pencil", "salt", 4096), "salt", 4096);
    };
    return s;
  }();
  return u;
}

std::pair<std::string_view, std::string_view> split_at_nul(std::string_view in) {
  const size_t nul = in.find('\0');
  if (nul == std::string_view::npos) return {in, {}};
  return {in.substr(0, nul), in.substr(nul + 1)};
}

void check(bool condition) {
  if (!condition) abort();
}

void fuzz_sasl_server(std::string_view mechanism, std::string_view in, int steps) {
  auto server = SaslServer::make(mechanism, users());
  check(server.ok());
  auto [first, second] = split_at_nul(in);
  auto answer = server.value()->step(first);
  if (!answer.ok() || steps < 2 || server.value()->complete()) return;
  auto last = server.value()->step(second);
  // The password never comes back in an error.
  if (!last.ok()) check(last.status().message().find("pencil") == std::string::npos);
}

void fuzz_scram_server(std::string_view in) {
  ScramServer server(
      ScramMechanism::sha256,
      [](const std::string& user) { return users().scram(user, ScramMechanism::sha256); }, "fuzz");
  auto [first, second] = split_at_nul(in);
  auto answer = server.step(first);
  if (!answer.ok()) return;
  auto last = server.step(second);
  if (last.ok()) check(server.complete() && server.user() == "user");
}

void fuzz_mapping(std::string_view name) {
  static const PrincipalMappingRules rules = [] {
    auto r = PrincipalMappingRules::parse(
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,"
        "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,DEFAULT");
    check(r.ok());
    return std::move(r.value());
  }();
  check(rules.apply(name.substr(0, 256)).ok());  // DEFAULT always matches
}

void fuzz_rules(std::string_view text) {
  if (text.size() > 64 || text.find('{') != std::string_view::npos) return;
  for (std::string_view q : {")*", ")+", ")?"}) {
    if (text.find(q) != std::string_view::npos) return;  // a quantified group (above)
  }
  auto rules = PrincipalMappingRules::parse(text);
  if (rules.ok()) (void)rules->apply("O=Mirra,OU=eng,CN=alice");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      fuzz_sasl_server("PLAIN", in, 1);
      break;
    case 1:
      fuzz_sasl_server("SCRAM-SHA-512", in, 2);
      break;
    case 2:
      fuzz_scram_server(in);
      break;
    case 3:
      if (auto c = parse_jaas_config(in); c.ok()) (void)jaas_plain_users(c.value());
      break;
    case 4:
      fuzz_mapping(in);
      break;
    case 5:
      fuzz_rules(in);
      break;
  }
  return 0;
}
