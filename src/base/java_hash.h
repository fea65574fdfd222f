// Kafka's placement of a key on a partition of an internal topic (__consumer_offsets by group
// id, __transaction_state by transactional id): abs(String.hashCode(key)) % partitions, with
// Java's hash over the UTF-16 code units of the key as Java decodes its UTF-8 bytes, so a key
// lands on the same partition number as in Kafka.
#pragma once

#include <cstdint>
#include <string_view>

namespace mirra {

// Java's String.hashCode() of `utf8` decoded as Java's UTF-8 decoder does (malformed input
// becomes U+FFFD).
int32_t java_string_hash(std::string_view utf8);

// Utils.abs(hash) % partition_count (Utils.abs is hash & 0x7fffffff, so Integer.MIN_VALUE maps
// to 0); 0 when partition_count is not positive.
int32_t java_hash_partition(std::string_view key, int32_t partition_count);

}  // namespace mirra
