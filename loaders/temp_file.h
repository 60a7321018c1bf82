// TempFile: write a file under a temporary name next to its final path, then Commit()
// fsyncs it, renames it into place and fsyncs the directory. Destroyed without Commit()
// (an error, an exception), it removes the temporary: a failed write leaves nothing behind.
#pragma once

#include <string>

#include "loaders/unique_fd.h"

namespace needle {

class TempFile {
 public:
  explicit TempFile(std::string final_path);  // throws Error
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }
  const std::string& final_path() const { return final_; }
  void Commit();  // throws Error

 private:
  std::string final_;
  std::string path_;
  UniqueFd fd_;
  bool committed_ = false;
};

}  // namespace needle
