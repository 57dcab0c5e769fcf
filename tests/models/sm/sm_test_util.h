#pragma once
// Helpers for SIMT core tests: a plain-array CoreEnv, an Inst builder with labels, and a runner.
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "sw/isa/address_map.h"
#include "models/memory/atomic_extension.h"
#include "models/sm/simt_core.h"
#include "sw/isa/encoding.h"
#include "sw/isa/isa.h"

namespace smtest {
using namespace gpuvp;
using namespace gpuvp::isa;

constexpr uint64_t kCode = amap::kSystemBase;
constexpr uint64_t kGlob = amap::kGlobalBase;
constexpr uint64_t kConst = amap::kConstBase;

// Memories as arrays; every access costs `latency` cycles. Out of range -> address fault.
struct ArrayEnv : CoreEnv {
  std::vector<uint8_t> code = std::vector<uint8_t>(1 << 16, 0);
  std::vector<uint8_t> glob = std::vector<uint8_t>(1 << 20, 0);
  std::vector<uint8_t> cnst = std::vector<uint8_t>(1 << 12, 0);
  uint64_t latency = 10;
  std::map<Port, uint64_t> count;
  std::vector<std::pair<uint64_t, unsigned>> global_log;  // (addr, len) of global accesses
  std::vector<DevicePrint> printed;  // device printf's texts, in the order the core printed them

  void print(DevicePrint line) override { printed.push_back(std::move(line)); }

  uint8_t* at(Port p, uint64_t a, unsigned len) {
    std::vector<uint8_t>* v = p == Port::Fetch ? &code : p == Port::Const ? &cnst : &glob;
    uint64_t base = p == Port::Fetch ? kCode : p == Port::Const ? kConst : kGlob;
    if (a < base || a + len > base + v->size()) return nullptr;
    return v->data() + (a - base);
  }
  uint64_t access(Port port, uint64_t addr, uint8_t* data, unsigned len, bool write, AtomicExtension* atomic, uint64_t t,
                  Fault& f) override {
    ++count[port];
    uint8_t* p = at(port, addr, len);
    if (!p) {
      f.kind = "address";
      f.message = "out of range";
      return kFail;
    }
    if (port == Port::GlobalRead || port == Port::GlobalWrite) global_log.push_back({addr, len});
    if (atomic) {
      uint64_t old = 0;
      std::memcpy(&old, p, len);
      uint64_t nv = apply_atomic(atomic->op, atomic->type, old, atomic->operand, atomic->compare);
      std::memcpy(p, &nv, len);
      atomic->old = old;
    } else if (write) {
      std::memcpy(p, data, len);
    } else {
      std::memcpy(data, p, len);
    }
    return t + latency;
  }
  template <typename T>
  void put(uint64_t addr, const T& v) {
    std::memcpy(at(Port::GlobalRead, addr, sizeof(T)), &v, sizeof(T));
  }
  template <typename T>
  T get(uint64_t addr) {
    T v;
    std::memcpy(&v, at(Port::GlobalRead, addr, sizeof(T)), sizeof(T));
    return v;
  }
};

inline Operand R(unsigned r) { Operand o; o.kind = OpKind::Reg; o.reg = uint16_t(r); return o; }
inline Operand I(int64_t v) { Operand o; o.kind = OpKind::Imm; o.imm = v; return o; }
inline Operand P(unsigned p, bool neg = false) { Operand o; o.kind = OpKind::Pred; o.reg = uint16_t(p); o.neg = neg; return o; }
inline Operand S(SReg s) { Operand o; o.kind = OpKind::SReg; o.reg = uint16_t(s); return o; }
inline Operand M(unsigned r, int64_t off = 0) { Operand o; o.kind = OpKind::Mem; o.reg = uint16_t(r); o.imm = off; return o; }
inline Operand MA(int64_t abs) { Operand o; o.kind = OpKind::Mem; o.imm = abs; return o; }
inline Operand L(int label) { Operand o; o.kind = OpKind::Target; o.imm = label; return o; }  // resolved by Prog
inline Operand None() { return Operand{}; }
inline float f32(uint64_t v) { float f; uint32_t u = uint32_t(v); std::memcpy(&f, &u, 4); return f; }
inline uint64_t fb(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline double f64(uint64_t v) { double d; std::memcpy(&d, &v, 8); return d; }
inline uint64_t db(double d) { uint64_t u; std::memcpy(&u, &d, 8); return u; }

inline Inst mk(Opcode op, DType t, std::vector<Operand> ops) {
  Inst in;
  in.op = op;
  in.type = t;
  in.nops = uint8_t(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) in.ops[i] = ops[i];
  return in;
}

// A program: instructions plus labels (label id -> instruction index). Target operands hold a label id.
struct Prog {
  std::vector<Inst> insts;
  std::map<int, size_t> labels;
  Inst& add(Inst in) { insts.push_back(in); return insts.back(); }
  Inst& add(Opcode op, DType t, std::vector<Operand> ops) { return add(mk(op, t, std::move(ops))); }
  void label(int id) { labels[id] = insts.size(); }
  // Encodes at kCode; returns bytes.
  std::vector<uint8_t> encode() const {
    std::vector<Inst> v = insts;
    for (auto& in : v)
      for (auto& o : in.ops)
        if (o.kind == OpKind::Target) o.imm = int64_t(kCode);  // same size as the final address
    std::vector<uint64_t> addr;
    uint64_t pc = kCode;
    for (auto& in : v) {
      addr.push_back(pc);
      pc += isa::encoded_size(in);
    }
    addr.push_back(pc);
    std::vector<uint8_t> out;
    for (size_t i = 0; i < v.size(); ++i) {
      Inst in = insts[i];
      for (auto& o : in.ops)
        if (o.kind == OpKind::Target) o.imm = int64_t(addr.at(labels.at(int(o.imm))));
      isa::encode(in, out);
    }
    return out;
  }
};

struct Run {
  SmConfig cfg;
  ArrayEnv env;
  std::unique_ptr<SimtCore> core;
  LaunchParams lp;
  bool ok = false;

  Run() {
    cfg.warp_size = 32;
    cfg.sps = 8;
    cfg.shared_bytes = 16384;
    lp.entry = kCode;
    lp.num_regs = 16;
    lp.num_preds = 8;
    lp.blocks = {0};
  }
  bool go(const Prog& p, unsigned threads = 32) {
    auto bytes = p.encode();
    std::memcpy(env.code.data(), bytes.data(), bytes.size());
    core = std::make_unique<SimtCore>(cfg, env);
    lp.block[0] = threads;
    if (!core->launch(lp, 0)) return ok = false;
    return ok = core->run();
  }
  uint64_t reg(unsigned tid, unsigned slot, unsigned block = 0) const { return core->reg(block, tid, slot); }
  std::string err() const { return core && core->error() ? core->error()->message : std::string(); }
};

// Loads a,b,c (u64 per lane from global arrays at kGlob, +0x1000, +0x2000) into r0..r2, runs `op`
// (which must write r3), stores r3 to kGlob + 0x3000. Returns the 32 results.
inline std::vector<uint64_t> lanes_op(const std::vector<Inst>& ops, const uint64_t* a, const uint64_t* b,
                                      const uint64_t* c, Run* out_run = nullptr) {
  Run local;
  Run& r = out_run ? *out_run : local;
  for (unsigned l = 0; l < 32; ++l) {
    r.env.put<uint64_t>(kGlob + 8 * l, a ? a[l] : 0);
    r.env.put<uint64_t>(kGlob + 0x1000 + 8 * l, b ? b[l] : 0);
    r.env.put<uint64_t>(kGlob + 0x2000 + 8 * l, c ? c[l] : 0);
  }
  Prog p;
  p.add(Opcode::Mov, DType::U32, {R(9), S(SReg::LaneId)});
  p.add(Opcode::Shl, DType::B64, {R(9), R(9), I(3)});
  p.add(Opcode::Add, DType::U64, {R(10), R(9), I(int64_t(kGlob))});
  p.add(Opcode::Ld, DType::B64, {R(0), M(10, 0)}).mod.space = Space::Global;
  p.add(Opcode::Ld, DType::B64, {R(1), M(10, 0x1000)}).mod.space = Space::Global;
  p.add(Opcode::Ld, DType::B64, {R(2), M(10, 0x2000)}).mod.space = Space::Global;
  p.add(Opcode::Mov, DType::B64, {R(3), I(0)});
  for (auto& in : ops) p.add(in);
  p.add(Opcode::St, DType::B64, {M(10, 0x3000), R(3)}).mod.space = Space::Global;
  p.add(Opcode::Exit, DType::None, {});
  std::vector<uint64_t> res(32, 0);
  if (!r.go(p)) return res;
  for (unsigned l = 0; l < 32; ++l) res[l] = r.env.get<uint64_t>(kGlob + 0x3000 + 8 * l);
  return res;
}

// One instruction d=r3, a=r0, b=r1, c=r2 applied to per-lane inputs.
inline Inst op3(Opcode op, DType t, int nsrc = 2) {
  std::vector<Operand> o{R(3), R(0)};
  if (nsrc >= 2) o.push_back(R(1));
  if (nsrc >= 3) o.push_back(R(2));
  return mk(op, t, o);
}

}  // namespace smtest
