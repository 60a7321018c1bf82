#include "loaders/byte_source.h"

#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <memory>

#include "base/error.h"
#include "base/unique_fd.h"

namespace needle {
namespace {

constexpr size_t kInputBufferBytes = size_t{1} << 20;

// What a liblzma status means, in words (lzma.h documents each one).
std::string LzmaErrorText(lzma_ret rc) {
  switch (rc) {
    case LZMA_DATA_ERROR:
      return "the compressed data is corrupt (LZMA_DATA_ERROR)";
    case LZMA_FORMAT_ERROR:
      return "the data is not in the .xz format (LZMA_FORMAT_ERROR)";
    case LZMA_OPTIONS_ERROR:
      return "the stream uses options this liblzma does not support, or its header is corrupt "
             "(LZMA_OPTIONS_ERROR)";
    case LZMA_MEM_ERROR:
      return "out of memory (LZMA_MEM_ERROR)";
    case LZMA_MEMLIMIT_ERROR:
      return "the stream needs more memory than the decoder may use (LZMA_MEMLIMIT_ERROR)";
    case LZMA_UNSUPPORTED_CHECK:
      return "the stream's integrity check type is not supported (LZMA_UNSUPPORTED_CHECK)";
    case LZMA_BUF_ERROR:
      return "the decoder can make no progress: the compressed data ends early or is corrupt "
             "(LZMA_BUF_ERROR)";
    case LZMA_PROG_ERROR:
      return "liblzma was called wrongly, a bug in needle (LZMA_PROG_ERROR)";
    default:
      return "liblzma status " + std::to_string(static_cast<int>(rc));
  }
}

// What a zlib status means, in words; `msg` is zlib's own detail, when it gave one.
std::string ZlibErrorText(int rc, const char* msg) {
  const std::string detail = msg != nullptr ? std::string(": ") + msg : "";
  switch (rc) {
    case Z_DATA_ERROR:
      return "the compressed data is corrupt (Z_DATA_ERROR" + detail + ")";
    case Z_NEED_DICT:
      return "the stream asks for a preset dictionary, which gzip data never does: the data is "
             "corrupt (Z_NEED_DICT)";
    case Z_MEM_ERROR:
      return "out of memory (Z_MEM_ERROR)";
    case Z_STREAM_ERROR:
      return "zlib was called wrongly, a bug in needle (Z_STREAM_ERROR" + detail + ")";
    case Z_VERSION_ERROR:
      return "the zlib library does not match the one needle was built with (Z_VERSION_ERROR)";
    default:
      return "zlib status " + std::to_string(rc) + detail;
  }
}

struct Xxh3StateDeleter {
  void operator()(XXH3_state_t* state) const { XXH3_freeState(state); }
};

// Reads the raw file sequentially, hashing every byte it hands out.
class FileReader {
 public:
  FileReader(UniqueFd fd, std::string path)
      : fd_(std::move(fd)), path_(std::move(path)), hash_(XXH3_createState()) {
    if (hash_ == nullptr) throw Error(path_, "cannot allocate a hash state");
    XXH3_64bits_reset(hash_.get());
  }
  size_t Read(char* dst, size_t capacity) {
    for (;;) {
      ssize_t n = ::read(fd_.get(), dst, capacity);
      if (n >= 0) {
        consumed_ += static_cast<uint64_t>(n);
        XXH3_64bits_update(hash_.get(), dst, static_cast<size_t>(n));
        return static_cast<size_t>(n);
      }
      if (errno != EINTR)
        throw Error(path_, "read failed at byte " + std::to_string(consumed_), errno);
    }
  }
  uint64_t consumed() const { return consumed_; }
  // A read buffer for the compressed bytes: kInputBufferBytes, or the whole file when it is a
  // smaller regular file (small inputs then cost no 1 MiB allocation). Not zeroed: Read fills it.
  std::unique_ptr<uint8_t[]> NewInputBuffer(size_t& bytes) const {
    bytes = kInputBufferBytes;
    struct stat st {};
    if (::fstat(fd_.get(), &st) == 0 && S_ISREG(st.st_mode)) {
      bytes = std::clamp<size_t>(static_cast<uint64_t>(st.st_size), 4096, kInputBufferBytes);
    }
    return std::make_unique_for_overwrite<uint8_t[]>(bytes);
  }
  uint64_t hash() const { return XXH3_64bits_digest(hash_.get()); }
  const std::string& path() const { return path_; }

 private:
  UniqueFd fd_;
  std::string path_;
  uint64_t consumed_ = 0;
  std::unique_ptr<XXH3_state_t, Xxh3StateDeleter> hash_;
};

class PlainSource final : public ByteSource {
 public:
  explicit PlainSource(FileReader file) : file_(std::move(file)) {}
  size_t Read(char* dst, size_t capacity) override { return file_.Read(dst, capacity); }
  uint64_t FileBytesRead() const override { return file_.consumed(); }
  uint64_t ContentHash() const override { return file_.hash(); }

 private:
  FileReader file_;
};

class GzipSource final : public ByteSource {
 public:
  explicit GzipSource(FileReader file)
      : file_(std::move(file)), input_(file_.NewInputBuffer(input_bytes_)) {
    // 15 + 32: zlib or gzip header, detected automatically.
    if (int rc = inflateInit2(&stream_, 15 + 32); rc != Z_OK) {
      throw Error(file_.path(), "cannot start the gzip decoder: " + ZlibErrorText(rc, stream_.msg));
    }
  }
  ~GzipSource() override { inflateEnd(&stream_); }

  size_t Read(char* dst, size_t capacity) override {
    stream_.next_out = reinterpret_cast<Bytef*>(dst);
    stream_.avail_out = static_cast<uInt>(std::min<size_t>(capacity, UINT32_MAX));
    while (stream_.avail_out > 0) {
      if (stream_.avail_in == 0 && !eof_) {
        size_t n = file_.Read(reinterpret_cast<char*>(input_.get()), input_bytes_);
        if (n == 0) eof_ = true;
        stream_.next_in = input_.get();
        stream_.avail_in = static_cast<uInt>(n);
      }
      if (stream_.avail_in == 0 && eof_) {
        if (in_member_) {
          throw Error::AtByte(file_.path(), file_.consumed(),
                              "truncated gzip stream (the compressed data ends early)");
        }
        break;
      }
      in_member_ = true;
      int rc = inflate(&stream_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        inflateReset(&stream_);  // a following member continues the data (gzip -c a b)
      } else if (rc == Z_BUF_ERROR) {
        continue;  // needs more input
      } else if (rc != Z_OK) {
        throw Error::AtByte(file_.path(), file_.consumed() - stream_.avail_in,
                            "cannot decompress the gzip data: " + ZlibErrorText(rc, stream_.msg));
      }
    }
    return capacity - stream_.avail_out;
  }
  uint64_t FileBytesRead() const override { return file_.consumed(); }
  uint64_t ContentHash() const override { return file_.hash(); }

 private:
  FileReader file_;
  size_t input_bytes_ = 0;
  std::unique_ptr<uint8_t[]> input_;
  z_stream stream_{};
  bool eof_ = false;
  bool in_member_ = false;
};

class XzSource final : public ByteSource {
 public:
  explicit XzSource(FileReader file)
      : file_(std::move(file)), input_(file_.NewInputBuffer(input_bytes_)) {
    if (lzma_ret rc = lzma_stream_decoder(&stream_, UINT64_MAX, LZMA_CONCATENATED); rc != LZMA_OK) {
      throw Error(file_.path(), "cannot start the xz decoder: " + LzmaErrorText(rc));
    }
  }
  ~XzSource() override { lzma_end(&stream_); }

  size_t Read(char* dst, size_t capacity) override {
    stream_.next_out = reinterpret_cast<uint8_t*>(dst);
    stream_.avail_out = capacity;
    while (stream_.avail_out > 0 && !done_) {
      if (stream_.avail_in == 0 && !eof_) {
        size_t n = file_.Read(reinterpret_cast<char*>(input_.get()), input_bytes_);
        if (n == 0) eof_ = true;
        stream_.next_in = input_.get();
        stream_.avail_in = n;
      }
      lzma_ret rc = lzma_code(&stream_, eof_ ? LZMA_FINISH : LZMA_RUN);
      if (rc == LZMA_STREAM_END) {
        done_ = true;
      } else if (rc == LZMA_BUF_ERROR && eof_) {
        throw Error::AtByte(file_.path(), file_.consumed(),
                            "truncated xz stream (the compressed data ends early)");
      } else if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
        throw Error::AtByte(file_.path(), file_.consumed() - stream_.avail_in,
                            "cannot decompress the xz data: " + LzmaErrorText(rc));
      }
    }
    return capacity - stream_.avail_out;
  }
  uint64_t FileBytesRead() const override { return file_.consumed(); }
  uint64_t ContentHash() const override { return file_.hash(); }

 private:
  FileReader file_;
  size_t input_bytes_ = 0;
  std::unique_ptr<uint8_t[]> input_;
  lzma_stream stream_ = LZMA_STREAM_INIT;
  bool eof_ = false;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<ByteSource> OpenByteSource(const std::string& path, Compression* compression) {
  UniqueFd fd = OpenForReading(path);
  unsigned char head[6] = {};
  ssize_t n = ::pread(fd.get(), head, sizeof(head), 0);
  if (n < 0) ThrowSystemError(path, "cannot read");
  Compression kind = DetectCompression(head, static_cast<size_t>(n));
  if (compression != nullptr) *compression = kind;
  FileReader file(std::move(fd), path);
  switch (kind) {
    case Compression::kGzip:
      return std::make_unique<GzipSource>(std::move(file));
    case Compression::kXz:
      return std::make_unique<XzSource>(std::move(file));
    case Compression::kNone:
      break;
  }
  return std::make_unique<PlainSource>(std::move(file));
}

}  // namespace needle
