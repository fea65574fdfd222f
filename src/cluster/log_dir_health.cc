#include "cluster/log_dir_health.h"

#include <sys/statvfs.h>

#include "base/log.h"
#include "storage/io_error.h"

namespace mirra::cluster {
namespace {

constexpr std::string_view kMirraLogComponent = "log-dir";

using storage::IoErrorKind;

std::string describe_space(const std::filesystem::path& dir) {
  const DiskSpace space = disk_space(dir);
  if (space.usable_bytes < 0) return "free space unknown";
  return fmt::format("{} bytes free of {}", space.usable_bytes, space.total_bytes);
}

}  // namespace

DiskSpace disk_space(const std::filesystem::path& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) return {};
  const auto block = static_cast<int64_t>(fs.f_frsize);
  return {static_cast<int64_t>(fs.f_blocks) * block, static_cast<int64_t>(fs.f_bavail) * block};
}

void LogDirHealth::observe(const Status& outcome, bool append) {
  if (offline()) return;
  if (outcome.ok()) {
    if (full_ && append) {
      full_ = false;
      MIRRA_LOG_INFO("log directory {} has space again ({}): appends succeed", dir_.string(),
                     describe_space(dir_));
    }
    return;
  }
  switch (storage::io_error_kind(outcome)) {
    case IoErrorKind::kNoSpace:
      if (full_) return;
      full_ = true;
      MIRRA_LOG_ERROR(
          "log directory {} is full ({}): appends fail with KAFKA_STORAGE_ERROR until space is "
          "freed ({})",
          dir_.string(), describe_space(dir_), outcome.message());
      return;
    case IoErrorKind::kDevice:
      offline_reason_ = outcome.message();
      MIRRA_LOG_ERROR(
          "log directory {} is offline after a device error ({}): its partitions answer "
          "KAFKA_STORAGE_ERROR until the broker is restarted",
          dir_.string(), offline_reason_);
      return;
    case IoErrorKind::kOther:
      return;
  }
}

}  // namespace mirra::cluster
