// Prints fetched records as Kafka's DefaultMessageFormatter does, with its properties and
// defaults: print.timestamp, print.partition, print.offset, print.headers, print.key (false),
// print.value (true); key.separator=\t, line.separator=\n, headers.separator=",",
// headers.key.separator=":", null.literal=null. Columns come in Kafka's order:
//   [CreateTime:ts] [Partition:p] [Offset:o] [h1:v1,h2:v2|NO_HEADERS] [key] value
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "base/status.h"
#include "cli/common.h"
#include "client/types.h"

namespace mirra::cli {

class RecordPrinter {
 public:
  static Result<RecordPrinter> from_properties(const Properties& props);

  // Prints the records of `fetched` at or after `position` (at most `limit`, -1: all) and moves
  // `position` past what it consumed, control batches included. With read_committed fetches,
  // records of aborted transactions are skipped using the response's aborted list.
  Result<int64_t> print(const client::FetchedPartition& fetched, int64_t& position, int64_t limit,
                        std::FILE* out);

 private:
  bool timestamp_ = false, partition_ = false, offset_ = false, headers_ = false, key_ = false,
       value_ = true;
  std::string key_separator_ = "\t", line_separator_ = "\n", headers_separator_ = ",",
              headers_key_separator_ = ":", null_literal_ = "null";
  std::vector<uint8_t> scratch_;
};

}  // namespace mirra::cli
