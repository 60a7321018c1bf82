// The needle subcommands. Each parses its own options into a plain struct and calls the
// library; errors propagate to main(), which alone prints them and picks the exit status.
#pragma once

#include <string>
#include <vector>

namespace needle::cli {

int RunGenerate(const std::vector<std::string>& args);
int RunConvert(const std::vector<std::string>& args);
int RunInfo(const std::vector<std::string>& args);
int RunShard(const std::vector<std::string>& args);
int RunRun(const std::vector<std::string>& args);
int RunCompare(const std::vector<std::string>& args);

}  // namespace needle::cli
