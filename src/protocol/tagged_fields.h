// Skipping a flexible struct's tagged fields, for the internal-topic records (group and
// transaction log values) whose decoded structs have nowhere to keep unknown tags.
#pragma once

#include <cstdint>

#include "protocol/wire.h"

namespace mirra::protocol {

// Checks the tagged-field section for shape and skips it. Kafka keeps adding fields to its
// internal records only as tags: skipping them is what an older reader must do.
inline void skip_tagged_fields(Reader& r) {
  const uint32_t count = r.read_uvarint();
  for (uint32_t i = 0; i < count && !r.failed(); ++i) {
    r.read_uvarint();  // tag
    const uint32_t len = r.read_uvarint();
    if (r.failed()) return;
    if (len > r.remaining()) {
      r.fail("tagged field longer than the bytes that remain");
      return;
    }
    r.skip(len);
  }
}

}  // namespace mirra::protocol
