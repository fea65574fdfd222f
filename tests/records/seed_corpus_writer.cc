// Writes the record-batch fuzzer's seed corpus (small valid batches and record sets) and its
// kept regression inputs. Not a test: run it by hand to regenerate them,
//   build/tests/records/records_seed_writer [SOURCE_DIR]
// which writes SOURCE_DIR/fuzz/corpus/fuzz_record_batch/ and
// SOURCE_DIR/fuzz/regressions/fuzz_record_batch/.

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "protocol/records/batch_builder.h"

namespace mirra::records {
namespace {

std::vector<uint8_t> sample_batch(Compression c, bool xerial, int64_t offset) {
  BatchOptions o;
  o.base_offset = offset;
  o.compression = c;
  o.compress_options.snappy_xerial = xerial;
  o.producer_id = 12;
  o.producer_epoch = 1;
  o.base_sequence = 0;
  const HeaderInput headers[] = {{"h", as_bytes("v")}, {"null", std::nullopt}};
  std::vector<RecordInput> records(3);
  records[0].key = as_bytes("key");
  records[0].value = as_bytes("value");
  records[0].timestamp = 1700000000000;
  records[1].value = as_bytes("no key, two headers");
  records[1].headers = headers;
  records[1].timestamp = 1700000000005;
  records[2].key = as_bytes("tombstone");
  records[2].timestamp = 1700000000003;
  return std::move(build_batch(o, records)).value();
}

void write_seeds(const std::filesystem::path& root) {
  const std::filesystem::path dir = root / "fuzz/corpus/fuzz_record_batch";
  std::filesystem::create_directories(dir);
  const auto write = [&dir](const std::string& name, const std::vector<uint8_t>& bytes) {
    std::ofstream(dir / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  };
  write("none.bin", sample_batch(Compression::none, false, 0));
  write("gzip.bin", sample_batch(Compression::gzip, false, 0));
  write("snappy_raw.bin", sample_batch(Compression::snappy, false, 0));
  write("snappy_xerial.bin", sample_batch(Compression::snappy, true, 0));
  write("lz4.bin", sample_batch(Compression::lz4, false, 0));
  write("zstd.bin", sample_batch(Compression::zstd, false, 0));
  write("commit_marker.bin",
        build_control_batch(ControlType::COMMIT, 12, 1, 4, 3, 1700000000009).value());
  auto set = sample_batch(Compression::none, false, 0);
  const auto second = sample_batch(Compression::lz4, false, 3);
  set.insert(set.end(), second.begin(), second.end());
  write("two_batches.bin", set);
  set.resize(set.size() - 10);
  write("partial_tail.bin", set);
}

// Kept inputs that once broke something (see fuzz/regressions/fuzz_record_batch/):
// producer id INT64_MAX made the mirroring rewrite compute -(p + 2) with signed overflow.
void write_regressions(const std::filesystem::path& root) {
  const std::filesystem::path dir = root / "fuzz/regressions/fuzz_record_batch";
  std::filesystem::create_directories(dir);
  BatchOptions o;
  o.producer_id = INT64_MAX;
  RecordInput r;
  r.value = as_bytes("v");
  const RecordInput rs[] = {r};
  const auto bytes = build_batch(o, rs).value();
  std::ofstream(dir / "producer_id_int64_max.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

}  // namespace
}  // namespace mirra::records

int main(int argc, char** argv) {
  const std::filesystem::path root = argc > 1 ? argv[1] : MIRRA_SOURCE_DIR;
  mirra::records::write_seeds(root);
  mirra::records::write_regressions(root);
  return 0;
}
