#include "protocol/records/compression.h"

#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <string>

#include "protocol/records/byte_order.h"

namespace mirra::records {
namespace {

Status corrupt(std::string_view codec, std::string_view what) {
  std::string msg(codec);
  msg += ": ";
  msg += what;
  return Status(ErrorCode::CORRUPT_MESSAGE, std::move(msg));
}

Status too_large(std::string_view codec, size_t max_output) {
  return Status(ErrorCode::CORRUPT_MESSAGE, std::string(codec) +
                                                ": decompressed data exceeds the limit of " +
                                                std::to_string(max_output) + " bytes");
}

// The growing tail of `out` that a streaming decoder writes into. It is allowed one byte past
// `max_output`, so "exactly at the limit" and "over the limit" can be told apart without a
// second probing call.
class OutputWindow {
 public:
  OutputWindow(std::vector<uint8_t>& out, size_t max_output, size_t input_size)
      : out_(out), start_(out.size()), limit_(max_output + 1), hint_(input_size) {}

  uint8_t* free_ptr() { return out_.data() + start_ + used_; }
  size_t free_size() const { return out_.size() - start_ - used_; }
  size_t used() const { return used_; }
  void commit(size_t n) { used_ += n; }

  // Grows the window (doubling, first step ~4x the input) up to the limit; false at the limit.
  bool grow() {
    const size_t cur = out_.size() - start_;
    if (cur >= limit_) return false;
    size_t want = std::max<size_t>({cur * 2, hint_ * 4, 4096});
    out_.resize(start_ + std::min(want, limit_));
    return true;
  }

  bool ensure_space() { return free_size() > 0 || grow(); }
  bool over_limit() const { return used_ >= limit_; }
  void finish() { out_.resize(start_ + used_); }

 private:
  std::vector<uint8_t>& out_;
  size_t start_;
  size_t used_ = 0;
  size_t limit_;
  size_t hint_;
};

// ---- gzip ----------------------------------------------------------------------------------

struct InflateEnd {
  void operator()(z_stream* s) const { inflateEnd(s); }
};

Status gzip_decompress(std::span<const uint8_t> in, std::vector<uint8_t>& out, size_t max) {
  if (in.size() > UINT_MAX) return corrupt("gzip", "input too large");
  z_stream zs{};
  // 15 + 32: a gzip or zlib header, detected automatically (some writers emit zlib).
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return corrupt("gzip", "inflateInit2 failed");
  std::unique_ptr<z_stream, InflateEnd> guard(&zs);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  OutputWindow w(out, max, in.size());
  for (;;) {
    if (!w.ensure_space()) return too_large("gzip", max);
    zs.next_out = w.free_ptr();
    zs.avail_out = static_cast<uInt>(std::min<size_t>(w.free_size(), UINT_MAX));
    const uInt before = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    w.commit(before - zs.avail_out);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);  // concatenated gzip members, as GZIPInputStream accepts
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_out > 0) return corrupt("gzip", "truncated");
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      return corrupt("gzip", zs.msg != nullptr ? zs.msg : "invalid data");
  }
  w.finish();
  return w.over_limit() ? too_large("gzip", max) : Status();
}

Status gzip_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out, int level) {
  if (in.size() > UINT_MAX) return Status(ErrorCode::INVALID_REQUEST, "gzip: input too large");
  z_stream zs{};
  // 15 + 16: write a gzip (not zlib) wrapper, which is what Kafka's gzip codec means.
  if (deflateInit2(&zs, level == 0 ? Z_DEFAULT_COMPRESSION : level, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    return Status(ErrorCode::INVALID_REQUEST, "gzip: bad compression level");
  const size_t start = out.size();
  const size_t bound = deflateBound(&zs, static_cast<uLong>(in.size()));
  out.resize(start + bound);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out.data() + start;
  zs.avail_out = static_cast<uInt>(bound);
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(start + zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "gzip: deflate failed");
  return Status();
}

// ---- snappy --------------------------------------------------------------------------------

constexpr uint8_t kXerialMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kXerialHeaderSize = 16;  // magic, int32 version, int32 min compatible version
constexpr size_t kXerialBlockSize = 32 * 1024;  // the block size xerial's writer uses
// A snappy element expands at most ~21x (a 3-byte copy of 64 bytes), so a declared length
// beyond this ratio is a lie and is refused before anything is allocated.
constexpr size_t kSnappyMaxRatio = 24;

Status snappy_raw_decompress(std::span<const uint8_t> in, std::vector<uint8_t>& out, size_t budget,
                             size_t max) {
  const auto* src = reinterpret_cast<const char*>(in.data());
  size_t n = 0;
  if (!snappy::GetUncompressedLength(src, in.size(), &n))
    return corrupt("snappy", "bad length preamble");
  if (n > budget) return too_large("snappy", max);
  if (n > in.size() * kSnappyMaxRatio + 64)
    return corrupt("snappy", "declared length impossible for the input size");
  const size_t start = out.size();
  out.resize(start + n);
  if (!snappy::RawUncompress(src, in.size(), reinterpret_cast<char*>(out.data() + start))) {
    out.resize(start);
    return corrupt("snappy", "invalid data");
  }
  return Status();
}

Status snappy_xerial_decompress(std::span<const uint8_t> in, std::vector<uint8_t>& out,
                                size_t max) {
  const size_t start = out.size();
  size_t pos = kXerialHeaderSize;
  while (pos < in.size()) {
    if (in.size() - pos < 4) return corrupt("snappy", "truncated xerial chunk length");
    const uint32_t len = load_be32(in.data() + pos);
    pos += 4;
    if (len > in.size() - pos) return corrupt("snappy", "xerial chunk runs past the end");
    Status st = snappy_raw_decompress(in.subspan(pos, len), out, max - (out.size() - start), max);
    if (!st) return st;
    pos += len;
  }
  return Status();
}

Status snappy_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out, bool xerial) {
  const auto raw = [&out](std::span<const uint8_t> chunk) {
    const size_t start = out.size();
    out.resize(start + snappy::MaxCompressedLength(chunk.size()));
    size_t n = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(chunk.data()), chunk.size(),
                        reinterpret_cast<char*>(out.data() + start), &n);
    out.resize(start + n);
  };
  if (!xerial) {
    raw(in);
    return Status();
  }
  out.insert(out.end(), kXerialMagic, kXerialMagic + sizeof kXerialMagic);
  uint8_t versions[8];
  store_be32(versions, 1);      // version
  store_be32(versions + 4, 1);  // minimum compatible version
  out.insert(out.end(), versions, versions + 8);
  for (size_t pos = 0; pos < in.size(); pos += kXerialBlockSize) {
    const size_t len_at = out.size();
    out.resize(len_at + 4);
    raw(in.subspan(pos, std::min(kXerialBlockSize, in.size() - pos)));
    store_be32(out.data() + len_at, static_cast<uint32_t>(out.size() - len_at - 4));
  }
  return Status();
}

// ---- lz4 (frame format) --------------------------------------------------------------------

struct Lz4DctxFree {
  void operator()(LZ4F_dctx* c) const { LZ4F_freeDecompressionContext(c); }
};

Status lz4_decompress(std::span<const uint8_t> in, std::vector<uint8_t>& out, size_t max) {
  LZ4F_dctx* raw_ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw_ctx, LZ4F_VERSION)))
    return corrupt("lz4", "cannot create a decompression context");
  std::unique_ptr<LZ4F_dctx, Lz4DctxFree> ctx(raw_ctx);
  OutputWindow w(out, max, in.size());
  size_t pos = 0;
  for (;;) {
    if (!w.ensure_space()) return too_large("lz4", max);
    size_t src = in.size() - pos;
    size_t dst = w.free_size();
    const size_t rc =
        LZ4F_decompress(ctx.get(), w.free_ptr(), &dst, in.data() + pos, &src, nullptr);
    if (LZ4F_isError(rc)) return corrupt("lz4", LZ4F_getErrorName(rc));
    pos += src;
    w.commit(dst);
    if (rc == 0) {  // a frame ended; another may follow (concatenated frames)
      if (pos == in.size()) break;
      continue;
    }
    if (src == 0 && dst == 0 && w.free_size() > 0) return corrupt("lz4", "truncated frame");
  }
  w.finish();
  return w.over_limit() ? too_large("lz4", max) : Status();
}

Status lz4_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out, int level) {
  // Independent 64 KiB blocks without checksums or content size: the frame shape Kafka's Java
  // client writes, and the one its block reader is known to accept.
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  prefs.frameInfo.blockMode = LZ4F_blockIndependent;
  prefs.compressionLevel = level;
  const size_t start = out.size();
  const size_t bound = LZ4F_compressFrameBound(in.size(), &prefs);
  out.resize(start + bound);
  const size_t n = LZ4F_compressFrame(out.data() + start, bound, in.data(), in.size(), &prefs);
  if (LZ4F_isError(n)) {
    out.resize(start);
    return Status(ErrorCode::UNKNOWN_SERVER_ERROR, std::string("lz4: ") + LZ4F_getErrorName(n));
  }
  out.resize(start + n);
  return Status();
}

// ---- zstd ----------------------------------------------------------------------------------

struct ZstdDctxFree {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

// A frame may ask the decoder for a window of up to 2^27 bytes before producing anything. Allow
// what real producers use (Kafka's default level 3 streams with 2^21; level 19 with 2^23) and
// otherwise no more than the output limit, so a tiny hostile frame cannot reserve 128 MiB.
int zstd_window_log_for(size_t max_output) {
  int log = 24;
  while (log < 27 && (size_t{1} << log) < max_output) ++log;
  return log;
}

Status zstd_decompress(std::span<const uint8_t> in, std::vector<uint8_t>& out, size_t max) {
  std::unique_ptr<ZSTD_DCtx, ZstdDctxFree> ctx(ZSTD_createDCtx());
  if (!ctx) return corrupt("zstd", "cannot create a decompression context");
  ZSTD_DCtx_setParameter(ctx.get(), ZSTD_d_windowLogMax, zstd_window_log_for(max));
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  OutputWindow w(out, max, in.size());
  for (;;) {
    if (!w.ensure_space()) return too_large("zstd", max);
    ZSTD_outBuffer ob{w.free_ptr(), w.free_size(), 0};
    const size_t rc = ZSTD_decompressStream(ctx.get(), &ob, &ib);
    if (ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge)
      return corrupt("zstd", "frame window exceeds the limit of 2^" +
                                 std::to_string(zstd_window_log_for(max)) + " bytes");
    if (ZSTD_isError(rc)) return corrupt("zstd", ZSTD_getErrorName(rc));
    w.commit(ob.pos);
    if (rc == 0) {  // frame complete and flushed; more frames may follow
      if (ib.pos == ib.size) break;
      continue;
    }
    // All input consumed, room left, and the decoder still wants more: the frame is cut short.
    if (ib.pos == ib.size && ob.pos < ob.size) return corrupt("zstd", "truncated frame");
  }
  w.finish();
  return w.over_limit() ? too_large("zstd", max) : Status();
}

Status zstd_compress(std::span<const uint8_t> in, std::vector<uint8_t>& out, int level) {
  const size_t start = out.size();
  const size_t bound = ZSTD_compressBound(in.size());
  out.resize(start + bound);
  const size_t n = ZSTD_compress(out.data() + start, bound, in.data(), in.size(),
                                 level == 0 ? ZSTD_CLEVEL_DEFAULT : level);
  if (ZSTD_isError(n)) {
    out.resize(start);
    return Status(ErrorCode::UNKNOWN_SERVER_ERROR, std::string("zstd: ") + ZSTD_getErrorName(n));
  }
  out.resize(start + n);
  return Status();
}

}  // namespace

std::string_view compression_name(Compression c) {
  switch (c) {
    case Compression::none:
      return "none";
    case Compression::gzip:
      return "gzip";
    case Compression::snappy:
      return "snappy";
    case Compression::lz4:
      return "lz4";
    case Compression::zstd:
      return "zstd";
  }
  return "unknown";
}

Result<Compression> compression_from_id(int id) {
  if (id < 0 || id > 4)
    return Status(ErrorCode::UNSUPPORTED_COMPRESSION_TYPE,
                  "compression codec id " + std::to_string(id) +
                      " is not defined (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)");
  return static_cast<Compression>(id);
}

bool is_xerial_snappy(std::span<const uint8_t> in) {
  return in.size() >= kXerialHeaderSize &&
         std::equal(kXerialMagic, kXerialMagic + sizeof kXerialMagic, in.begin());
}

Status compress(Compression codec, std::span<const uint8_t> in, std::vector<uint8_t>& out,
                const CompressOptions& options) {
  switch (codec) {
    case Compression::none:
      out.insert(out.end(), in.begin(), in.end());
      return Status();
    case Compression::gzip:
      return gzip_compress(in, out, options.level);
    case Compression::snappy:
      return snappy_compress(in, out, options.snappy_xerial);
    case Compression::lz4:
      return lz4_compress(in, out, options.level);
    case Compression::zstd:
      return zstd_compress(in, out, options.level);
  }
  return compression_from_id(static_cast<int>(codec)).status();
}

namespace {

Status decompress_appending(Compression codec, std::span<const uint8_t> in,
                            std::vector<uint8_t>& out, size_t max_output) {
  switch (codec) {
    case Compression::none:
      if (in.size() > max_output) return too_large("none", max_output);
      out.insert(out.end(), in.begin(), in.end());
      return Status();
    case Compression::gzip:
      return gzip_decompress(in, out, max_output);
    case Compression::snappy:
      return is_xerial_snappy(in) ? snappy_xerial_decompress(in, out, max_output)
                                  : snappy_raw_decompress(in, out, max_output, max_output);
    case Compression::lz4:
      return lz4_decompress(in, out, max_output);
    case Compression::zstd:
      return zstd_decompress(in, out, max_output);
  }
  return compression_from_id(static_cast<int>(codec)).status();
}

}  // namespace

Status decompress(Compression codec, std::span<const uint8_t> in, std::vector<uint8_t>& out,
                  size_t max_output) {
  // A failed decoder may have written part of its output; callers see `out` unchanged instead.
  const size_t start = out.size();
  Status st = decompress_appending(codec, in, out, max_output);
  if (!st) out.resize(start);
  return st;
}

}  // namespace mirra::records
