#include "loaders/temp_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <utility>
#include <vector>

#include "loaders/error.h"

namespace needle {

TempFile::TempFile(std::string final_path) : final_(std::move(final_path)) {
  std::string pattern = final_ + ".tmp.XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) ThrowSystemError(final_, "cannot create a temporary file next to");
  path_ = name.data();
  fd_ = UniqueFd(fd);
}

TempFile::~TempFile() {
  if (!committed_) unlink(path_.c_str());
}

void TempFile::Commit() {
  if (fsync(fd_.get()) != 0) ThrowSystemError(final_, "cannot fsync");
  if (fchmod(fd_.get(), 0644) != 0) ThrowSystemError(final_, "cannot chmod");
  fd_.Reset();
  if (rename(path_.c_str(), final_.c_str()) != 0)
    ThrowSystemError(final_, "cannot rename into place");
  committed_ = true;
  std::string dir = std::filesystem::path(final_).parent_path().string();
  UniqueFd dfd(open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dfd.valid()) fsync(dfd.get());
}

}  // namespace needle
