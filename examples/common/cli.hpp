// The command line every wavekit example shares (examples/<name>/main.cpp includes it):
//
//   <example> --help        the usage on stdout (also -h), exit 0
//   <example> [arguments]   exit 0: it ran and every result matched its reference
//                           exit 1: a result did not match its reference, or a launch failed
//                           exit 2: a bad command line, or a problem the op refuses
//
// Arguments are read whole ("12x", "" and "1e3" are not integers); a wrong one, or a wrong number
// of them, stops the example with one line on stderr that names it. The example then asks the
// op's own supports() before it allocates anything: a refusal prints the op's status, which names
// the op, the problem and the rule.
#pragma once

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>

#include "wavekit/arch/matrix_formats.hpp"
#include "wavekit/arch/target.hpp"
#include "wavekit/core/layout.hpp"
#include "wavekit/core/status.hpp"

namespace cli {

inline constexpr int exit_ok = 0;        // ran; every result matched its reference
inline constexpr int exit_mismatch = 1;  // a result did not match its reference, or a launch failed
inline constexpr int exit_usage = 2;     // a bad command line, or a problem the op refuses

class command_line {
 public:
  // program: the example's name, first in every message. usage: what --help prints before the
  // exit codes (a "usage:" line, what the example runs, its arguments and their defaults).
  command_line(int argc, char** argv, const char* program, const char* usage)
      : argc_(argc), argv_(argv), program_(program), usage_(usage) {}

  // The number of arguments after the program's name.
  int count() const { return argc_ - 1; }

  // Whether any argument is --help or -h.
  bool help_asked() const {
    for (int i = 1; i < argc_; ++i)
      if (std::string_view(argv_[i]) == "--help" || std::string_view(argv_[i]) == "-h") return true;
    return false;
  }

  // The usage and the exit codes on stdout; returns exit_ok.
  int print_help() const {
    std::printf(
        "%s\nexit status: %d  it ran and every result matched its reference\n"
        "             %d  a result did not match its reference, or a launch failed\n"
        "             %d  a bad command line, or a problem the op refuses (its message says which rule)\n",
        usage_, exit_ok, exit_mismatch, exit_usage);
    return exit_ok;
  }

  // "<program>: <message> (<program> --help for usage)" on stderr; returns exit_usage.
  int error(const std::string& message) const {
    std::fprintf(stderr, "%s: %s (%s --help for usage)\n", program_, message.c_str(), program_);
    return exit_usage;
  }

  // For a wrong number of arguments: expected names what is accepted ("none or m n k").
  int wrong_count(const char* expected) const {
    return error("expected " + std::string(expected) + " as arguments, got " + std::to_string(count()));
  }

  // Argument `index` (1: the first) as an int in [min, max], the whole word in base 10. False
  // after one line on stderr naming the argument ("gemm_mx: argument n: 'x' is not an integer").
  bool read_int(int index, const char* name, int& value, int min = 1, int max = 1 << 30) const {
    const std::string_view word = argv_[index];
    long long v = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (word.empty() || ec != std::errc{} || end != word.data() + word.size()) {
      error(argument(name) + "'" + std::string(word) + "' is not an integer");
      return false;
    }
    if (v < min || v > max) {
      error(argument(name) + std::string(word) + " is not from " + std::to_string(min) + " to " + std::to_string(max));
      return false;
    }
    value = static_cast<int>(v);
    return true;
  }

  // Argument `index` as a storage order: "k" (layout::k_contiguous) or "mn" (layout::mn_contiguous).
  bool read_order(int index, const char* name, wavekit::layout& value) const {
    const std::string_view word = argv_[index];
    if (word != "k" && word != "mn") {
      error(argument(name) + "the storage order is 'k' or 'mn', not '" + std::string(word) + "'");
      return false;
    }
    value = word == "k" ? wavekit::layout::k_contiguous : wavekit::layout::mn_contiguous;
    return true;
  }

 private:
  static std::string argument(const char* name) { return std::string("argument ") + name + ": "; }

  int argc_;
  char** argv_;
  const char* program_;
  const char* usage_;
};

// The op refused the problem (its supports() or a query said no): the status on stderr, which
// names the op, the problem and the rule; returns exit_usage.
inline int refused(const wavekit::status& s) {
  std::fprintf(stderr, "%s\n", s.message().c_str());
  return exit_usage;
}

// A launch the op had accepted failed: its status on stderr; returns exit_mismatch.
inline int launch_failed(const wavekit::status& s) {
  std::fprintf(stderr, "launch failed: %s\n", s.message().c_str());
  return exit_mismatch;
}

// Calls f with a value of the fp8 type target t's matrix cores read (arch::fp8_of: e4m3fnuz on
// gfx942, OCP e4m3fn on gfx950), as arch::with_device_fp8 does for the current device, but
// without stopping the program on another device: there f gets gfx942's type and the op's
// supports() refuses the target by name. In a device pass (the CPU emulator compiles the whole
// program as one) only that pass's type is instantiated.
template <class F>
decltype(auto) with_fp8_of(wavekit::arch::target t, F&& f) {
  namespace arch = wavekit::arch;
#if WAVEKIT_TARGET_DEVICE
  (void)t;
  return f(arch::fp8_of<arch::current_target>{});
#else
  return t == arch::target::gfx950 ? f(arch::fp8_of<arch::target::gfx950>{}) : f(arch::fp8_of<arch::target::gfx942>{});
#endif
}

}  // namespace cli
