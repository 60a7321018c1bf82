// How far apart two runs' answers lie, from their --out files (needle compare).
#pragma once

#include <string>

namespace needle::cli {

// The largest relative difference between the values of two --out files, read side by side a
// line at a time ("#" lines and the header skipped). relative: the values are PageRank's
// ranks, which agree within a tolerance; otherwise the answers are exact (CC labels, MSSP
// distances) and a difference is 1 where any line differs, 0 where none does. Infinite where
// the files cannot be compared value for value: one is missing or unreadable, they hold
// different vertices or different counts of them, or a rank is not a finite number.
double AnswerDifference(const std::string& a, const std::string& b, bool relative);

}  // namespace needle::cli
