#include "apps/cli/answer_difference.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>

namespace needle::cli {
namespace {

constexpr double kApart = std::numeric_limits<double>::infinity();

// The next line of an --out file that holds a vertex's values; false at the end.
bool NextValueLine(std::istream& in, std::string& line) {
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#' && line.rfind("vertex\t", 0) != 0) return true;
  }
  return false;
}

// The rank after the vertex's tab; NaN where there is none or it is not a number.
double Rank(const std::string& line, size_t tab) {
  if (tab == std::string::npos) return std::nan("");
  const char* text = line.c_str() + tab + 1;
  char* end = nullptr;
  errno = 0;
  const double rank = std::strtod(text, &end);
  if (end == text || errno == ERANGE || (*end != '\0' && *end != '\t')) return std::nan("");
  return rank;
}

}  // namespace

double AnswerDifference(const std::string& a, const std::string& b, bool relative) {
  std::ifstream x(a), y(b);
  if (!x || !y) return kApart;
  double worst = 0;
  for (std::string u, v;;) {
    const bool more = NextValueLine(x, u);
    if (more != NextValueLine(y, v)) return kApart;
    if (!more) return x.bad() || y.bad() ? kApart : worst;
    if (!relative) {
      if (u != v) worst = 1;
      continue;
    }
    const size_t tab = u.find('\t');
    if (tab != v.find('\t') || u.compare(0, tab, v, 0, tab) != 0) return kApart;
    const double ru = Rank(u, tab), rv = Rank(v, tab);
    if (!std::isfinite(ru) || !std::isfinite(rv)) return kApart;
    worst = std::max(worst, std::fabs(ru - rv) / std::max(std::fabs(ru), 1e-12));
  }
}

}  // namespace needle::cli
