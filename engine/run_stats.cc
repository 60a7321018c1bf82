#include "engine/run_stats.h"

#include <sys/resource.h>
#include <time.h>

#include <cstdio>

#include "base/version.h"

namespace needle {
namespace {

void AppendNumber(std::string& out, const char* key, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "\"%s\":%.9g,", key, value);
  out += buf;
}

void AppendNumber(std::string& out, const char* key, uint64_t value) {
  out += '"';
  out += key;
  out += "\":";
  out += std::to_string(value);
  out += ',';
}

// Flat, so that every figure is a column of pandas.read_json(lines=True): "KEY" the total,
// then "KEY_KIND" per file kind.
void AppendKinds(std::string& out, const char* key,
                 const std::array<uint64_t, static_cast<size_t>(FileKind::kCount)>& bytes) {
  uint64_t total = 0;
  for (uint64_t b : bytes) total += b;
  AppendNumber(out, key, total);
  for (size_t k = 0; k < bytes.size(); ++k) {
    out += '"';
    out += key;
    out += '_';
    out += FileKindName(static_cast<FileKind>(k));
    out += "\":" + std::to_string(bytes[k]) + ',';
  }
}

std::string Close(std::string out) {
  if (!out.empty() && out.back() == ',') out.pop_back();
  out += '}';
  return out;
}

// The fields an iteration and a whole run share (same member names in both structs).
template <class Stats>
void AppendTimesAndTraffic(std::string& out, const Stats& s) {
  AppendNumber(out, "seconds", s.seconds);
  AppendNumber(out, "io_wait_seconds", s.io_wait_seconds);
  AppendNumber(out, "compute_seconds", s.compute_seconds);
  AppendNumber(out, "gather_cpu_seconds", s.gather_cpu_seconds);
  AppendNumber(out, "write_back_seconds", s.write_back_seconds);
  AppendKinds(out, "bytes_read", s.io.read);
  AppendKinds(out, "bytes_written", s.io.written);
  AppendNumber(out, "read_requests", s.io.read_requests);
  AppendNumber(out, "write_requests", s.io.write_requests);
  AppendNumber(out, "edges_loaded", s.edges_loaded);
  AppendNumber(out, "edges_changed", s.edges_changed);
  AppendNumber(out, "edges_used", s.edges_used);
}

// A string's characters as a JSON string holds them (quotes, backslashes, control bytes).
std::string JsonEscape(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", c);
      out += code;
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

void RunSummary::Add(const IterationStats& s) {
  io_wait_seconds += s.io_wait_seconds;
  compute_seconds += s.compute_seconds;
  gather_cpu_seconds += s.gather_cpu_seconds;
  write_back_seconds += s.write_back_seconds;
  edges_loaded += s.edges_loaded;
  edges_changed += s.edges_changed;
  edges_used += s.edges_used;
  edges_skipped += s.edges_skipped;
  inner_passes += s.inner_passes;
  intervals_ordered += s.intervals_ordered;
  intervals_sparse += s.intervals_sparse;
  intervals_pushed += s.intervals_pushed;
  edges_pushed += s.edges_pushed;
  push_fallbacks += s.push_fallbacks;
  intervals_pulled += s.intervals_pulled;
  intervals_by_target += s.intervals_by_target;
  intervals_own_runs += s.intervals_own_runs;
}

std::string ToJson(const IterationStats& s) {
  std::string out = "{\"type\":\"iteration\",";
  AppendNumber(out, "iteration", uint64_t{s.iteration});
  AppendTimesAndTraffic(out, s);
  AppendNumber(out, "active_vertices", s.active_vertices);
  AppendNumber(out, "changed_vertices", s.changed_vertices);
  AppendNumber(out, "largest_change", s.largest_change);
  AppendNumber(out, "intervals_computed", uint64_t{s.intervals_computed});
  AppendNumber(out, "intervals_cleared", uint64_t{s.intervals_cleared});
  AppendNumber(out, "edges_skipped", s.edges_skipped);
  AppendNumber(out, "inner_passes", s.inner_passes);
  AppendNumber(out, "inner_passes_max", uint64_t{s.inner_passes_max});
  AppendNumber(out, "intervals_ordered", uint64_t{s.intervals_ordered});
  AppendNumber(out, "intervals_sparse", uint64_t{s.intervals_sparse});
  AppendNumber(out, "intervals_pushed", uint64_t{s.intervals_pushed});
  AppendNumber(out, "edges_pushed", s.edges_pushed);
  AppendNumber(out, "push_fallbacks", uint64_t{s.push_fallbacks});
  AppendNumber(out, "intervals_pulled", uint64_t{s.intervals_pulled});
  AppendNumber(out, "intervals_by_target", uint64_t{s.intervals_by_target});
  AppendNumber(out, "intervals_own_runs", uint64_t{s.intervals_own_runs});
  out += std::string("\"shadow\":") + (s.shadow ? "true" : "false") + ',';
  AppendNumber(out, "dynamic_edges", s.dynamic_edges);
  AppendNumber(out, "whole_shards", uint64_t{s.whole_shards});
  AppendNumber(out, "delayed", s.delayed);
  AppendNumber(out, "delayed_vertices", s.delayed_vertices);
  AppendNumber(out, "dynamic_disk_bytes", s.dynamic_disk_bytes);
  AppendNumber(out, "shard_build_bytes_read", s.shard_build_io.TotalRead());
  AppendNumber(out, "shard_build_bytes_written", s.shard_build_io.TotalWritten());
  return Close(std::move(out));
}

std::string ToJson(const RunSummary& s) {
  std::string out = "{\"type\":\"summary\",\"version\":\"" + std::string(Version()) +
                    "\",\"program\":\"" + s.program + "\",\"command\":\"" +
                    JsonEscape(s.command) + "\",\"parameters\":\"" + JsonEscape(s.parameters) +
                    "\",\"threads\":" + std::to_string(s.threads) + ",\"io_backend\":\"" +
                    s.io_backend + "\",\"direct\":" + (s.direct ? "true" : "false") +
                    ",\"transport\":\"" + s.transport + '"' + ",\"windows\":\"" +
                    (s.page_windows ? "pages" : "whole") + "\",\"shard_set\":\"" +
                    JsonEscape(s.shard_set) + '"' +
                    ",\"converged\":" + (s.converged ? "true" : "false") + ',';
  AppendNumber(out, "iterations", uint64_t{s.iterations});
  if (s.iteration_limit == kNoIterationLimit) {
    out += "\"iteration_limit\":null,";
  } else {
    AppendNumber(out, "iteration_limit", uint64_t{s.iteration_limit});
  }
  AppendTimesAndTraffic(out, s);
  AppendNumber(out, "inner_passes", s.inner_passes);
  AppendNumber(out, "edges_skipped", s.edges_skipped);
  AppendNumber(out, "max_inner_passes", uint64_t{s.max_inner_passes});
  AppendNumber(out, "intervals_ordered", s.intervals_ordered);
  AppendNumber(out, "intervals_sparse", s.intervals_sparse);
  AppendNumber(out, "intervals_pushed", s.intervals_pushed);
  AppendNumber(out, "edges_pushed", s.edges_pushed);
  AppendNumber(out, "push_fallbacks", s.push_fallbacks);
  AppendNumber(out, "intervals_pulled", s.intervals_pulled);
  AppendNumber(out, "intervals_by_target", s.intervals_by_target);
  AppendNumber(out, "intervals_own_runs", s.intervals_own_runs);
  AppendNumber(out, "out_adjacency_bytes", s.out_adjacency_bytes);
  AppendNumber(out, "in_adjacency_bytes", s.in_adjacency_bytes);
  AppendNumber(out, "num_vertices", s.num_vertices);
  AppendNumber(out, "num_edges", s.num_edges);
  AppendNumber(out, "num_intervals", uint64_t{s.num_intervals});
  AppendNumber(out, "intervals_streamed", uint64_t{s.intervals_streamed});
  out += "\"mode\":\"" + s.mode + "\",";
  AppendNumber(out, "shadow_iterations", uint64_t{s.shadow_iterations});
  AppendNumber(out, "dynamic_builds", uint64_t{s.dynamic_builds});
  AppendNumber(out, "whole_shards", uint64_t{s.whole_shards});
  AppendNumber(out, "delayed", s.delayed);
  AppendNumber(out, "delayed_max", s.delayed_max);
  AppendNumber(out, "delay_buffer_max_bytes", s.delay_buffer_max_bytes);
  AppendNumber(out, "dynamic_disk_peak", s.dynamic_disk_peak);
  AppendNumber(out, "shadow_bytes_read", s.shadow_bytes_read);
  AppendNumber(out, "shadow_bytes_written", s.shadow_bytes_written);
  AppendNumber(out, "memory_budget", s.memory_budget);
  AppendNumber(out, "memory_planned", s.memory_planned);
  out += std::string("\"vertex_values_resident\":") +
         (s.vertex_values_resident ? "true" : "false") + ',';
  AppendNumber(out, "peak_rss_bytes", s.peak_rss_bytes);
  AppendNumber(out, "fixed_buffer_requests", s.fixed_buffer_requests);
  return Close(std::move(out));
}

uint64_t PeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

}  // namespace needle
