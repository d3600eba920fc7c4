// Writes wavekit's codec answers for the ml_dtypes cross-check (crosscheck_ml_dtypes.py):
//   <dir>/<format>.decode.u32  fp32 bits of every code, in code order
//   <dir>/<format>.sweep.u32   triples (input fp32 bits, saturate_cast code, hardware_cast code)
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/codec_sweep.hpp"
#include "support/write_binary.hpp"
#include "wavekit/core/numeric_types.hpp"

namespace {

template <class T>
bool dump(const std::string& dir, const char* name, std::uint32_t code_count) {
  using namespace wavekit;
  std::vector<std::uint32_t> decode;
  for (std::uint32_t c = 0; c < code_count; ++c)
    decode.push_back(__builtin_bit_cast(std::uint32_t, to_float(T::from_bits(c))));
  std::vector<std::uint32_t> sweep;
  for (float x : test::encode_sweep<T>()) {
    sweep.push_back(__builtin_bit_cast(std::uint32_t, x));
    sweep.push_back(saturate_cast<T>(x).bits);
    sweep.push_back(hardware_cast<T>(x).bits);
  }
  return test::write_binary(dir + "/" + name + ".decode.u32", decode) &&
         test::write_binary(dir + "/" + name + ".sweep.u32", sweep);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  using namespace wavekit;
  const bool ok = dump<fp8_e4m3fnuz>(dir, "e4m3fnuz", 256) && dump<bf8_e5m2fnuz>(dir, "e5m2fnuz", 256) &&
                  dump<fp8_e4m3fn>(dir, "e4m3fn", 256) && dump<bf8_e5m2>(dir, "e5m2", 256) &&
                  dump<fp4_e2m1>(dir, "e2m1", 16) && dump<e8m0>(dir, "e8m0", 256) && dump<bf16>(dir, "bf16", 65536) &&
                  dump<fp16>(dir, "fp16", 65536);
  if (!ok) std::fprintf(stderr, "failed to write tables to %s\n", dir.c_str());
  return ok ? 0 : 1;
}
