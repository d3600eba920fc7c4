// planning/tables/key.hpp: M buckets, targets by name, the key's and value's text.
#include <catch2/catch.hpp>

#include "wavekit/planning/tables/key.hpp"

namespace planning = wavekit::planning;
using wavekit::arch::target;

TEST_CASE("m_bucket rounds M up to a power of two", "[tuning]") {
  CHECK(planning::m_bucket(1) == 1);
  CHECK(planning::m_bucket(2) == 2);
  CHECK(planning::m_bucket(3) == 4);
  CHECK(planning::m_bucket(16) == 16);
  CHECK(planning::m_bucket(17) == 32);
  CHECK(planning::m_bucket(513) == 1024);
  CHECK(planning::m_bucket(1024) == 1024);
  CHECK(planning::m_bucket(6144) == 8192);
  // No op problem has M < 1; the bucket is still a power of two.
  CHECK(planning::m_bucket(0) == 1);
  CHECK(planning::m_bucket(-5) == 1);
  CHECK(planning::m_bucket(1 << 30) == 1 << 30);
  CHECK(planning::m_bucket((1 << 30) + 1) == 1 << 30);
  for (int m = 1; m <= 5000; ++m) {
    const int b = planning::m_bucket(m);
    REQUIRE((b >= m && b < 2 * m && (b & (b - 1)) == 0));
  }
}

TEST_CASE("targets by name: gfx942 and gfx950 only", "[tuning]") {
  CHECK(planning::parse_target("gfx942") == target::gfx942);
  CHECK(planning::parse_target("gfx950") == target::gfx950);
  CHECK_FALSE(planning::parse_target("host"));
  CHECK_FALSE(planning::parse_target("gfx90a"));
  CHECK_FALSE(planning::parse_target(""));
}

TEST_CASE("a key reads as the table's columns, name=value", "[tuning]") {
  const planning::key k{.op = "moe",
                        .arch = target::gfx950,
                        .cus = 256,
                        .dtypes = "mxfp4,bf16",
                        .layout = "k_contiguous",
                        .m_bucket = 64,
                        .n = 2048,
                        .k = 7168,
                        .e_local = 32,
                        .top_k = 8};
  CHECK(
      planning::to_string(k) ==
      "op=moe arch=gfx950 cus=256 dtypes=mxfp4,bf16 layout=k_contiguous m_bucket=64 n=2048 k=7168 e_local=32 top_k=8");
  CHECK(planning::to_string(planning::value{"decode", 1}) == "decode,1");
}

TEST_CASE("keys differ in every field", "[tuning]") {
  const planning::key base{.op = "gemm_half",
                           .cus = 304,
                           .dtypes = "bf16,bf16,bf16",
                           .layout = "k_contiguous",
                           .m_bucket = 64,
                           .n = 4096,
                           .k = 4096};
  auto changed = [&](auto&& edit) {
    planning::key k = base;
    edit(k);
    return k;
  };
  CHECK(base == changed([](planning::key&) {}));
  CHECK(base != changed([](planning::key& k) { k.op = "gemm_mx"; }));
  CHECK(base != changed([](planning::key& k) { k.arch = target::gfx950; }));
  CHECK(base != changed([](planning::key& k) { k.cus = 80; }));
  CHECK(base != changed([](planning::key& k) { k.dtypes = "fp16,fp16,fp16"; }));
  CHECK(base != changed([](planning::key& k) { k.layout = "mn_contiguous"; }));
  CHECK(base != changed([](planning::key& k) { k.m_bucket = 128; }));
  CHECK(base != changed([](planning::key& k) { k.n = 4112; }));
  CHECK(base != changed([](planning::key& k) { k.k = 4112; }));
  CHECK(base != changed([](planning::key& k) { k.e_local = 8; }));
  CHECK(base != changed([](planning::key& k) { k.top_k = 2; }));
}
