// MappedFile: the one owner of a read-only mmap of a whole file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace needle {

class MappedFile {
 public:
  MappedFile() = default;
  // Maps `path` read-only and advises the kernel to read ahead (MADV_WILLNEED). Throws Error.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  std::string_view view() const { return {data_, size_}; }

 private:
  void Unmap();
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace needle
