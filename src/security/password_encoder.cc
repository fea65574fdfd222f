#include "security/password_encoder.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <charconv>
#include <map>
#include <memory>
#include <vector>

#include <fmt/format.h>

namespace mirra::security {
namespace {

constexpr std::string_view kKeyFactory = "PBKDF2WithHmacSHA512";
constexpr std::string_view kCipher = "AES/GCM/NoPadding";
constexpr int kKeyBits = 256;
constexpr size_t kSaltBytes = 16;
constexpr size_t kIvBytes = 12;  // GCM's natural nonce size
constexpr size_t kTagBytes = 16;

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_CONFIG, std::move(message));
}

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<std::string> unbase64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(3 * text.size() / 4, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes.
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

std::string derive_key(std::string_view secret, std::string_view salt, int32_t iterations) {
  std::string key(kKeyBits / 8, '\0');
  PKCS5_PBKDF2_HMAC(secret.data(), static_cast<int>(secret.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()),
                    static_cast<int>(salt.size()), iterations, EVP_sha512(),
                    static_cast<int>(key.size()), reinterpret_cast<unsigned char*>(key.data()));
  return key;
}

using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

// AES-256-GCM; the output is the ciphertext followed by the tag (as Java's GCM writes it).
std::optional<std::string> seal(std::string_view key, std::string_view iv, std::string_view plain) {
  CipherCtx ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
  const auto* k = reinterpret_cast<const unsigned char*>(key.data());
  const auto* v = reinterpret_cast<const unsigned char*>(iv.data());
  if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, k, v) != 1) {
    return std::nullopt;
  }
  std::string out(plain.size() + kTagBytes, '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  int n = 0, tail = 0;
  if (EVP_EncryptUpdate(ctx.get(), o, &n, reinterpret_cast<const unsigned char*>(plain.data()),
                        static_cast<int>(plain.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), o + n, &tail) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagBytes, o + plain.size()) != 1) {
    return std::nullopt;
  }
  return out;
}

// nullopt when the tag does not verify (another key, or damaged bytes).
std::optional<std::string> open(std::string_view key, std::string_view iv,
                                std::string_view sealed) {
  if (sealed.size() < kTagBytes) return std::nullopt;
  const size_t len = sealed.size() - kTagBytes;
  CipherCtx ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
  const auto* k = reinterpret_cast<const unsigned char*>(key.data());
  const auto* v = reinterpret_cast<const unsigned char*>(iv.data());
  if (!ctx || EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, k, v) != 1) {
    return std::nullopt;
  }
  std::string out(len, '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  std::string tag(sealed.substr(len));
  int n = 0, tail = 0;
  if (EVP_DecryptUpdate(ctx.get(), o, &n, reinterpret_cast<const unsigned char*>(sealed.data()),
                        static_cast<int>(len)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagBytes, tag.data()) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), o + n, &tail) != 1) {
    return std::nullopt;
  }
  return out;
}

// "k:v,k:v,..." (base64 never contains ',' or ':').
std::optional<std::map<std::string, std::string, std::less<>>> parse_fields(std::string_view text) {
  std::map<std::string, std::string, std::less<>> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(start, comma - start);
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    out.emplace(std::string(item.substr(0, colon)), std::string(item.substr(colon + 1)));
    start = comma + 1;
  }
  return out;
}

}  // namespace

Result<PasswordEncoder> PasswordEncoder::make(std::string secret, int32_t iterations,
                                              std::optional<std::string> old_secret) {
  if (secret.empty()) return invalid("password.encoder.secret is empty");
  if (iterations < kMinIterations || iterations > kMaxIterations) {
    return invalid(fmt::format("password.encoder.iterations={} is out of range ({}..{})",
                               iterations, kMinIterations, kMaxIterations));
  }
  if (old_secret && old_secret->empty()) old_secret.reset();
  return PasswordEncoder(std::move(secret), iterations, std::move(old_secret));
}

Result<std::string> PasswordEncoder::encode(std::string_view password) const {
  std::string salt(kSaltBytes, '\0');
  std::string iv(kIvBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), kSaltBytes) != 1 ||
      RAND_bytes(reinterpret_cast<unsigned char*>(iv.data()), kIvBytes) != 1) {
    return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "no random bytes to encrypt a secret with");
  }
  auto sealed = seal(derive_key(secret_, salt, iterations_), iv, password);
  if (!sealed) return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "AES-256-GCM encryption failed");
  return fmt::format(
      "encryptedPassword:{},salt:{},iterations:{},keyFactoryAlgorithm:{},cipherAlgorithm:{},"
      "keyLength:{},initializationVector:{}",
      base64(*sealed), base64(salt), iterations_, kKeyFactory, kCipher, kKeyBits, base64(iv));
}

Result<std::string> PasswordEncoder::decode(std::string_view encoded) const {
  auto fields = parse_fields(encoded);
  auto field = [&](std::string_view name) -> std::optional<std::string_view> {
    if (!fields) return std::nullopt;
    auto it = fields->find(name);
    if (it == fields->end()) return std::nullopt;
    return std::string_view(it->second);
  };
  const auto sealed_text = field("encryptedPassword");
  const auto salt_text = field("salt");
  const auto iv_text = field("initializationVector");
  const auto iterations_text = field("iterations");
  if (!sealed_text || !salt_text || !iv_text || !iterations_text) {
    return invalid(
        "not an encrypted value (encryptedPassword, salt, iterations and "
        "initializationVector are needed)");
  }
  if (field("keyFactoryAlgorithm").value_or(kKeyFactory) != kKeyFactory ||
      field("cipherAlgorithm").value_or(kCipher) != kCipher ||
      field("keyLength").value_or("256") != "256") {
    return invalid(
        fmt::format("encrypted with parameters this broker does not implement (it "
                    "has {}, {}, 256-bit keys)",
                    kKeyFactory, kCipher));
  }
  int32_t iterations = 0;
  auto [end, ec] = std::from_chars(iterations_text->data(),
                                   iterations_text->data() + iterations_text->size(), iterations);
  const auto sealed = unbase64(*sealed_text);
  const auto salt = unbase64(*salt_text);
  const auto iv = unbase64(*iv_text);
  if (ec != std::errc() || end != iterations_text->data() + iterations_text->size() ||
      iterations < 1 || iterations > kMaxIterations || !sealed || !salt || !iv ||
      iv->size() != kIvBytes) {
    return invalid("a damaged encrypted value (bad iterations, salt, IV or base64)");
  }
  if (auto plain = open(derive_key(secret_, *salt, iterations), *iv, *sealed)) return *plain;
  if (old_secret_) {
    if (auto plain = open(derive_key(*old_secret_, *salt, iterations), *iv, *sealed)) {
      return *plain;
    }
  }
  return invalid(
      "cannot decrypt: it was encrypted with another password.encoder.secret (or is damaged)");
}

}  // namespace mirra::security
