#include "apps/cli/cli_common.h"

#include <omp.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <utility>

namespace needle::cli {
namespace {

// Refuses `text` for the option being parsed; Boost fills in the option's name.
[[noreturn]] void Refuse(const std::string& text, const std::string& allowed) {
  throw po::error_with_option_name("the argument '" + text +
                                   "' for option '%canonical_option%' is invalid: expected " +
                                   allowed);
}

bool AllDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

template <class T>
T ParseWhole(const std::string& text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!AllDigits(text) || ec != std::errc() || end != text.data() + text.size()) {
    Refuse(text, "a whole number from 0 to " + std::to_string(std::numeric_limits<T>::max()));
  }
  return value;
}

}  // namespace

uint64_t ParseMemorySize(const std::string& text) {
  const std::string allowed =
      "a size such as 512M, 4G or 1.5GiB (K, M, G, T: powers of 1024; no unit: bytes), from "
      "1 byte to 4 EiB, not '" +
      text + "'";
  // digits [. digits] [unit]
  size_t at = text.find_first_not_of("0123456789");
  const std::string whole = text.substr(0, at);
  std::string fraction;
  if (at != std::string::npos && text[at] == '.') {
    const size_t end = text.find_first_not_of("0123456789", at + 1);
    fraction = text.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
    if (fraction.empty()) throw std::invalid_argument(allowed);
    at = end;
  }
  if (whole.empty() || whole.size() > 19) throw std::invalid_argument(allowed);
  std::string unit = at == std::string::npos ? "" : text.substr(at);
  if (unit.size() >= 2 && (unit.substr(1) == "iB" || unit.substr(1) == "B")) unit.resize(1);
  int shift = 0;
  if (unit == "K" || unit == "k") {
    shift = 10;
  } else if (unit == "M" || unit == "m") {
    shift = 20;
  } else if (unit == "G" || unit == "g") {
    shift = 30;
  } else if (unit == "T" || unit == "t") {
    shift = 40;
  } else if (!unit.empty() && unit != "B") {
    throw std::invalid_argument(allowed);
  }
  // whole × 2^shift exactly; the fraction's share in double (53 bits: exact to the byte up to
  // terabytes); a fraction of a byte is dropped.
  constexpr uint64_t kMax = uint64_t{1} << 62;
  const uint64_t units = std::stoull(whole);
  if (units > (kMax >> shift)) throw std::invalid_argument(allowed);
  uint64_t bytes = units << shift;
  if (!fraction.empty()) {
    const double share = std::stod("0." + fraction) * static_cast<double>(uint64_t{1} << shift);
    bytes += static_cast<uint64_t>(share);
  }
  if (bytes < 1 || bytes > kMax) throw std::invalid_argument(allowed);
  return static_cast<uint64_t>(bytes);
}

void validate(boost::any& v, const std::vector<std::string>& values, Whole<uint32_t>*, int) {
  po::validators::check_first_occurrence(v);
  v = Whole<uint32_t>{ParseWhole<uint32_t>(po::validators::get_single_string(values))};
}

void validate(boost::any& v, const std::vector<std::string>& values, Whole<uint64_t>*, int) {
  po::validators::check_first_occurrence(v);
  v = Whole<uint64_t>{ParseWhole<uint64_t>(po::validators::get_single_string(values))};
}

void validate(boost::any& v, const std::vector<std::string>& values, Real*, int) {
  po::validators::check_first_occurrence(v);
  const std::string& text = po::validators::get_single_string(values);
  // digits [. digits] [e [+-] digits], or . digits: what from_chars takes but inf, nan, hex.
  const bool plain = !text.empty() &&
                     text.find_first_not_of("0123456789.eE+-") == std::string::npos &&
                     text[0] != '+' && text[0] != '-';
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!plain || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    Refuse(text, "a non-negative decimal number such as 0.001 or 1e-4");
  }
  v = Real{value};
}

void validate(boost::any& v, const std::vector<std::string>& values, MemorySize*, int) {
  po::validators::check_first_occurrence(v);
  const std::string& text = po::validators::get_single_string(values);
  try {
    v = MemorySize{ParseMemorySize(text)};
  } catch (const std::invalid_argument& e) {
    throw po::error_with_option_name(
        "the argument for option '%canonical_option%' is invalid: "
        "expected " +
        std::string(e.what()));
  }
}

std::ostream& operator<<(std::ostream& out, const Whole<uint32_t>& v) { return out << v.value; }
std::ostream& operator<<(std::ostream& out, const Whole<uint64_t>& v) { return out << v.value; }
std::ostream& operator<<(std::ostream& out, const Real& v) { return out << v.value; }
std::ostream& operator<<(std::ostream& out, const MemorySize& v) { return out << v.bytes; }

void AddGraphInputOptions(po::options_description& options, GraphInputOptions& values) {
  options.add_options()("format", po::value(&values.format)->default_value("auto"),
                        "input format: auto, snap (edge list), mtx, gr, csr, webgraph (a "
                        "BVGraph: X.graph, X.properties or X)")(
      "weights", po::value(&values.weights)->default_value("auto"),
      "auto (what the file has), yes (require a weight column) or no (ignore weights)")(
      "threads", po::value(&values.threads)->default_value(Whole<uint32_t>{0}, "0"),
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
  if (values.threads.value > 4096) throw UsageError("--threads must be at most 4096");
  read.threads = static_cast<int>(values.threads.value);
  if (read.threads > 0) omp_set_num_threads(read.threads);
  return read;
}

std::optional<po::variables_map> ParseCommandLine(
    const std::vector<std::string>& args, const std::string& usage,
    po::options_description& options, const po::positional_options_description& positional) {
  options.add_options()("help,h", "show this help");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << usage << "\n\n" << options << "\n";
      return std::nullopt;
    }
    po::notify(vm);
  } catch (const po::required_option& e) {
    // A positional argument left out: name it as the user types it, not as '--name'.
    std::string name = e.get_option_name();
    name.erase(0, name.find_first_not_of('-'));
    for (unsigned i = 0; i < 4 && i < positional.max_total_count(); ++i) {
      if (positional.name_for_position(i) != name) continue;
      std::string upper = name;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      throw UsageError("missing " + upper + " (argument " + std::to_string(i + 1) +
                       "): usage: " + usage.substr(0, usage.find('\n')));
    }
    throw UsageError(e.what());
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return vm;
}

void AddCacheOptions(po::options_description& options, CacheChoice& values) {
  options.add_options()(
      "direct", po::bool_switch(&values.direct),
      "O_DIRECT for every shard, message and value file written or read (cold-cache runs)")(
      "buffered", po::bool_switch(&values.buffered),
      "the page cache for all of them (default: shard files are written with O_DIRECT and "
      "read through the page cache)");
}

CachePolicy ToCachePolicy(const CacheChoice& values) {
  if (values.direct && values.buffered) {
    throw UsageError("--direct and --buffered exclude each other");
  }
  return CachePolicy{!values.buffered, values.direct};
}

namespace {

// `bytes` in the largest of `units` (each `step` times the last) that keeps it at least 1.
std::pair<double, const char*> Scaled(double bytes, double step, const char* const (&units)[5]) {
  int unit = 0;
  while (bytes >= step && unit < 4) {
    bytes /= step;
    ++unit;
  }
  return {bytes, units[unit]};
}

}  // namespace

std::string BinaryBytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  const auto [value, unit] = Scaled(bytes, 1024, kUnits);
  char out[32];
  const bool whole = value == std::floor(value);  // --memory 128M: "128 MiB"
  std::snprintf(out, sizeof(out),
                unit == kUnits[0] || whole ? "%.0f %s" : value < 10 ? "%.2f %s" : "%.1f %s",
                value, unit);
  return out;
}

std::string Count(uint64_t n, const std::string& noun, const std::string& plural) {
  return std::to_string(n) + " " + (n == 1 ? noun : plural.empty() ? noun + "s" : plural);
}

std::string HumanBytes(double bytes) {
  static const char* const kUnits[] = {"B", "KB", "MB", "GB", "TB"};
  const auto [value, unit] = Scaled(bytes, 1000, kUnits);
  char out[32];
  std::snprintf(out, sizeof(out), unit == kUnits[0] ? "%.0f %s" : "%.2f %s", value, unit);
  return out;
}

}  // namespace needle::cli
