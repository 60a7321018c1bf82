// The picture `needle compare --plot FILE.svg` draws: for each mode, bytes read and wall time
// per iteration (two panels, one line a mode, shadow iterations ringed) — ATC'16 Figures 6–9
// in one standalone SVG file.
#pragma once

#include <string>
#include <vector>

namespace needle::cli {

struct PlotPoint {
  double iteration = 0;
  double bytes_read = 0;
  double seconds = 0;
  bool shadow = false;
};

struct PlotSeries {
  std::string mode;
  std::vector<PlotPoint> points;
};

// `title` goes above the panels (escaped here).
std::string CompareSvg(const std::string& title, const std::vector<PlotSeries>& series);

}  // namespace needle::cli
