#include "apps/cli/run_program.h"

#include <limits>

namespace needle::cli {

void AppendNumber(std::string& line, double value) {
  if (value == std::numeric_limits<double>::infinity()) {
    line += "\tinf";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "\t%.9g", value);
  line += buf;
}

}  // namespace needle::cli
