#include "io/mapped_file.h"

#include <sys/mman.h>

#include <utility>

#include "base/error.h"
#include "base/unique_fd.h"

namespace needle {

MappedFile::MappedFile(const std::string& path) {
  UniqueFd fd = OpenForReading(path);
  size_ = FileSize(fd.get(), path);
  if (size_ == 0) return;  // mmap of length 0 is invalid; an empty view is the truth
  void* p = mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (p == MAP_FAILED) ThrowSystemError(path, "cannot mmap");
  madvise(p, size_, MADV_WILLNEED);
  data_ = static_cast<const char*>(p);
}

MappedFile::~MappedFile() { Unmap(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    Unmap();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void MappedFile::Unmap() {
  if (data_ != nullptr) munmap(const_cast<char*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace needle
