#pragma once
// Runs PTX text (hand-written or nvcc output) through the real toolchain (parse + assemble) and the
// real SIMT core on the array-backed CoreEnv of sm_test_util.h. Buffers live in the env's global
// array; kernel parameters are packed at the offsets the assembler computed.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sm_test_util.h"
#include "sw/ptx/assembler.h"

namespace ptxtest {
using namespace smtest;

struct Dim {
  uint32_t x = 1, y = 1, z = 1;
};

inline std::string read_text(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// One assembled module on one SIMT core. Kernel parameters are given in declaration order; each
// argument's size must equal the parameter's (pointers: uint64_t addresses from alloc/upload).
struct Dev {
  SmConfig cfg;
  ArrayEnv env;
  ptx::Image img;
  uint64_t heap = kGlob;
  std::string error;                 // device error message of the last failed launch
  unsigned blocks_per_batch = 2;     // resident blocks per core launch
  uint64_t thread_insts = 0;

  explicit Dev(const std::string& ptx_text, const std::string& name = "t.ptx") {
    cfg.warp_size = 32;
    cfg.sps = 8;
    cfg.shared_bytes = 65536;
    cfg.max_local_bytes = 16384;
    env.glob.assign(4 << 20, 0);
    ptx::Layout lay{kCode, kConst, kGlob + env.glob.size() - (64 << 10)};
    img = ptx::assemble_text(ptx_text, name, lay);
    if (img.code.size() > env.code.size()) env.code.resize(img.code.size() + 4096);
    std::memcpy(env.code.data(), img.code.data(), img.code.size());
    REQUIRE(img.const_data.size() <= env.cnst.size());
    if (!img.const_data.empty()) std::memcpy(env.cnst.data(), img.const_data.data(), img.const_data.size());
    for (auto& g : img.globals)
      if (!g.init.empty()) std::memcpy(env.glob.data() + (g.address - kGlob), g.init.data(), g.init.size());
  }

  uint64_t alloc(size_t bytes) {
    uint64_t a = heap;
    heap += (bytes + 255) / 256 * 256;
    REQUIRE(heap <= kGlob + env.glob.size() - (64 << 10));
    std::memset(env.glob.data() + (a - kGlob), 0, bytes);
    return a;
  }
  template <typename T>
  uint64_t upload(const std::vector<T>& v) {
    uint64_t a = alloc(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(env.glob.data() + (a - kGlob), v.data(), v.size() * sizeof(T));
    return a;
  }
  template <typename T>
  std::vector<T> download(uint64_t a, size_t n) {
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), env.glob.data() + (a - kGlob), n * sizeof(T));
    return v;
  }

  template <typename... A>
  bool launch(const std::string& kernel, Dim grid, Dim block, const A&... args) {
    const ptx::KernelInfo* k = img.find_kernel(kernel);
    REQUIRE(k);
    REQUIRE(k->params.size() == sizeof...(A));
    std::vector<uint8_t> params((k->param_bytes + 3) / 4 * 4, 0);
    size_t i = 0;
    auto put = [&](const auto& v) {
      REQUIRE(k->params[i].size == sizeof(v));
      std::memcpy(params.data() + k->params[i].offset, &v, sizeof(v));
      ++i;
    };
    (put(args), ...);
    return run(*k, grid, block, params);
  }

  bool run(const ptx::KernelInfo& k, Dim grid, Dim block, const std::vector<uint8_t>& params, uint32_t dyn_shared = 0) {
    LaunchParams lp;
    lp.entry = k.entry;
    lp.block[0] = block.x, lp.block[1] = block.y, lp.block[2] = block.z;
    lp.grid[0] = grid.x, lp.grid[1] = grid.y, lp.grid[2] = grid.z;
    lp.params = params;
    lp.static_shared = k.static_shared_bytes;
    lp.dyn_shared = dyn_shared;
    lp.local_bytes = k.local_bytes;
    lp.num_regs = k.num_regs;
    lp.num_preds = k.num_preds;
    lp.regs_per_thread = k.regs_per_thread;
    uint64_t n = uint64_t(grid.x) * grid.y * grid.z;
    SimtCore core(cfg, env);
    uint64_t t = 0;
    for (uint64_t b = 0; b < n; b += blocks_per_batch) {
      lp.blocks.clear();
      for (uint64_t j = b; j < std::min<uint64_t>(n, b + blocks_per_batch); ++j) lp.blocks.push_back(j);
      if (!core.launch(lp, t) || !core.run()) {
        error = core.error() ? core.error()->message : "failed without an error";
        return false;
      }
      t = core.now();
    }
    thread_insts += core.stats().thread_insts;
    return true;
  }
};

}  // namespace ptxtest
