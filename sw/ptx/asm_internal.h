#pragma once
// Internal to sw/ptx: the assembler's stages and the state they pass along. ptx::assemble
// (assembler.cc) runs them in this order, each filling its part of Program:
//   asm_callgraph.cc  call graph, recursion check, reachability, code order
//   asm_frames.cc     per-function local-memory frames; register/predicate slot allocation
//   asm_sections.cc   .global/.const layout, .shared layout (module-wide region 0 and per kernel)
//   asm_kernels.cc    KernelInfo: parameters, memory sizes, slots; entry/end and register estimate
//   asm_lower.cc      instruction sites: slot renaming, symbol resolution, call lowering
//   asm_code.cc       code layout (sizes, addresses, label/call targets) and encoding
//   asm_liveness.cc   register-count estimate (liveness)
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sw/isa/isa.h"
#include "sw/ptx/image.h"
#include "sw/ptx/parser.h"

namespace gpuvp::ptx::detail {

inline uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

[[noreturn]] void fail(const Module& m, const Instr& in, const std::string& msg);
[[noreturn]] void fail_fn(const Module& m, const Function& f, const std::string& msg);

// Bytes a per-thread frame or a kernel's static shared memory may take: KernelInfo and the
// configuration block hold 32 bits, and no SM has more (launches check the SM's own limits).
constexpr uint64_t kMaxRegion = uint64_t{1} << 31;
// The offset of `v` in a region of `o` bytes so far, which grows by v's size, in 64 bits (4 x 1 GiB
// must not wrap to a small region); refused, naming the variable and `region`, past kMaxRegion.
uint32_t place_var(const Module& m, const Var& v, uint64_t& o, const std::string& region);

// One encoded instruction: body instruction k of function f, or (synthetic) one of the copies a
// call is lowered into.
struct Site {
  size_t f, k;
  isa::Inst inst;
  bool synthetic;
};

struct Program {
  Program(const Module& mod, const Layout& lay) : m(mod), layout(lay), nf(mod.funcs.size()) {}
  const Module& m;
  const Layout& layout;
  size_t nf;

  // call graph (asm_callgraph.cc)
  std::vector<std::set<size_t>> callees;  // per function: functions it calls
  std::vector<size_t> order;              // code order of the functions

  // frames and slots (asm_frames.cc)
  std::vector<std::vector<uint32_t>> var_off, param_off, ret_off;  // offsets in the function's frame
  std::vector<uint32_t> frame;                  // frame bytes
  std::vector<uint32_t> nregs;                  // register slots (+1 scratch when it calls)
  std::vector<uint32_t> rbase, pbase, lbase;    // register/predicate slot and frame bases

  // sections (asm_sections.cc)
  std::vector<uint64_t> mvar;                   // .global/.const variable addresses
  std::vector<std::set<size_t>> shared_uses;    // per function: .shared variables it names
  std::vector<int64_t> region0;                 // offsets of .shared variables used by .funcs
  uint64_t region0_end = 0;
  bool dyn_in_func = false;                     // a .func uses dynamic shared memory
  std::vector<std::vector<int64_t>> kshared;    // per kernel: offset of every .shared var it uses
  std::vector<uint32_t> static_shared;          // per kernel: static shared bytes
  int64_t func_dyn = -1;                        // dynamic shared offset seen by .funcs

  // code (asm_lower.cc, asm_code.cc)
  std::vector<Site> sites;
  std::vector<size_t> first, fend;              // per function: first site, one past its last
  std::vector<std::vector<size_t>> site_of;     // per function: body index -> first site
  std::vector<uint64_t> addr;                   // per site (+ end): code address
};

// asm_callgraph.cc
void build_call_graph(Program& p);
std::set<size_t> reachable(const Program& p, size_t f);
void order_code(Program& p);

// asm_frames.cc
void lay_out_frames(Program& p);
void allocate_slots(Program& p);

// asm_sections.cc
void lay_out_module_vars(Program& p, Image& img);
void lay_out_shared(Program& p);
uint64_t shared_offset(const Program& p, size_t f, size_t v, const Instr& in);

// asm_kernels.cc
void fill_kernel_infos(const Program& p, Image& img);
void finish_kernel_infos(const Program& p, Image& img);

// asm_lower.cc
void lower_functions(Program& p, const Image& img);

// asm_code.cc
void lay_out_code(Program& p);
void encode_sites(const Program& p, Image& img);

// asm_liveness.cc: max simultaneously-live 32-bit registers of function f and its callees.
class Liveness {
 public:
  explicit Liveness(const Module& mod) : m(mod), memo(mod.funcs.size(), -1) {}
  unsigned run(size_t fi);

 private:
  const Module& m;
  std::vector<int> memo;  // -1 unknown
};

}  // namespace gpuvp::ptx::detail
