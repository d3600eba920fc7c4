// Loads the CDNA3 MFMA layout ground truth (data/cdna3_mfma_layouts.csv, AMD's Matrix
// Instruction Calculator): for each instruction and matrix, where every element lives.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace wavekit::test {

struct layout_entry {
  int row, col, reg, lane, bit_hi, bit_lo;
};

// instruction name ("v_mfma_f32_32x32x16_fp8_fp8") -> matrix ('A', 'B', 'C', 'D') -> entries
using layout_table = std::map<std::string, std::map<char, std::vector<layout_entry>>>;

inline layout_table load_mfma_layouts(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  layout_table t;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string inst, matrix, field;
    std::getline(ss, inst, ',');
    std::getline(ss, matrix, ',');
    int v[6];
    for (int& x : v) {
      std::getline(ss, field, ',');
      x = std::stoi(field);
    }
    t[inst][matrix.at(0)].push_back({v[0], v[1], v[2], v[3], v[4], v[5]});
  }
  return t;
}

}  // namespace wavekit::test
