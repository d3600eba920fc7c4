// Writes a contiguous container's bytes to a file, for the dumpers the Python cross-checks read.
#pragma once

#include <cstdio>
#include <string>

namespace wavekit::test {

template <class Container>
bool write_binary(const std::string& path, const Container& v) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(v.data(), sizeof(v[0]), v.size(), f) == v.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace wavekit::test
