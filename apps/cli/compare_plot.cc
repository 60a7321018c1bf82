#include "apps/cli/compare_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace needle::cli {
namespace {

constexpr double kWidth = 760, kPanelHeight = 230, kLeft = 70, kRight = 130, kTop = 40,
                 kGap = 60;
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                     "#8c564b", "#17becf", "#e377c2"};

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Format(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  char text[160];
  std::snprintf(text, sizeof text, format, a, b, c, d);
  return text;
}

// A step of 1, 2 or 5 × 10^k that cuts [0, top] into at most 6 parts.
double TickStep(double top) {
  if (top <= 0) return 1;
  const double raw = top / 6, power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

std::string Tick(double value) {
  return value == std::floor(value) ? Format("%.0f", value) : Format("%g", value);
}

// One panel: y(point) for every series, axes, ticks and the y label.
std::string Panel(const std::vector<PlotSeries>& series, double top_px, const std::string& label,
                  const std::function<double(const PlotPoint&)>& y, double scale) {
  double x_max = 1, y_max = 0;
  for (const PlotSeries& s : series) {
    for (const PlotPoint& p : s.points) {
      x_max = std::max(x_max, p.iteration);
      y_max = std::max(y_max, y(p) / scale);
    }
  }
  const double y_step = TickStep(y_max), y_top = std::max(y_step, std::ceil(y_max / y_step) * y_step);
  const double x_step = std::max(1.0, TickStep(x_max)), plot_w = kWidth - kLeft - kRight;
  auto px = [&](double x) { return kLeft + x / x_max * plot_w; };
  auto py = [&](double v) { return top_px + kPanelHeight - v / y_top * kPanelHeight; };
  std::string out;
  out += Format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                "stroke=\"#999\"/>\n",
                kLeft, top_px, plot_w, kPanelHeight);
  for (double v = 0; v <= y_top + y_step / 2; v += y_step) {
    out += Format("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
                  kLeft, kLeft + plot_w, py(v), py(v));
    out += Format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", kLeft - 6, py(v) + 4) +
           Tick(v) + "</text>\n";
  }
  for (double x = 0; x <= x_max; x += x_step) {
    out += Format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px(x),
                  top_px + kPanelHeight + 16) +
           Tick(x) + "</text>\n";
  }
  out += Format("<text x=\"16\" y=\"%.1f\" transform=\"rotate(-90 16 %.1f)\" "
                "text-anchor=\"middle\">",
                top_px + kPanelHeight / 2, top_px + kPanelHeight / 2) +
         Escape(label) + "</text>\n";
  for (size_t k = 0; k < series.size(); ++k) {
    const char* colour = kColours[k % std::size(kColours)];
    std::string points;
    for (const PlotPoint& p : series[k].points) {
      points += Format("%.1f,%.1f ", px(p.iteration), py(y(p) / scale));
    }
    out += std::string("<polyline fill=\"none\" stroke-width=\"1.8\" stroke=\"") + colour +
           "\" points=\"" + points + "\"/>\n";
    for (const PlotPoint& p : series[k].points) {
      if (!p.shadow) continue;
      out += Format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"white\" stroke-width=\"1.5\" ",
                    px(p.iteration), py(y(p) / scale)) +
             "stroke=\"" + colour + "\"/>\n";
    }
  }
  return out;
}

}  // namespace

std::string CompareSvg(const std::string& title, const std::vector<PlotSeries>& series) {
  const double height = kTop + 2 * kPanelHeight + kGap + 50;
  std::string out = Format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                           "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" ",
                           kWidth, height, kWidth, height);
  out += "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
         "fill=\"white\"/>\n";
  out += Format("<text x=\"%.1f\" y=\"22\" font-size=\"14\">", kLeft) + Escape(title) +
         "</text>\n";
  out += Panel(series, kTop, "MB read per iteration",
               [](const PlotPoint& p) { return p.bytes_read; }, 1e6);
  const double second = kTop + kPanelHeight + kGap;
  out += Panel(series, second, "seconds per iteration",
               [](const PlotPoint& p) { return p.seconds; }, 1);
  out += Format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">iteration</text>\n",
                kLeft + (kWidth - kLeft - kRight) / 2, second + kPanelHeight + 34);
  const double legend_x = kWidth - kRight + 16;
  for (size_t k = 0; k < series.size(); ++k) {
    const char* colour = kColours[k % std::size(kColours)];
    const double y = kTop + 14 + 20 * static_cast<double>(k);
    out += Format("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke-width=\"3\" ",
                  legend_x, legend_x + 22, y - 4, y - 4) +
           "stroke=\"" + colour + "\"/>\n";
    out += Format("<text x=\"%.1f\" y=\"%.1f\">", legend_x + 28, y) + Escape(series[k].mode) +
           "</text>\n";
  }
  const double y = kTop + 14 + 20 * static_cast<double>(series.size()) + 6;
  out += Format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"white\" stroke=\"#555\" "
                "stroke-width=\"1.5\"/>\n",
                legend_x + 11, y - 4);
  out += Format("<text x=\"%.1f\" y=\"%.1f\">shadow</text>\n", legend_x + 28, y);
  out += "</svg>\n";
  return out;
}

}  // namespace needle::cli
