#include "apps/cli/cli_common.h"

#include <omp.h>

#include <cstdio>
#include <iostream>

namespace needle::cli {

void AddGraphInputOptions(po::options_description& options, GraphInputOptions& values) {
  options.add_options()("format", po::value(&values.format)->default_value("auto"),
                        "input format: auto, snap (edge list), mtx, gr, csr")(
      "weights", po::value(&values.weights)->default_value("auto"),
      "auto (what the file has), yes (require a weight column) or no (ignore weights)")(
      "threads", po::value(&values.threads)->default_value(0),
      "worker threads (0: OpenMP's default, OMP_NUM_THREADS)");
}

ReadOptions ToReadOptions(const GraphInputOptions& values) {
  ReadOptions read;
  try {
    read.format = ParseFormatName(values.format);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--format: ") + e.what());
  }
  if (values.weights == "auto") {
    read.weights = WeightMode::kAuto;
  } else if (values.weights == "yes") {
    read.weights = WeightMode::kWeighted;
  } else if (values.weights == "no") {
    read.weights = WeightMode::kUnweighted;
  } else {
    throw UsageError("--weights must be auto, yes or no, not '" + values.weights + "'");
  }
  if (values.threads < 0) throw UsageError("--threads must be 0 or more");
  read.threads = values.threads;
  if (values.threads > 0) omp_set_num_threads(values.threads);
  return read;
}

bool ParseCommandLine(const std::vector<std::string>& args, const std::string& usage,
                      po::options_description& options,
                      const po::positional_options_description& positional) {
  options.add_options()("help,h", "show this help");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << usage << "\n\n" << options << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return true;
}

uint64_t ParseMemorySize(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw UsageError("--memory: expected a size such as 512M or 4G, not '" + text + "'");
  }
  std::string unit = text.substr(used);
  if (unit.size() >= 2 && (unit.substr(1) == "iB" || unit.substr(1) == "B"))
    unit = unit.substr(0, 1);
  double scale = 1;
  if (unit == "K" || unit == "k")
    scale = 1024.0;
  else if (unit == "M" || unit == "m")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "t")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else if (!unit.empty() && unit != "B") {
    throw UsageError("--memory: unknown unit '" + unit + "' (use K, M, G or T)");
  }
  if (value <= 0) throw UsageError("--memory must be positive");
  return static_cast<uint64_t>(value * scale);
}

std::string HumanBytes(double bytes) {
  static const char* kUnits[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 4) {
    bytes /= 1000;
    ++unit;
  }
  char out[32];
  std::snprintf(out, sizeof(out), unit == 0 ? "%.0f %s" : "%.2f %s", bytes, kUnits[unit]);
  return out;
}

}  // namespace needle::cli
