// Kernel-set files of `gpuvp rta`:
//   {"kernels": [{"name": "k1", "blocks": 8, "threads": 256, "time_ns": 1000000, "release_ns": 0}, ...]}
// in queue order. The analysis assumes one block size and one release instant for the whole set.
#include "cli/rta.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "platform/config/json_text.h"
#include "platform/text.h"
#include "platform/user_file.h"
#include "sw/analysis/rta.h"

namespace gpuvp {

namespace {
using nlohmann::json;

struct KernelSet {
  std::vector<rta::Kernel> kernels;
  uint64_t threads = 0, release_ns = 0;
};

json read_json(const std::string& file) {
  return read_user_json(file, "kernel-set file");
}

// A number field of kernels[i] in [lo, hi]; integers only unless `fraction`.
double number(const json& k, const std::string& where, const char* key, double lo, double hi, bool fraction) {
  const json& v = k.at(key);
  const bool ok = fraction ? v.is_number() : (v.is_number_integer() || v.is_number_unsigned());
  if (!ok) throw ConfigError(fmt::format("{}.{}: {} is not {}", where, key, json_shown(v), fraction ? "a number" : "an integer"));
  const double x = v.get<double>();
  if (!(x >= lo && x <= hi)) throw ConfigError(fmt::format("{}.{}: {} is outside [{}, {}]", where, key, json_shown(v), lo, hi));
  return x;
}

rta::Kernel read_kernel(const json& k, const std::string& where, KernelSet& set, bool first) {
  if (!k.is_object()) throw ConfigError(fmt::format("{}: a kernel is an object, not {}", where, json_shown(k)));
  if (std::string e = unknown_key_error(k, {"name", "blocks", "threads", "time_ns", "release_ns"}, where); !e.empty())
    throw ConfigError(e);
  for (const char* key : {"blocks", "threads", "time_ns"})
    if (!k.contains(key)) throw ConfigError(fmt::format("{}: '{}' is required", where, key));
  rta::Kernel out;
  out.name = k.contains("name") && k["name"].is_string() ? k["name"].get<std::string>() : where;
  out.blocks = uint64_t(number(k, where, "blocks", 1, 2147483647, false));
  out.block_ns = uint64_t(std::llround(number(k, where, "time_ns", 1, 1e15, true)));
  const uint64_t threads = uint64_t(number(k, where, "threads", 1, 1024, false));
  const uint64_t release = k.contains("release_ns") ? uint64_t(std::llround(number(k, where, "release_ns", 0, 1e15, true))) : 0;
  if (first) set.threads = threads, set.release_ns = release;
  if (threads != set.threads)
    throw ConfigError(fmt::format("{}.threads: {}: the analysis assumes one block size (the first kernel's is {})",
                                  where, threads, set.threads));
  if (release != set.release_ns)
    throw ConfigError(fmt::format("{}.release_ns: {}: the analysis assumes one release instant (the first kernel's is {})",
                                  where, release, set.release_ns));
  return out;
}

KernelSet read_kernel_set(const std::string& file) {
  const json j = read_json(file);
  if (!j.is_object() || !j.contains("kernels"))
    throw ConfigError(fmt::format("{}: expected {{\"kernels\": [...]}}", file));
  if (std::string e = unknown_key_error(j, {"kernels"}, file); !e.empty()) throw ConfigError(e);
  const json& ks = j["kernels"];
  if (!ks.is_array() || ks.empty()) throw ConfigError(fmt::format("{}: kernels: a non-empty array is required", file));
  KernelSet set;
  for (size_t i = 0; i < ks.size(); ++i)
    set.kernels.push_back(read_kernel(ks[i], fmt::format("{}: kernels[{}]", file, i), set, i == 0));
  return set;
}

// Block slots of the whole GPU for blocks of `threads` (whole warps), as the dispatcher counts them.
uint64_t block_slots(const Config& cfg, uint64_t threads, const std::string& file) {
  const uint64_t warp = uint64_t(cfg.i("sm.warp_size"));
  const uint64_t per_block = (threads + warp - 1) / warp * warp;
  const uint64_t max_threads = uint64_t(cfg.i("sm.max_threads"));
  if (threads > uint64_t(cfg.i("sm.max_threads_per_block")) || per_block > max_threads)
    throw ConfigError(fmt::format("{}: kernels[0].threads: a block of {} threads does not fit an SM of this "
                                  "configuration (max_threads_per_block {}, max_threads {})",
                                  file, threads, cfg.i("sm.max_threads_per_block"), max_threads));
  const uint64_t per_sm = std::min<uint64_t>(uint64_t(cfg.i("sm.max_blocks")), max_threads / per_block);
  return per_sm * uint64_t(cfg.i("sm.count"));
}
// The analysis from the release, and every time the table shows from 0 (release + time) within 64
// bits: a time that does not fit is refused (exit 2), never printed wrapped.
std::vector<rta::Result> analyse_from_release(const KernelSet& set, uint64_t slots, const std::string& file) {
  std::vector<rta::Result> res;
  try {
    res = rta::analyse(set.kernels, slots);
  } catch (const std::overflow_error& e) {
    throw ConfigError(fmt::format("{}: {}", file, e.what()));
  }
  for (size_t i = 0; i < res.size(); ++i) {
    uint64_t end = 0;
    if (__builtin_add_overflow(set.release_ns, res[i].completion_ns, &end))
      throw ConfigError(fmt::format("{}: rta: kernel {}: its completion time ({} ns after the release at {} ns) does "
                                    "not fit 64 bits of ns", file, set.kernels[i].name, res[i].completion_ns,
                                    set.release_ns));
  }
  return res;
}
}  // namespace

int cmd_rta(const Config& cfg, const std::string& file) {
  const KernelSet set = read_kernel_set(file);
  const uint64_t slots = block_slots(cfg, set.threads, file);
  const std::vector<rta::Result> res = analyse_from_release(set, slots, file);
  print_out("{}: {} SM{} x {} blocks of {} threads = {} block slots; all released at {} ns\n", file, cfg.i("sm.count"),
             cfg.i("sm.count") == 1 ? "" : "s", slots / uint64_t(cfg.i("sm.count")), set.threads, slots, set.release_ns);
  print_out("{:<16} {:>8} {:>14} {:>14} {:>16} {:>14}\n", "kernel", "blocks", "block ns", "start ns", "completion ns",
             "response ns");
  for (size_t i = 0; i < res.size(); ++i) {
    const rta::Kernel& k = set.kernels[i];
    print_out("{:<16} {:>8} {:>14} {:>14} {:>16} {:>14}\n", k.name, k.blocks, k.block_ns,
               set.release_ns + res[i].start_ns, set.release_ns + res[i].completion_ns, res[i].completion_ns);
  }
  return 0;
}

}  // namespace gpuvp
