#include "loaders/byte_source.h"

#include <lzma.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <vector>

#include "loaders/error.h"
#include "loaders/unique_fd.h"

namespace needle {
namespace {

constexpr size_t kInputBufferBytes = size_t{1} << 20;

// Reads the raw file sequentially.
class FileReader {
 public:
  FileReader(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  size_t Read(char* dst, size_t capacity) {
    for (;;) {
      ssize_t n = ::read(fd_.get(), dst, capacity);
      if (n >= 0) {
        consumed_ += static_cast<uint64_t>(n);
        return static_cast<size_t>(n);
      }
      if (errno != EINTR)
        throw Error(path_, "read failed at byte " + std::to_string(consumed_), errno);
    }
  }
  uint64_t consumed() const { return consumed_; }
  const std::string& path() const { return path_; }

 private:
  UniqueFd fd_;
  std::string path_;
  uint64_t consumed_ = 0;
};

class PlainSource final : public ByteSource {
 public:
  explicit PlainSource(FileReader file) : file_(std::move(file)) {}
  size_t Read(char* dst, size_t capacity) override { return file_.Read(dst, capacity); }
  uint64_t FileBytesRead() const override { return file_.consumed(); }

 private:
  FileReader file_;
};

class GzipSource final : public ByteSource {
 public:
  explicit GzipSource(FileReader file) : file_(std::move(file)), input_(kInputBufferBytes) {
    // 15 + 32: zlib or gzip header, detected automatically.
    if (inflateInit2(&stream_, 15 + 32) != Z_OK)
      throw Error(file_.path(), "cannot start gzip decoder");
  }
  ~GzipSource() override { inflateEnd(&stream_); }

  size_t Read(char* dst, size_t capacity) override {
    stream_.next_out = reinterpret_cast<Bytef*>(dst);
    stream_.avail_out = static_cast<uInt>(std::min<size_t>(capacity, UINT32_MAX));
    while (stream_.avail_out > 0) {
      if (stream_.avail_in == 0 && !eof_) {
        size_t n = file_.Read(reinterpret_cast<char*>(input_.data()), input_.size());
        if (n == 0) eof_ = true;
        stream_.next_in = input_.data();
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
        throw Error::AtByte(
            file_.path(), file_.consumed() - stream_.avail_in,
            std::string("corrupt gzip data: ") + (stream_.msg ? stream_.msg : "inflate failed"));
      }
    }
    return capacity - stream_.avail_out;
  }
  uint64_t FileBytesRead() const override { return file_.consumed(); }

 private:
  FileReader file_;
  std::vector<Bytef> input_;
  z_stream stream_{};
  bool eof_ = false;
  bool in_member_ = false;
};

class XzSource final : public ByteSource {
 public:
  explicit XzSource(FileReader file) : file_(std::move(file)), input_(kInputBufferBytes) {
    if (lzma_stream_decoder(&stream_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
      throw Error(file_.path(), "cannot start xz decoder");
    }
  }
  ~XzSource() override { lzma_end(&stream_); }

  size_t Read(char* dst, size_t capacity) override {
    stream_.next_out = reinterpret_cast<uint8_t*>(dst);
    stream_.avail_out = capacity;
    while (stream_.avail_out > 0 && !done_) {
      if (stream_.avail_in == 0 && !eof_) {
        size_t n = file_.Read(reinterpret_cast<char*>(input_.data()), input_.size());
        if (n == 0) eof_ = true;
        stream_.next_in = input_.data();
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
                            "corrupt xz data (liblzma error " + std::to_string(rc) + ")");
      }
    }
    return capacity - stream_.avail_out;
  }
  uint64_t FileBytesRead() const override { return file_.consumed(); }

 private:
  FileReader file_;
  std::vector<uint8_t> input_;
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
