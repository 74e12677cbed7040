#include "common/error.h"

#include <algorithm>

namespace npu {

std::string SourceLoc::str() const {
  if (file.empty())
    return {};
  if (line <= 0)
    return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

static std::string compose(const SourceLoc& loc, const std::string& key,
                           const std::string& message) {
  std::string out;
  const std::string where = loc.str();
  if (!where.empty())
    out += where + ": ";
  out += "error: ";
  if (!key.empty())
    out += key + ": ";
  out += message;
  return out;
}

InputError::InputError(const SourceLoc& loc, const std::string& key, const std::string& message)
    : std::runtime_error(compose(loc, key, message)), m_loc(loc), m_key(key) {}

InputError::InputError(const std::string& message) : std::runtime_error("error: " + message) {}

// Edits between two words: insertions, deletions, substitutions and swaps of two
// adjacent letters ("lable" is one edit from "label"), each costing one.
static size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // Accept up to a third of the word's length in edits (at least 1, at most 3).
  const size_t limit = std::clamp<size_t>(word.size() / 3, 1, 3);
  return best_distance <= limit ? best : std::string();
}

} // namespace npu
