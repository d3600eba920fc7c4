// Where in the kernel source a thread waits: barriers and cross-lane operations take the
// caller's location (a defaulted argument) so divergence reports can name both places.
#pragma once

#include <cstring>
#include <string>

namespace wavekit::emu {

struct source_site {
  const char* file = "?";
  int line = 0;

  static constexpr source_site current(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return {file, line};
  }
  friend bool operator==(const source_site& a, const source_site& b) {
    return a.line == b.line && (a.file == b.file || std::strcmp(a.file, b.file) == 0);
  }
  std::string str() const { return std::string(file) + ":" + std::to_string(line); }
};

}  // namespace wavekit::emu
