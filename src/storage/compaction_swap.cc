// The swap of cleaned segments into place, and its recovery after a crash.
//
// Install, per group (all renames in the partition directory):
//   1. "<base>.{txnindex,timeindex,index}.cleaned" -> ".swap", fsync dir;
//      "<base>.log.cleaned" -> "<base>.log.swap", fsync dir          <- commit point
//   2. every replaced segment: files -> ".deleted" (indexes first, .log last)
//   3. "<base>.*.swap" -> final names (indexes first, .log last), fsync dir
// Recovery (recover_swaps, before anything else looks at the directory):
//   - ".cleaned" files: a swap that never committed; removed (the old segments are intact).
//   - ".swap" files without "<base>.log.swap": an interrupted step 1; removed.
//   - "<base>.log.swap": committed. Its batches give its offset range [base, next); every
//     segment with a base in that range is replaced: its files become .deleted (for the
//     segment at `base` only while its .log still has its name: after step 2 the files named
//     "<base>.*" can only be new ones from step 3), then step 3 is completed.
// The cleaner keeps the last batch of every group, so [base, next) covers exactly the segments
// of the group and no later one.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <set>

#include "base/log.h"
#include "storage/compaction_internal.h"
#include "storage/durable_file.h"

namespace mirra::storage {
namespace {

constexpr std::string_view kMirraLogComponent = "storage";
namespace fs = std::filesystem;
using compaction::file_path;
using compaction::kKinds;

Status rename_if_exists(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) == 0 || errno == ENOENT) return Status();
  return durable::io_error("rename to " + to.string() + " from", from, errno);
}

Status rename_all(const fs::path& dir, int64_t base, std::string_view from, std::string_view to) {
  for (std::string_view kind : kKinds) {
    if (Status st =
            rename_if_exists(file_path(dir, base, kind, from), file_path(dir, base, kind, to));
        !st)
      return st;
  }
  return Status();
}

// The offset after the last batch of a committed swap (at least base + 1: the segment at
// `base` is always replaced, its name is taken).
Result<int64_t> swap_end_offset(const fs::path& dir, int64_t base) {
  auto file = SegmentFile::open(file_path(dir, base, ".log", kSwapSuffix));
  if (!file) return file.status();
  int64_t next = base + 1;
  auto handle = (*file)->handle();
  if (!handle) return handle.status();
  HeaderScanner scan(**handle, 0, (*file)->size());
  for (;;) {
    auto h = scan.next();
    if (!h) return h.status();  // fsynced before the commit: damage here is not a torn write
    if (!*h) return next;
    next = std::max(next, (*h)->next_offset());
  }
}

Status complete_swap(const fs::path& dir, int64_t base) {
  auto end = swap_end_offset(dir, base);
  if (!end) return end.status();
  std::error_code ec;
  std::vector<int64_t> replaced;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (auto b = parse_segment_name(entry.path(), ".log"); b && *b >= base && *b < *end)
      replaced.push_back(*b);
  if (ec) return durable::io_error("list", dir, ec.value());
  for (int64_t b : replaced) {
    MIRRA_LOG_INFO("{}: finishing an interrupted compaction: segment {} replaced by {}",
                   dir.string(), b, base);
    if (Status st = rename_all(dir, b, "", ".deleted"); !st) return st;
  }
  return compaction::finish_swap(dir, base);
}

}  // namespace

namespace compaction {

Status commit_cleaned(const fs::path& dir, int64_t base) {
  for (std::string_view kind : kKinds) {
    if (kind == ".log") {
      if (Status st = durable::fsync_dir(dir); !st) return st;
      if (::rename(file_path(dir, base, kind, kCleanedSuffix).c_str(),
                   file_path(dir, base, kind, kSwapSuffix).c_str()) != 0)
        return durable::io_error("rename", file_path(dir, base, kind, kCleanedSuffix), errno);
    } else if (Status st = rename_if_exists(file_path(dir, base, kind, kCleanedSuffix),
                                            file_path(dir, base, kind, kSwapSuffix));
               !st) {
      return st;
    }
  }
  return durable::fsync_dir(dir);
}

Status finish_swap(const fs::path& dir, int64_t base) {
  if (Status st = rename_all(dir, base, kSwapSuffix, ""); !st) return st;
  return durable::fsync_dir(dir);
}

}  // namespace compaction

Status recover_swaps(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> doomed;
  std::set<int64_t> committed;
  std::map<int64_t, std::vector<fs::path>> swap_files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const fs::path& p = entry.path();
    const std::string name = p.filename().string();
    if (name.ends_with(kCleanedSuffix)) {
      doomed.push_back(p);
      continue;
    }
    if (!name.ends_with(kSwapSuffix)) continue;
    const fs::path unswapped = name.substr(0, name.size() - kSwapSuffix.size());
    for (std::string_view kind : kKinds) {
      auto base = parse_segment_name(unswapped, kind);
      if (!base) continue;
      swap_files[*base].push_back(p);
      if (kind == ".log") committed.insert(*base);
    }
  }
  if (ec) return durable::io_error("list", dir, ec.value());
  for (const auto& [base, files] : swap_files)
    if (!committed.count(base)) doomed.insert(doomed.end(), files.begin(), files.end());
  for (const fs::path& p : doomed) {
    MIRRA_LOG_INFO("removing uncommitted compaction file {}", p.string());
    fs::remove(p, ec);
  }
  for (int64_t base : committed) {
    if (Status st = complete_swap(dir, base); !st) return st;
  }
  return Status();
}

}  // namespace mirra::storage
