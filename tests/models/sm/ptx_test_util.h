#pragma once
// Runs PTX text (hand-written or nvcc output) through the real toolchain (parse + assemble) and the
// real SIMT core on the array-backed CoreEnv of sm_test_util.h. Buffers live in the env's global
// array; kernel parameters are packed at the offsets the assembler computed.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <functional>
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
  // Called after each batch, before its core goes away (tests reading the core's registered state).
  std::function<void(SimtCore&)> inspect;

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

  const ptx::KernelInfo& kernel(const std::string& name) const {
    const ptx::KernelInfo* k = img.find_kernel(name);
    REQUIRE(k);
    return *k;
  }

  // Kernel parameter bytes of `args`, packed at the offsets the assembler computed.
  template <typename... A>
  std::vector<uint8_t> pack(const ptx::KernelInfo& k, const A&... args) const {
    REQUIRE(k.params.size() == sizeof...(A));
    std::vector<uint8_t> params((k.param_bytes + 3) / 4 * 4, 0);
    size_t i = 0;
    auto put = [&](const auto& v) {
      REQUIRE(k.params[i].size == sizeof(v));
      std::memcpy(params.data() + k.params[i].offset, &v, sizeof(v));
      ++i;
    };
    (put(args), ...);
    return params;
  }

  template <typename... A>
  bool launch(const std::string& name, Dim grid, Dim block, const A&... args) {
    const ptx::KernelInfo& k = kernel(name);
    return run(k, grid, block, pack(k, args...));
  }

  // The launch parameters of kernel k as the runtime sets them (no blocks).
  LaunchParams params(const ptx::KernelInfo& k, Dim grid, Dim block, const std::vector<uint8_t>& params,
                      uint32_t dyn_shared = 0) const {
    LaunchParams lp;
    lp.entry = k.entry;
    lp.block[0] = block.x, lp.block[1] = block.y, lp.block[2] = block.z;
    lp.grid[0] = grid.x, lp.grid[1] = grid.y, lp.grid[2] = grid.z;
    lp.params = params;
    lp.static_shared = k.static_shared_bytes;
    lp.dyn_shared = dyn_shared;
    lp.local_bytes = k.local_bytes + (k.call_stack ? cfg.stack_bytes : 0);  // as the runtime does
    lp.num_regs = k.num_regs;
    lp.num_preds = k.num_preds;
    lp.regs_per_thread = k.regs_per_thread;
    return lp;
  }

  bool run(const ptx::KernelInfo& k, Dim grid, Dim block, const std::vector<uint8_t>& params, uint32_t dyn_shared = 0) {
    LaunchParams lp = this->params(k, grid, block, params, dyn_shared);
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
      if (inspect) inspect(core);
      t = core.now();
    }
    thread_insts += core.stats().thread_insts;
    return true;
  }
};

// Runs `body` on one warp. Lane l sees %ra/%rb/%rc = a[l], b[l], c[l] (b64), %a/%b/%c their low 32
// bits, %fa/%fb/%fc those as f32, %da/%db/%dc the 64-bit values as f64, %lane its lane id; the body
// writes %o (b64), which is returned per lane. Scratch: %p<8>, %h<8> (b16), %r<16>, %rd<16>, %f<16>, %fd<16>.
inline std::vector<uint64_t> run_lanes(const std::string& body, const std::vector<uint64_t>& a, const std::vector<uint64_t>& b = {},
                                const std::vector<uint64_t>& c = {}) {
  std::string src = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry t(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 po)
{
	.reg .pred %p<8>;
	.reg .b16 %h<8>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	.reg .f32 %f<16>;
	.reg .f64 %fd<16>;
	.reg .b64 %ra, %rb, %rc, %o, %x0, %x1;
	.reg .b32 %a, %b, %c, %lane;
	.reg .f32 %fa, %fb, %fc;
	.reg .f64 %da, %db, %dc;
	mov.u32 %lane, %laneid;
	mul.wide.u32 %x0, %lane, 8;
	ld.param.u64 %x1, [pa];
	add.s64 %x1, %x1, %x0;
	ld.global.u64 %ra, [%x1];
	ld.param.u64 %x1, [pb];
	add.s64 %x1, %x1, %x0;
	ld.global.u64 %rb, [%x1];
	ld.param.u64 %x1, [pc];
	add.s64 %x1, %x1, %x0;
	ld.global.u64 %rc, [%x1];
	cvt.u32.u64 %a, %ra;
	cvt.u32.u64 %b, %rb;
	cvt.u32.u64 %c, %rc;
	mov.b32 %fa, %a;
	mov.b32 %fb, %b;
	mov.b32 %fc, %c;
	mov.b64 %da, %ra;
	mov.b64 %db, %rb;
	mov.b64 %dc, %rc;
	mov.u64 %o, 0;
)" + body + R"(
	ld.param.u64 %x1, [po];
	add.s64 %x1, %x1, %x0;
	st.global.u64 [%x1], %o;
	ret;
}
)";
  Dev d(src);
  auto pad = [](std::vector<uint64_t> v) {
    v.resize(32, v.empty() ? 0 : v.back());
    return v;
  };
  uint64_t pa = d.upload(pad(a)), pb = d.upload(pad(b)), pc = d.upload(pad(c)), po = d.alloc(32 * 8);
  bool ok = d.launch("t", {1}, {32}, pa, pb, pc, po);
  INFO(d.error);
  REQUIRE(ok);
  return d.download<uint64_t>(po, 32);
}

}  // namespace ptxtest
