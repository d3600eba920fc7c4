// wavekit's MLA decode on one decode step of a serving batch: sequences of uneven lengths in a
// paged latent cache (pages of 16 rows, scattered), one query each, bf16; the host plans the split
// (checking every table), the device decodes with no host synchronisation; the result against the
// host reference, the largest error beside its bound (test/support/mla_case.hpp derives it). On
// the CPU emulator it also prints the bytes read against the KV rows (each read once per
// workgroup); on a GPU, the time.
//
//   mla_decode [batch heads max_kv_len]   default: 4 16 2000
//   mla_decode --help                      usage and exit codes (examples/common/cli.hpp)
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "cli.hpp"
#include "device_memory.hpp"
#include "wavekit/arch/device.hpp"
#include "wavekit/core/float_codec.hpp"
#include "wavekit/host/reference_mla_decode.hpp"
#include "wavekit/ops/mla_decode.hpp"

using namespace wavekit;
namespace mla = wavekit::ops::mla_decode;

namespace {

using example::upload;

int run(int batch, int heads, int max_len) {
  const int page = 16;
  std::mt19937 rng(11);
  std::normal_distribution<float> n(0.0f, 1.0f);
  // Sequences of uneven lengths; their pages handed out in a shuffled order.
  std::vector<int> lens, qo{0};
  int pages = 0, max_pages = 1;
  for (int b = 0; b < batch; ++b) {
    lens.push_back(std::uniform_int_distribution<int>(1, max_len)(rng));
    qo.push_back(b + 1);
    pages += (lens.back() + page - 1) / page;
    max_pages = std::max(max_pages, (lens.back() + page - 1) / page);
  }
  std::vector<int> order(pages), table(std::size_t(batch) * max_pages, 0);
  for (int i = 0; i < pages; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (int b = 0, next = 0; b < batch; ++b)
    for (int i = 0; i < (lens[b] + page - 1) / page; ++i) table[std::size_t(b) * max_pages + i] = order[next++];

  const mla::problem p{batch, heads, mla::kv_layout::paged, page, pages * page, max_pages, 1.0f / std::sqrt(576.0f)};
  // The op's own rules for this problem on this device (a bf16 cache and queries), before
  // anything is allocated; the plan then checks the sequences' tables.
  if (status st = mla::supports<bf16>(p, arch::current_device_arch().kind); !st.ok()) return cli::refused(st);
  const mla::sequences_view s{qo, {}, lens, table};
  const result<mla::split_plan> plan = mla_decode_plan(p, s);
  if (!plan) return cli::refused(plan.error());

  std::vector<bf16> q(std::size_t(batch) * heads * 576), cache(std::size_t(pages) * page * 576);
  for (bf16& v : q) v = saturate_cast<bf16>(n(rng));
  for (bf16& v : cache) v = saturate_cast<bf16>(n(rng));
  const std::size_t ws = mla::workspace_bytes(p, s, plan.value()).value();
  void* workspace = nullptr;
  if (ws) hipMalloc(&workspace, ws);
  bf16 *d_q = upload(q), *d_cache = upload(cache), *d_out = nullptr;
  int *d_qo = upload(qo), *d_lens = upload(lens), *d_table = upload(table);
  float* d_lse = nullptr;
  hipMalloc(&d_out, std::size_t(batch) * heads * 512 * 2), hipMalloc(&d_lse, std::size_t(batch) * heads * 4);
#if defined(WAVEKIT_EMULATOR)
  emu::reset_counters();
#endif
  const auto start = std::chrono::steady_clock::now();
  const status st =
      mla_decode(p, s, mla::args<bf16>{d_q, d_cache, d_qo, nullptr, d_lens, d_table, d_out, d_lse, workspace, ws},
                 plan.value(), nullptr);
  hipDeviceSynchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!st.ok()) return cli::launch_failed(st);

  // The reference over the same rows, and the bound of test/support/mla_case.hpp.
  std::vector<float> qf(q.size()), cf(cache.size());
  for (std::size_t i = 0; i < q.size(); ++i) qf[i] = widen_to_float(q[i]);
  double k_norm = 0;
  for (std::size_t r = 0; r < cache.size() / 576; ++r) {
    double sum = 0;
    for (int c = 0; c < 576; ++c) sum += double(cf[r * 576 + c] = widen_to_float(cache[r * 576 + c])) * cf[r * 576 + c];
    k_norm = std::max(k_norm, std::sqrt(sum));
  }
  const auto ref = host::reference_mla_decode(qf, heads, qo, lens, p.sm_scale, [&](int b, int j) {
    return cf.data() + (std::size_t(table[std::size_t(b) * max_pages + j / page]) * page + j % page) * 576;
  });
  std::vector<bf16> out(std::size_t(batch) * heads * 512);
  hipMemcpy(out.data(), d_out, out.size() * 2, hipMemcpyDeviceToHost);
  double worst = 0, worst_bound = 0;
  int bad = 0;
  for (std::size_t r = 0; r < out.size() / 512; ++r) {
    double q_norm = 0;
    for (int c = 0; c < 576; ++c) q_norm += double(qf[r * 576 + c]) * qf[r * 576 + c];
    const double delta = p.sm_scale * 576 * 0x1p-23 * std::sqrt(q_norm) * k_norm;
    for (int d = 0; d < 512; ++d) {
      const double o = ref.out[r * 512 + d], err = std::fabs(double(widen_to_float(out[r * 512 + d])) - o);
      const double bound = (0x1p-8 + 2 * delta + 1e-5) * ref.magnitude[r * 512 + d] + 0x1p-8 * std::fabs(o);
      bad += !(err <= bound);
      if (err > worst) worst = err, worst_bound = bound;
    }
  }
  long rows = 0;
  for (int len : lens) rows += len;
  std::printf("mla_decode: %d sequences (%ld KV rows in pages of %d), %d heads, bf16\n", batch, rows, page, heads);
  std::printf("plan: %d splits of %d rows%s\n", plan.value().splits, plan.value().chunk,
              plan.value().reduce() ? ", merged by LSE" : "");
  std::printf("largest error %.3g (its bound %.3g); %d outputs outside their bounds\n", worst, worst_bound, bad);
#if defined(WAVEKIT_EMULATOR)
  const double once = double(rows) * 576 * 2 + double(batch) * heads * (576 + 512) * 2;
  std::printf("bytes read %.2f MB; KV rows, queries and outputs once %.2f MB; ratio %.3f\n",
              double(emu::accumulated_counters().global_bytes_read) / 1e6, once / 1e6,
              double(emu::accumulated_counters().global_bytes_read) / once);
  (void)seconds;
#else
  std::printf("time %.1f us (one run, no warm-up)\n", seconds * 1e6);
#endif
  hipFree(d_q), hipFree(d_cache), hipFree(d_out), hipFree(d_lse), hipFree(d_qo), hipFree(d_lens), hipFree(d_table);
  hipFree(workspace);
  return bad ? cli::exit_mismatch : cli::exit_ok;
}

const char* const usage =
    "usage: mla_decode [batch heads max_kv_len]\n"
    "Runs wavekit's MLA decode (bf16, a paged latent cache in pages of 16 rows) on one decode step of a\n"
    "batch of sequences with random lengths from 1 to max_kv_len; checks the output against the host\n"
    "reference and prints the largest error beside its bound.\n"
    "  batch        sequences, one query each (default 4)\n"
    "  heads        query heads, 1 to 128 (default 16)\n"
    "  max_kv_len   the longest a sequence's cache may be (default 2000)";

}  // namespace

int main(int argc, char** argv) {
  const cli::command_line cmd(argc, argv, "mla_decode", usage);
  if (cmd.help_asked()) return cmd.print_help();
  if (cmd.count() != 0 && cmd.count() != 3) return cmd.wrong_count("none or batch heads max_kv_len");
  int batch = 4, heads = 16, max_kv_len = 2000;
  if (cmd.count() == 3 && !(cmd.read_int(1, "batch", batch) && cmd.read_int(2, "heads", heads) &&
                            cmd.read_int(3, "max_kv_len", max_kv_len)))
    return cli::exit_usage;
  return run(batch, heads, max_kv_len);
}
