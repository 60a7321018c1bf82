// needle's version (the project version of CMakeLists.txt), as `needle --version`, the run
// statistics' summary and every shard set's manifest give it.
#pragma once

#include <string_view>

namespace needle {

std::string_view Version();  // "MAJOR.MINOR.PATCH"

}  // namespace needle
