#include "loaders/error.h"

#include <cerrno>
#include <cstring>
#include <utility>

namespace needle {

Error::Error(std::string path, const std::string& message, int sys_errno)
    : Error(std::move(path), kNoPosition, kNoPosition, message, sys_errno) {}

Error::Error(std::string path, uint64_t line, uint64_t byte, const std::string& message,
             int sys_errno)
    : std::runtime_error(Format(path, line, byte, message, sys_errno)),
      path_(std::move(path)),
      line_(line),
      byte_(byte),
      errno_(sys_errno),
      message_(message) {}

Error Error::AtLine(std::string path, uint64_t line, const std::string& message) {
  return Error(std::move(path), line, kNoPosition, message, 0);
}

Error Error::AtByte(std::string path, uint64_t byte_offset, const std::string& message,
                    int sys_errno) {
  return Error(std::move(path), kNoPosition, byte_offset, message, sys_errno);
}

std::string Error::Format(const std::string& path, uint64_t line, uint64_t byte,
                          const std::string& message, int sys_errno) {
  std::string out = path;
  if (line != kNoPosition) {
    out += ":" + std::to_string(line);
  } else if (byte != kNoPosition) {
    out += ": byte " + std::to_string(byte);
  }
  out += ": " + message;
  if (sys_errno != 0) out += std::string(": ") + std::strerror(sys_errno);
  return out;
}

void ThrowSystemError(const std::string& path, const std::string& what) {
  throw Error(path, what, errno);
}

}  // namespace needle
