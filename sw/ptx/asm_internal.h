#pragma once
// Internal to sw/ptx: the assembler's stages and the state they pass along. ptx::assemble
// (assembler.cc) runs them in this order, each filling its part of Program:
//   asm_callgraph.cc  call graph, recursive functions (cycles), reachability, code order
//   asm_saves.cc      registers a recursive function saves in its frame around recursive calls
//   asm_frames.cc     per-function local-memory frames, call stack frames; register/predicate slots
//   asm_sections.cc   .global/.const layout, .shared layout (module-wide region 0 and per kernel)
//   asm_kernels.cc    KernelInfo: parameters, memory sizes, slots; entry/end and register estimate
//   asm_lower.cc      instruction sites: slot renaming, symbol resolution, call lowering
//   asm_lower_stack.cc  call stack code: prologue/epilogue of recursive functions, saves, restores
//   asm_code.cc       code layout (sizes, addresses, label/call targets) and encoding
//   asm_liveness.cc   register-count estimate (liveness)
#include <cstddef>
#include <cstdint>
#include <map>
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

// Registers (function-local indices) and predicates a recursive call site saves in the caller's
// frame before the call and restores after it: those live across it, which the callee may clobber.
struct Saves {
  std::vector<uint32_t> regs, preds;
};

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
  std::vector<size_t> scc;                // per function: its strongly connected component
  std::vector<char> recursive;            // per function: on a call cycle (frames on the call stack)
  std::vector<size_t> order;              // code order of the functions

  // register saves around recursive calls (asm_saves.cc), per function
  std::vector<std::map<size_t, Saves>> saves;   // body index of a recursive call -> what it saves
  std::vector<std::vector<int64_t>> reg_save, pred_save;  // frame offset of each saved slot, -1 none

  // frames and slots (asm_frames.cc)
  std::vector<std::vector<uint32_t>> var_off, param_off, ret_off;  // offsets in the function's frame
  std::vector<uint32_t> frame;                  // frame bytes (recursive: params and rets only)
  std::vector<uint32_t> stack_frame;            // recursive: frame bytes on the call stack
  std::vector<uint32_t> nregs;                  // register slots (+1 scratch when it calls)
  std::vector<uint32_t> rbase, pbase, lbase;    // register/predicate slot and frame bases
  uint16_t sp = isa::kNoReg;                    // stack pointer slot (a module with recursion)
  uint32_t stack_base = 0;                      // local offset of the call stack

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

// asm_saves.cc
void plan_saves(Program& p);

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
// A per-thread local memory location: reg (a register slot, or kNoReg) + off.
struct Loc {
  uint16_t reg;
  int64_t off;
};
// Byte `off` of function f's frame: on the call stack (stack pointer relative) when f is recursive.
Loc frame_loc(const Program& p, size_t f, uint32_t off);
// ld.local reg, [at] (load) or st.local [at], reg.
isa::Inst local_access(bool load, isa::DType t, uint16_t reg, Loc at);
// ld.local/st.local pairs copying `size` bytes through f's scratch slot; guarded like `call`.
void local_copy(Program& p, size_t f, const Instr& call, Loc from, Loc to, uint32_t size, size_t k);
// A synthetic site of f for body index k: `I` with `at`'s line and, when `guarded`, its guard.
void push_synthetic(Program& p, size_t f, size_t k, isa::Inst I, const Instr& at, bool guarded);

// asm_lower_stack.cc
void lower_prologue(Program& p, size_t f);
void lower_stack_ret(Program& p, size_t f, size_t k, isa::Inst I);
void lower_saves(Program& p, size_t f, size_t k, bool restore);
isa::Operand frame_end(const Program& p, size_t c);

// asm_code.cc
void lay_out_code(Program& p);
void encode_sites(const Program& p, Image& img);

// asm_liveness.cc: max simultaneously-live 32-bit registers of function f and its callees. With
// `scc` (Program::scc), a call within f's component adds nothing on top of what is live across it
// (saved in the frame); a call of another component adds that component's largest count.
class Liveness {
 public:
  explicit Liveness(const Module& mod, const std::vector<size_t>* scc = nullptr)
      : m(mod), scc_(scc), memo(mod.funcs.size(), -1) {}
  unsigned run(size_t fi);

 private:
  unsigned callee_need(size_t fi, size_t c);
  const Module& m;
  const std::vector<size_t>* scc_;
  std::vector<int> memo;  // -1 unknown
};

// Register operands that an instruction writes (indices into ops); the liveness here and the
// vulnerable-period scheduler (vp_access.cc) share it.
std::vector<int> def_ops(const isa::Inst& i);

// Registers and predicates of function f live after its call at body index k (k + 1 past the end:
// nothing), for every k in `calls`.
std::map<size_t, Saves> live_after_calls(const Function& f, const std::vector<size_t>& calls);

}  // namespace gpuvp::ptx::detail
