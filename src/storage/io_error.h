// What an I/O error of storage says about the file system it came from. Every I/O error is
// made by durable::io_error() (durable_file.h): KAFKA_STORAGE_ERROR "<what> <path>:
// <strerror(err)> (<errno name>)", e.g. "write /data/t-0/00000000000000000000.log: No space left
// on device (ENOSPC)". io_error_kind() reads the errno name at the end; the broker acts on it
// (cluster/log_dir_health.h).
#pragma once

#include "base/status.h"

namespace mirra::storage {

enum class IoErrorKind {
  kOther,    // not an I/O error, or one of a single file (ENOENT, EACCES, EMFILE, ...)
  kNoSpace,  // ENOSPC, EDQUOT: the file system (or the quota) is full; retrying may work
  kDevice,   // EIO, EROFS, ENXIO, ENODEV, EUCLEAN: the device failed or went read-only
};
IoErrorKind io_error_kind(const Status& s);

}  // namespace mirra::storage
