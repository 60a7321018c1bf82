#include "base/version.h"

namespace needle {

std::string_view Version() { return NEEDLE_VERSION; }

}  // namespace needle
