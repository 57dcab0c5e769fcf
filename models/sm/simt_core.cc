#include "models/sm/simt_core.h"

#include <fmt/format.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

#include "models/sm/instruction_buffer.h"
#include "models/sm/numeric.h"
#include "models/sm/warp_scheduler.h"
#include "sw/isa/disassembler.h"
#include "sw/isa/encoding.h"

namespace gpuvp {

using namespace isa;
using namespace sm;  // numeric semantics (numeric.h)

SimtCore::SimtCore(const SmConfig& cfg, CoreEnv& env)
    : cfg_(cfg),
      env_(env),
      scheduler_(make_warp_scheduler(cfg.warp_policy)),
      ibuf_(std::make_unique<InstructionBuffer>(cfg.ibuf_insts, env)) {
  period_ps_ = uint64_t(std::llround(cfg.clock.period().to_seconds() * 1e12));
  if (period_ps_ == 0) period_ps_ = 1;
  unsigned sps = cfg.sps ? cfg.sps : 1;
  issue_cycles_ = (cfg.warp_size + sps - 1) / sps;
  if (issue_cycles_ == 0) issue_cycles_ = 1;
  smem_.assign(cfg.shared_bytes, 0);
}

SimtCore::~SimtCore() { clear(); }

void SimtCore::clear() {
  for (auto& w : warps_) {
    delete[] w.rstack;
    w.rstack = nullptr;
  }
  blocks_.clear();
  warps_.clear();
  live_warps_ = 0;
  has_error_ = false;
  block_times_.clear();
}

void SimtCore::fail(const std::string& kind, const std::string& what, const Warp* w, int lane, uint64_t addr) {
  if (has_error_) return;
  has_error_ = true;
  error_ = DeviceErrorInfo{};
  error_.kind = kind;
  error_.pc = cur_pc_;
  error_.sm = int(cfg_.id);
  error_.lane = lane;
  error_.address = addr;
  if (w) {
    error_.block = int64_t(blocks_[w->block].linear);
    error_.warp = int(w->id);
  }
  error_.message = fmt::format("{} error: {} (sm {}, pc {:#x}, block {}, warp {}, lane {}, address {:#x})", kind, what,
                               cfg_.id, cur_pc_, error_.block, error_.warp, lane, addr);
}

bool SimtCore::fault_at(const CoreEnv::Fault& f, const Warp& w, int lane, uint64_t addr) {
  fail(f.kind.empty() ? "tlm" : f.kind, f.message.empty() ? "memory access failed" : f.message, &w, lane, addr);
  return false;
}

bool SimtCore::launch(const LaunchParams& lp, uint64_t start) {
  clear();
  lp_ = lp;
  cur_pc_ = lp.entry;
  ibuf_->new_launch();  // the loader may have rewritten code between batches: refetch
  auto resource = [&](const std::string& what) {
    fail("resource", what, nullptr, -1, 0);
    return false;
  };
  uint64_t threads = uint64_t(lp.block[0]) * lp.block[1] * lp.block[2];
  size_t nb = lp.blocks.size();
  if (cfg_.warp_size == 0 || cfg_.warp_size > 32) return resource(fmt::format("warp size {} (1..32)", cfg_.warp_size));
  if (threads == 0) return resource("empty block (0 threads)");
  if (threads > cfg_.max_threads_per_block)
    return resource(fmt::format("threads per block: {} > max_threads_per_block {}", threads, cfg_.max_threads_per_block));
  if (nb > cfg_.max_blocks) return resource(fmt::format("resident blocks: {} > max_blocks {}", nb, cfg_.max_blocks));
  if (threads * nb > cfg_.max_threads)
    return resource(fmt::format("threads: {} blocks x {} > max_threads {}", nb, threads, cfg_.max_threads));
  if (uint64_t(lp.regs_per_thread) * threads * nb > cfg_.registers)
    return resource(fmt::format("registers: {} per thread x {} threads x {} blocks > {}", lp.regs_per_thread, threads, nb,
                                cfg_.registers));
  if (lp.local_bytes > cfg_.max_local_bytes)
    return resource(fmt::format("local memory: {} bytes per thread > max_local_bytes {}", lp.local_bytes, cfg_.max_local_bytes));
  user_off_ = user_region_offset(uint32_t(lp.params.size()));
  user_bytes_ = lp.static_shared + lp.dyn_shared;
  uint64_t need = uint64_t(user_off_) + user_bytes_;
  if (need > cfg_.shared_per_block)
    return resource(fmt::format("shared memory per block: {} bytes > shared_per_block {}", need, cfg_.shared_per_block));
  stride_ = std::max<uint32_t>(lp.smem_per_block, uint32_t((need + 255) / 256 * 256));
  if (uint64_t(stride_) * nb > smem_.size())
    return resource(fmt::format("shared memory: {} blocks x {} bytes > {} bytes", nb, stride_, smem_.size()));

  threads_ = uint32_t(threads);
  wpb_ = (threads_ + cfg_.warp_size - 1) / cfg_.warp_size;
  regfile_.assign(size_t(nb) * wpb_ * lp.num_regs * 32, 0);
  predfile_.assign(size_t(nb) * wpb_ * std::max(lp.num_preds, 1u), 0);
  blocks_.resize(nb);
  warps_.resize(nb * wpb_);
  block_times_.resize(nb);
  for (size_t j = 0; j < nb; ++j) {
    Block& b = blocks_[j];
    b.linear = lp.blocks[j];
    b.smem_base = uint32_t(j * stride_);
    b.first_warp = unsigned(j * wpb_);
    b.nwarps = b.live_warps = wpb_;
    if (lp.local_bytes) b.local.assign(size_t(threads_) * lp.local_bytes, 0);
    uint8_t* s = smem_.data() + b.smem_base;
    std::memset(s, 0, stride_);
    uint16_t hdr[6] = {uint16_t(lp.block[0]), uint16_t(lp.block[1]), uint16_t(lp.block[2]),
                       uint16_t(lp.grid[0]),  uint16_t(lp.grid[1]),  uint16_t(lp.grid[2])};
    std::memcpy(s, hdr, 12);
    uint32_t lin = uint32_t(b.linear);
    std::memcpy(s + 12, &lin, 4);
    if (!lp.params.empty()) std::memcpy(s + kBlockHeaderBytes, lp.params.data(), lp.params.size());
    block_times_[j] = BlockTimes{b.linear, start, start};
    for (unsigned k = 0; k < wpb_; ++k) {
      Warp& w = warps_[b.first_warp + k];
      w = Warp{};
      w.id = b.first_warp + k;
      w.block = unsigned(j);
      w.in_block = k;
      unsigned first = k * cfg_.warp_size;
      unsigned n = std::min(cfg_.warp_size, threads_ - first);
      w.live = n >= 32 ? ~0u : ((1u << n) - 1);
      w.ready = start;
      w.regs = regfile_.data() + size_t(w.id) * lp.num_regs * 32;
      w.preds = predfile_.data() + size_t(w.id) * std::max(lp.num_preds, 1u);
      w.groups[0] = Group{lp.entry, w.live};
      w.ngroups = 1;
    }
  }
  live_warps_ = unsigned(warps_.size());
  now_ = synced_ = start;
  last_ = -1;
  stats_.batches++;
  stats_.blocks += nb;
  return true;
}

bool SimtCore::run() {
  while (live_warps_ && !has_error_) {
    int i = scheduler_->pick(warps_, last_, now_);
    if (i < 0) {
      uint64_t t = ~uint64_t{0};
      for (auto& w : warps_)
        if (w.state == Warp::Ready) t = std::min(t, w.ready);
      if (t == ~uint64_t{0}) {
        const Warp* bw = nullptr;
        for (auto& w : warps_)
          if (w.state == Warp::Barrier) bw = &w;
        if (bw) cur_pc_ = bw->groups[0].pc;
        fail("barrier", "block cannot make progress: barrier never completes (warps exited or diverged)", bw, -1, 0);
        break;
      }
      now_ = std::max(now_, t);
      // Every warp is waiting (memory latency, nanosleep): one jump, and let simulated time follow.
      if (now_ - synced_ >= 1000) {
        env_.sync(now_);
        synced_ = now_;
      }
      continue;
    }
    last_ = i;
    step(warps_[i]);
    if (now_ - synced_ >= quantum_) {
      env_.sync(now_);
      synced_ = now_;
    }
  }
  return !has_error_;
}

bool SimtCore::validate(const Inst& in, uint64_t pc) {
  auto bad = [&](const std::string& why) {
    fail("decode", fmt::format("invalid instruction at {:#x}: {}", pc, why), nullptr, -1, pc);
    return false;
  };
  if (in.guard >= 0 && uint32_t(in.guard) >= lp_.num_preds) return bad(fmt::format("guard predicate {} out of range", in.guard));
  for (int i = 0; i < in.nops; ++i) {
    const Operand& o = in.ops[i];
    if ((o.kind == OpKind::Reg || (o.kind == OpKind::Mem && o.reg != kNoReg)) && o.reg >= lp_.num_regs)
      return bad(fmt::format("register slot {} >= {}", o.reg, lp_.num_regs));
    if (o.kind == OpKind::Pred && o.reg >= lp_.num_preds)
      return bad(fmt::format("predicate slot {} >= {}", o.reg, lp_.num_preds));
  }
  if (in.op == Opcode::Ld || in.op == Opcode::St || in.op == Opcode::Atom || in.op == Opcode::Red) {
    unsigned b = bits_of(in.type);
    if (b < 8) return bad("memory access without a data type");
    if (in.nops < in.vec + 1) return bad("missing memory operand");
    int mi = in.op == Opcode::Ld ? in.vec : in.op == Opcode::Atom ? 1 : 0;
    if (in.ops[mi].kind != OpKind::Mem) return bad("missing memory operand");
  }
  return true;
}

const Inst* SimtCore::fetch(Warp& w, uint64_t pc) {
  InstructionBuffer::Error err;
  bool validated = false;
  const Inst* in = ibuf_->fetch(pc, now_, stats_.fetches, err, validated);
  if (!in) {
    if (err.decode) fail("decode", fmt::format("undecodable instruction at {:#x}: {}", pc, err.why), &w, -1, pc);
    else fault_at(err.fault, w, -1, err.addr);
    return nullptr;
  }
  if (!validated) {  // register and predicate bounds, once per launch
    if (!validate(*in, pc)) return nullptr;
    ibuf_->mark_validated(pc);
  }
  return in;
}

// --- operands ---------------------------------------------------------------------------------

uint64_t SimtCore::sreg(SReg r, const Warp& w, unsigned lane) const {
  const Block& b = blocks_[w.block];
  const uint8_t* h = smem_.data() + b.smem_base;  // block header: faults in it are visible
  uint16_t hdr[6];
  uint32_t lin;
  std::memcpy(hdr, h, 12);
  std::memcpy(&lin, h + 12, 4);
  auto nz = [](uint32_t v) { return v ? v : 1u; };
  uint32_t tlin = w.in_block * cfg_.warp_size + lane;
  switch (r) {
    case SReg::TidX: return tlin % nz(hdr[0]);
    case SReg::TidY: return (tlin / nz(hdr[0])) % nz(hdr[1]);
    case SReg::TidZ: return tlin / (nz(hdr[0]) * nz(hdr[1]));
    case SReg::NtidX: return hdr[0];
    case SReg::NtidY: return hdr[1];
    case SReg::NtidZ: return hdr[2];
    case SReg::CtaidX: return lin % nz(hdr[3]);
    case SReg::CtaidY: return (lin / nz(hdr[3])) % nz(hdr[4]);
    case SReg::CtaidZ: return lin / (nz(hdr[3]) * nz(hdr[4]));
    case SReg::NctaidX: return hdr[3];
    case SReg::NctaidY: return hdr[4];
    case SReg::NctaidZ: return hdr[5];
    case SReg::LaneId: return lane;
    case SReg::WarpId: return w.id;
    case SReg::NWarpId: return (cfg_.max_threads + cfg_.warp_size - 1) / cfg_.warp_size;
    case SReg::SmId: return cfg_.id;
    case SReg::NSmId: return cfg_.num_sms;
    case SReg::Clock: return uint32_t(now_);
    case SReg::ClockHi: return uint32_t(now_ >> 32);
    case SReg::Clock64: return now_;
    case SReg::GlobalTimer: return now_ * period_ps_ / 1000;
    case SReg::GlobalTimerLo: return uint32_t(now_ * period_ps_ / 1000);
    case SReg::GlobalTimerHi: return uint32_t((now_ * period_ps_ / 1000) >> 32);
    case SReg::LanemaskEq: return uint32_t(1u << lane);
    case SReg::LanemaskLt: return uint32_t((1ull << lane) - 1);
    case SReg::LanemaskLe: return uint32_t((2ull << lane) - 1);
    case SReg::LanemaskGt: return uint32_t(~((2ull << lane) - 1));
    case SReg::LanemaskGe: return uint32_t(~((1ull << lane) - 1));
    case SReg::DynamicSmemSize: return lp_.dyn_shared;
    case SReg::TotalSmemSize: return stride_;
    case SReg::GridId: return lp_.launch_id;
    default: return 0;
  }
}

const uint64_t* SimtCore::src(const Operand& o, Warp& w, uint32_t mask, uint64_t* s) {
  switch (o.kind) {
    case OpKind::Reg: return w.regs + size_t(o.reg) * 32;
    case OpKind::Imm: case OpKind::Target: {
      uint64_t v = uint64_t(o.imm);
      for (unsigned l = 0; l < 32; ++l) s[l] = v;
      return s;
    }
    case OpKind::Mem: {
      // Address operand as a value (mov r, [sym] style).
      const uint64_t* r = o.reg == kNoReg ? nullptr : w.regs + size_t(o.reg) * 32;
      lanes(mask, [&](unsigned l) { s[l] = (r ? r[l] : 0) + uint64_t(o.imm); });
      return s;
    }
    case OpKind::SReg:
      lanes(mask, [&](unsigned l) { s[l] = sreg(SReg(o.reg), w, l); });
      return s;
    case OpKind::Pred: {
      uint32_t p = w.preds[o.reg] ^ (o.neg ? ~0u : 0u);
      lanes(mask, [&](unsigned l) { s[l] = (p >> l) & 1; });
      return s;
    }
    default:
      std::memset(s, 0, 32 * sizeof(uint64_t));
      return s;
  }
}

uint64_t* SimtCore::dst(const Operand& o, Warp& w, uint64_t* s) {
  return o.kind == OpKind::Reg ? w.regs + size_t(o.reg) * 32 : s;
}

uint32_t SimtCore::pred_mask(const Operand& o, const Warp& w) const {
  switch (o.kind) {
    case OpKind::Pred: return w.preds[o.reg] ^ (o.neg ? ~0u : 0u);
    case OpKind::Imm: return o.imm ? ~0u : 0u;
    case OpKind::Reg: {
      uint32_t m = 0;
      const uint64_t* r = w.regs + size_t(o.reg) * 32;
      for (unsigned l = 0; l < 32; ++l) m |= uint32_t(r[l] != 0) << l;
      return m;
    }
    default: return 0;
  }
}

void SimtCore::write_pred(const Operand& o, Warp& w, uint32_t mask, uint32_t v) {
  if (o.kind == OpKind::Pred) w.preds[o.reg] = (w.preds[o.reg] & ~mask) | (v & mask);
  else if (o.kind == OpKind::Reg) {
    uint64_t* d = w.regs + size_t(o.reg) * 32;
    lanes(mask, [&](unsigned l) { d[l] = (v >> l) & 1; });
  }
}

// --- control ----------------------------------------------------------------------------------

void SimtCore::finish_warp(Warp& w) {
  w.state = Warp::Exited;
  --live_warps_;
  Block& b = blocks_[w.block];
  if (--b.live_warps == 0) block_times_[w.block].end = now_;
  for (unsigned id = 0; id < 16; ++id)
    if (b.bar_arrived[id])
      fail("barrier", fmt::format("warp exited while barrier {} is pending", id), &w, -1, 0);
  delete[] w.rstack;
  w.rstack = nullptr;
}

void SimtCore::exit_lanes(Warp& w, Group& g, uint32_t lanes_out) {
  unsigned gi = unsigned(&g - w.groups);
  uint32_t rest = g.mask & ~lanes_out;
  uint64_t next = g.pc;  // caller already computed; rest moves to next in step()
  (void)next;
  w.live &= ~lanes_out;
  if (rest) g.mask = rest;
  else w.remove(gi, lanes_out);
  if (w.ngroups == 0) finish_warp(w);
}

void SimtCore::do_call(Warp& w, const Inst& in, Group& g, uint32_t m) {
  // Arguments and return values were lowered by the assembler into local-memory copies around the
  // call: a call only pushes the return address (docs/isa-encoding.md).
  if (!w.rstack) w.rstack = new std::vector<uint64_t>[32];
  uint64_t ret = g.pc + in.size;
  lanes(m, [&](unsigned l) {
    if (w.rstack[l].size() >= kMaxCallDepth) {
      fail("stack", fmt::format("call depth exceeds {}", kMaxCallDepth), &w, int(l), 0);
      return;
    }
    w.rstack[l].push_back(ret);
  });
}

// Returns false when the lanes exited (ret from the kernel).
bool SimtCore::do_ret(Warp& w, Group& g, uint32_t m) {
  uint32_t exiting = 0;
  unsigned gi = unsigned(&g - w.groups);
  // Pop per lane; move lanes to their return address (one move per distinct address).
  uint64_t target[32];
  uint32_t moving = 0;
  lanes(m, [&](unsigned l) {
    if (!w.rstack || w.rstack[l].empty()) {
      exiting |= 1u << l;
      return;
    }
    target[l] = w.rstack[l].back();
    w.rstack[l].pop_back();
    moving |= 1u << l;
  });
  while (moving) {
    unsigned l0 = unsigned(__builtin_ctz(moving));
    uint32_t same = 0;
    lanes(moving, [&](unsigned l) {
      if (target[l] == target[l0]) same |= 1u << l;
    });
    moving &= ~same;
    w.move(gi, same, target[l0]);
    // gi may have been removed if it emptied; find the group at the original pc again
    gi = w.ngroups;
    for (unsigned i = 0; i < w.ngroups; ++i)
      if (w.groups[i].pc == cur_pc_) gi = i;
    if (gi == w.ngroups) break;
  }
  if (exiting) {
    for (unsigned i = 0; i < w.ngroups; ++i)
      if (w.groups[i].pc == cur_pc_) {
        exit_lanes(w, w.groups[i], exiting);
        break;
      }
    return false;
  }
  return true;
}

void SimtCore::check_barrier(Block& b, unsigned id) {
  if (b.bar_arrived[id] < b.bar_expected[id]) return;
  b.bar_arrived[id] = 0;
  for (unsigned k = 0; k < b.nwarps; ++k) {
    Warp& w = warps_[b.first_warp + k];
    if (w.state == Warp::Barrier && w.bar_id == id) {
      w.state = Warp::Ready;
      w.ready = std::max(w.ready, now_ + cfg_.lat.barrier);
    }
  }
}

void SimtCore::step(Warp& w) {
  unsigned gi = w.ngroups == 1 ? 0 : w.frontier();
  uint64_t pc = w.groups[gi].pc;
  cur_pc_ = pc;
  const Inst* in = fetch(w, pc);
  if (!in) return;
  Group& g = w.groups[gi];
  uint32_t active = g.mask;
  if (in->guard >= 0) {
    uint32_t p = w.preds[in->guard];
    active &= in->guard_neg ? ~p : p;
  }
  ++stats_.warp_insts;
  stats_.thread_insts += unsigned(__builtin_popcount(active));
  now_ += issue_cycles_;
  lat_ = cfg_.lat.alu;
  done_at_ = now_;
  uint64_t next = pc + in->size;
  switch (in->op) {
    case Opcode::Bra: {
      uint64_t target = uint64_t(in->ops[0].imm);
      uint32_t nt = g.mask & ~active;
      lat_ = cfg_.lat.branch;
      if (active) w.move(gi, active, target);
      if (nt) {
        // gi still holds the not-taken lanes at pc (or was reused); find it again
        for (unsigned i = 0; i < w.ngroups; ++i)
          if (w.groups[i].pc == pc) {
            w.move(i, nt, next);
            break;
          }
      }
      break;
    }
    case Opcode::Exit:
    case Opcode::Ret: {
      lat_ = cfg_.lat.branch;
      uint32_t rest = g.mask & ~active;
      if (in->op == Opcode::Ret && active && !do_ret(w, g, active)) {
        // exiting lanes handled in do_ret; remaining lanes advance
      } else if (in->op == Opcode::Exit && active) {
        exit_lanes(w, g, active);
      }
      if (rest && w.state != Warp::Exited)
        for (unsigned i = 0; i < w.ngroups; ++i)
          if (w.groups[i].pc == pc) {
            w.move(i, w.groups[i].mask, next);
            break;
          }
      break;
    }
    case Opcode::Call: {
      lat_ = cfg_.lat.branch;
      uint32_t rest = g.mask & ~active;
      if (active) {
        do_call(w, *in, g, active);
        w.move(gi, active, uint64_t(in->ops[0].imm));
      }
      if (rest)
        for (unsigned i = 0; i < w.ngroups; ++i)
          if (w.groups[i].pc == pc) {
            w.move(i, rest, next);
            break;
          }
      break;
    }
    case Opcode::Bar: {
      lat_ = cfg_.lat.barrier;
      if (!active) {
        w.move(gi, g.mask, next);
        break;
      }
      if (w.ngroups > 1 || active != w.live) {
        fail("barrier", "bar.sync executed by a diverged warp", &w, -1, 0);
        return;
      }
      Block& b = blocks_[w.block];
      uint64_t tmp[32];
      unsigned l0 = unsigned(__builtin_ctz(active));
      unsigned id = unsigned(src(in->ops[0], w, active, tmp)[l0]) & 15;
      unsigned expected = b.nwarps;
      if (in->nops > 1 && in->ops[1].kind != OpKind::None) {
        uint64_t cnt = src(in->ops[1], w, active, tmp)[l0];
        expected = unsigned((cnt + cfg_.warp_size - 1) / cfg_.warp_size);
        if (expected == 0 || expected > b.nwarps) expected = b.nwarps;
      }
      w.move(gi, g.mask, next);
      w.state = Warp::Barrier;
      w.bar_id = uint8_t(id);
      b.bar_expected[id] = uint16_t(expected);
      ++b.bar_arrived[id];
      check_barrier(b, id);
      break;
    }
    case Opcode::Trap:
      if (active) {
        fail("trap", "trap instruction executed", &w, __builtin_ctz(active), 0);
        return;
      }
      w.move(gi, g.mask, next);
      break;
    default:
      if (active) exec(w, *in, g, active);
      if (has_error_) return;
      w.move(gi, w.groups[gi].mask, next);
      break;
  }
  if (w.state == Warp::Ready) w.ready = std::max(w.ready, done_at_ + lat_);
}

// --- cvt --------------------------------------------------------------------------------------

void SimtCore::do_cvt(Warp& w, const Inst& in, uint32_t m) {
  uint64_t sa[32], sd[32];
  const uint64_t* a = src(in.ops[1], w, m, sa);
  uint64_t* d = dst(in.ops[0], w, sd);
  DType dt = in.type, st = in.type2 == DType::None ? in.type : in.type2;
  unsigned db = bits_of(dt), sbits = bits_of(st);
  bool sat = in.mod.flags & kSat, fz = in.mod.flags & kFtz;
  Round r = in.mod.round;
  if (!is_float(dt) && !is_float(st)) {
    // Integer -> integer: extend by the source type, truncate (or saturate) to the destination.
    bool ss = is_signed(st), ds = is_signed(dt);
    lanes(m, [&](unsigned l) {
      uint64_t v = ss ? uint64_t(sext(a[l], sbits)) : (a[l] & wmask(sbits));
      if (sat) {
        if (ds) {
          int64_t lo = db >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (db - 1));
          int64_t hi = db >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (db - 1)) - 1;
          if (ss) v = uint64_t(std::clamp(int64_t(v), lo, hi));
          else v = v > uint64_t(hi) ? uint64_t(hi) : v;
        } else {
          uint64_t hi = wmask(db);
          if (ss && int64_t(v) < 0) v = 0;
          else if (v > hi) v = hi;
        }
      }
      // Sub-word signed results are kept sign-extended (see do_ld).
      d[l] = (ds && db < 32) ? uint64_t(sext(v, db)) : v & wmask(db);
    });
    return;
  }
  auto rd_f = [&](uint64_t v) -> double {
    double x = fval(st, v);
    if (fz && st == DType::F32) x = ftz(float(x));
    return x;
  };
  if (!is_float(dt)) {
    // Float -> integer: saturating, NaN -> 0.
    bool ds = is_signed(dt);
    lanes(m, [&](unsigned l) {
      uint64_t v = f2i(rd_f(a[l]), r, dt);
      d[l] = (ds && db < 32) ? uint64_t(sext(v, db)) : v;
    });
    return;
  }
  // Float destination.
  auto out = [&](double x) -> uint64_t {
    if (sat) x = sat01(x);
    if (dt == DType::F64) return b64(x);
    if (dt == DType::F16) return to_half(x, r);
    float f = float(x);  // the RoundScope applies the mode
    if (fz) f = ftz(f);
    if (sat) f = sat01(f);
    return b32(f);
  };
  bool int_round = r == Round::Rni || r == Round::Rzi || r == Round::Rmi || r == Round::Rpi;
  if (is_float(st)) {
    RoundScope rs(int_round ? Round::None : r);
    lanes(m, [&](unsigned l) {
      double x = rd_f(a[l]);
      if (int_round) {
        x = r == Round::Rni ? std::nearbyint(x) : r == Round::Rzi ? std::trunc(x) : r == Round::Rmi ? std::floor(x) : std::ceil(x);
      }
      d[l] = out(x);
    });
    return;
  }
  // Integer -> float: one rounding from the exact integer.
  bool ss = is_signed(st);
  RoundScope rs(r);
  lanes(m, [&](unsigned l) {
    uint64_t v = a[l] & wmask(sbits);
    if (dt == DType::F64) {
      d[l] = b64(ss ? double(sext(v, sbits)) : double(v));
    } else if (dt == DType::F16) {
      // Integers that fit a double exactly (all but > 2^53) round once.
      d[l] = to_half(ss ? double(sext(v, sbits)) : double(v), r);
    } else {
      float f = ss ? float(sext(v, sbits)) : float(v);
      d[l] = b32(sat ? sat01(f) : f);
    }
  });
}

// --- everything else ----------------------------------------------------------------------------

void SimtCore::exec(Warp& w, const Inst& in, Group& g, uint32_t m) {
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const DType t = in.type;
  const unsigned B = bits_of(t);
  const bool S = is_signed(t);
  const uint64_t M = wmask(B);
  const bool F = is_float(t);
  auto norm = [&](uint64_t v) -> uint64_t { return S ? uint64_t(sext(v, B)) : (v & M); };
  auto A = [&]() { return src(in.ops[1], w, m, sa); };
  auto Bv = [&]() { return src(in.ops[2], w, m, sb); };
  auto Cv = [&]() { return src(in.ops[3], w, m, sc); };
  auto D = [&]() { return dst(in.ops[0], w, sd); };
  if (F && t == DType::F64) lat_ = cfg_.lat.fp64;

  if (cfg_.warp_size != 32 && (in.op == Opcode::Shfl || in.op == Opcode::Vote || in.op == Opcode::Activemask ||
                                in.op == Opcode::BarWarp)) {
    // nvcc compiles warp-level code for warpSize = 32 (full masks, lane arithmetic): on a narrower
    // warp it cannot mean what the kernel expects, so it stops instead of computing something else.
    fail("warp_size", fmt::format("{} needs 32-lane warps (nvcc's warpSize) and this SM has {}-lane warps "
                                  "(sm.warp_size)", isa::disassemble(in), cfg_.warp_size),
         &w, -1, 0);
    return;
  }
  switch (in.op) {
    case Opcode::Nop:
    case Opcode::Membar:
    case Opcode::BarWarp:
      return;
    case Opcode::Mov: {
      if (in.mod.flags & kPack) {
        unsigned n = in.vec ? in.vec : 1, eb = B / n;
        uint64_t* d = D();
        uint64_t acc[32] = {};
        for (unsigned i = 0; i < n; ++i) {
          const uint64_t* s = src(in.ops[1 + i], w, m, sa);
          lanes(m, [&](unsigned l) { acc[l] |= (s[l] & wmask(eb)) << (i * eb); });
        }
        lanes(m, [&](unsigned l) { d[l] = acc[l] & M; });
        return;
      }
      if (in.mod.flags & kUnpack) {
        unsigned n = in.vec ? in.vec : 1, eb = B / n;
        uint64_t tmp[32];
        const uint64_t* s = src(in.ops[n], w, m, sa);
        lanes(m, [&](unsigned l) { tmp[l] = s[l]; });
        for (unsigned i = 0; i < n; ++i) {
          uint64_t* d = dst(in.ops[i], w, sd);
          lanes(m, [&](unsigned l) { d[l] = (tmp[l] >> (i * eb)) & wmask(eb); });
        }
        return;
      }
      if (in.ops[0].kind == OpKind::Pred || t == DType::Pred) {
        write_pred(in.ops[0], w, m, pred_mask(in.ops[1], w));
        return;
      }
      const uint64_t* a = A();
      uint64_t* d = D();
      uint64_t mm = B ? M : ~uint64_t{0};
      lanes(m, [&](unsigned l) { d[l] = a[l] & mm; });
      return;
    }
    case Opcode::Ld: do_ld(w, in, m); return;
    case Opcode::St: do_st(w, in, m); return;
    case Opcode::Atom:
    case Opcode::Red: do_atom(w, in, m); return;
    case Opcode::Cvt: do_cvt(w, in, m); return;
    case Opcode::Cvta: {
      const uint64_t* a = A();
      uint64_t* d = D();
      bool to = in.mod.flags & kToSpace;
      uint64_t base = in.mod.space == Space::Shared ? kSharedWindowBase : in.mod.space == Space::Local ? kLocalWindowBase : 0;
      uint64_t mm = B ? M : ~uint64_t{0};
      lanes(m, [&](unsigned l) { d[l] = (to ? a[l] - base : a[l] + base) & mm; });
      return;
    }
    case Opcode::Add:
    case Opcode::Sub: {
      const uint64_t *a = A(), *b = Bv();
      uint64_t* d = D();
      bool sub = in.op == Opcode::Sub;
      if (F) {
        if (sub) fl2(in, m, a, b, d, [](auto x, auto y) { return x - y; });
        else fl2(in, m, a, b, d, [](auto x, auto y) { return x + y; });
        return;
      }
      if ((in.mod.flags & kSat) && t == DType::S32) {
        lanes(m, [&](unsigned l) {
          int64_t r = sub ? sext(a[l], 32) - sext(b[l], 32) : sext(a[l], 32) + sext(b[l], 32);
          d[l] = uint64_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX)) & M;
        });
        return;
      }
      if (sub) lanes(m, [&](unsigned l) { d[l] = (a[l] - b[l]) & M; });
      else lanes(m, [&](unsigned l) { d[l] = (a[l] + b[l]) & M; });
      return;
    }
    case Opcode::Mul:
    case Opcode::Mad: {
      lat_ = F && t == DType::F64 ? cfg_.lat.fp64 : cfg_.lat.mul;
      const uint64_t *a = A(), *b = Bv();
      bool mad = in.op == Opcode::Mad;
      const uint64_t* c = mad ? Cv() : nullptr;
      uint64_t* d = D();
      if (F) {
        if (mad) fl3(in, m, a, b, c, d, [](auto x, auto y, auto z) { return std::fma(x, y, z); });
        else fl2(in, m, a, b, d, [](auto x, auto y) { return x * y; });
        return;
      }
      MulMode mm = in.mod.mul == MulMode::None ? MulMode::Lo : in.mod.mul;
      if (mm == MulMode::Wide) {
        uint64_t W = wmask(2 * B);
        lanes(m, [&](unsigned l) { d[l] = (norm(a[l]) * norm(b[l]) + (mad ? c[l] : 0)) & W; });
      } else if (mm == MulMode::Lo) {
        lanes(m, [&](unsigned l) { d[l] = (a[l] * b[l] + (mad ? c[l] : 0)) & M; });
      } else {
        bool sat = mad && (in.mod.flags & kSat) && t == DType::S32;
        lanes(m, [&](unsigned l) {
          uint64_t hi;
          if (B == 64) {
            hi = S ? uint64_t((__int128(int64_t(a[l])) * __int128(int64_t(b[l]))) >> 64)
                   : uint64_t((unsigned __int128)(a[l]) * b[l] >> 64);
          } else {
            hi = S ? uint64_t(int64_t(norm(a[l]) * norm(b[l])) >> B) : (norm(a[l]) * norm(b[l])) >> B;
          }
          if (sat) {
            int64_t r = sext(hi, 32) + sext(c[l], 32);
            d[l] = uint64_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX)) & M;
          } else {
            d[l] = (hi + (mad ? c[l] : 0)) & M;
          }
        });
      }
      return;
    }
    case Opcode::Mul24:
    case Opcode::Mad24: {
      lat_ = cfg_.lat.mul;
      const uint64_t *a = A(), *b = Bv();
      bool mad = in.op == Opcode::Mad24;
      const uint64_t* c = mad ? Cv() : nullptr;
      uint64_t* d = D();
      bool hi = in.mod.mul == MulMode::Hi;
      lanes(m, [&](unsigned l) {
        int64_t x = S ? sext(a[l], 24) : int64_t(a[l] & 0xFFFFFF), y = S ? sext(b[l], 24) : int64_t(b[l] & 0xFFFFFF);
        uint64_t p = uint64_t(x * y);
        uint64_t r = hi ? (p >> 16) : p;
        d[l] = (r + (mad ? c[l] : 0)) & 0xFFFFFFFFull;
      });
      return;
    }
    case Opcode::Fma: {
      lat_ = t == DType::F64 ? cfg_.lat.fp64 : cfg_.lat.mul;
      const uint64_t *a = A(), *b = Bv(), *c = Cv();
      fl3(in, m, a, b, c, D(), [](auto x, auto y, auto z) { return std::fma(x, y, z); });
      return;
    }
    case Opcode::Div:
    case Opcode::Rem: {
      lat_ = cfg_.lat.sfu;
      const uint64_t *a = A(), *b = Bv();
      uint64_t* d = D();
      if (F) {
        // div.rn is IEEE; div.approx/div.full are computed as the correctly rounded quotient too.
        fl2(in, m, a, b, d, [](auto x, auto y) { return x / y; });
        return;
      }
      bool rem = in.op == Opcode::Rem;
      lanes(m, [&](unsigned l) {
        uint64_t x = norm(a[l]), y = norm(b[l]);
        uint64_t r;
        if (y == 0) r = rem ? x : ~uint64_t{0};  // documented choice for division by zero
        else if (S) {
          int64_t sx = int64_t(x), sy = int64_t(y);
          if (sy == -1) r = rem ? 0 : uint64_t(0) - x;  // avoids INT_MIN / -1 overflow (wraps)
          else r = uint64_t(rem ? sx % sy : sx / sy);
        } else {
          r = rem ? x % y : x / y;
        }
        d[l] = r & M;
      });
      return;
    }
    case Opcode::Abs:
    case Opcode::Neg: {
      const uint64_t* a = A();
      uint64_t* d = D();
      bool neg = in.op == Opcode::Neg;
      if (F) {
        bool fz = (in.mod.flags & kFtz) && t == DType::F32;
        uint64_t sbit = uint64_t{1} << (B - 1);
        lanes(m, [&](unsigned l) {
          uint64_t v = a[l] & M;
          if (fz) v = b32(ftz(f32(v)));
          d[l] = neg ? (v ^ sbit) : (v & ~sbit);
        });
        return;
      }
      if (neg) lanes(m, [&](unsigned l) { d[l] = (uint64_t(0) - a[l]) & M; });
      else lanes(m, [&](unsigned l) {
          int64_t v = sext(a[l], B);
          d[l] = uint64_t(v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v)) & M;
        });
      return;
    }
    case Opcode::Min:
    case Opcode::Max: {
      const uint64_t *a = A(), *b = Bv();
      uint64_t* d = D();
      bool mx = in.op == Opcode::Max;
      if (F) {
        bool fz = (in.mod.flags & kFtz);
        if (t == DType::F64)
          lanes(m, [&](unsigned l) { d[l] = b64(fminmax(f64(a[l]), f64(b[l]), mx)); });
        else
          lanes(m, [&](unsigned l) {
            float x = f32(a[l]), y = f32(b[l]);
            if (fz) x = ftz(x), y = ftz(y);
            float r = fminmax(x, y, mx);
            d[l] = std::isnan(r) ? 0x7FFFFFFFu : b32(r);
          });
        return;
      }
      lanes(m, [&](unsigned l) {
        uint64_t x = norm(a[l]), y = norm(b[l]);
        bool lt = S ? int64_t(x) < int64_t(y) : x < y;
        d[l] = (mx ? (lt ? y : x) : (lt ? x : y)) & M;
      });
      return;
    }
    case Opcode::Sad: {
      const uint64_t *a = A(), *b = Bv(), *c = Cv();
      uint64_t* d = D();
      lanes(m, [&](unsigned l) {
        uint64_t x = norm(a[l]), y = norm(b[l]);
        bool lt = S ? int64_t(x) < int64_t(y) : x < y;
        d[l] = (c[l] + (lt ? y - x : x - y)) & M;
      });
      return;
    }
    case Opcode::Sqrt:
    case Opcode::Rsqrt:
    case Opcode::Rcp:
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Ex2:
    case Opcode::Lg2:
    case Opcode::Tanh: {
      lat_ = cfg_.lat.sfu;
      const uint64_t* a = A();
      uint64_t* d = D();
      // Approximate functions: computed in double and rounded once to the result type.
      switch (in.op) {
        case Opcode::Sqrt: fl1(in, m, a, d, [](auto x) { return decltype(x)(std::sqrt(x)); }); break;
        case Opcode::Rsqrt: fl1(in, m, a, d, [](auto x) { return decltype(x)(1.0 / std::sqrt(double(x))); }); break;
        case Opcode::Rcp: fl1(in, m, a, d, [](auto x) { return decltype(x)(1) / x; }); break;
        case Opcode::Sin: fl1(in, m, a, d, [](auto x) { return decltype(x)(std::sin(double(x))); }); break;
        case Opcode::Cos: fl1(in, m, a, d, [](auto x) { return decltype(x)(std::cos(double(x))); }); break;
        case Opcode::Ex2: fl1(in, m, a, d, [](auto x) { return decltype(x)(std::exp2(double(x))); }); break;
        case Opcode::Lg2: fl1(in, m, a, d, [](auto x) { return decltype(x)(std::log2(double(x))); }); break;
        default: fl1(in, m, a, d, [](auto x) { return decltype(x)(std::tanh(double(x))); }); break;
      }
      return;
    }
    case Opcode::Copysign: {
      // copysign d, a, b: b with the sign of a.
      const uint64_t *a = A(), *b = Bv();
      uint64_t* d = D();
      uint64_t sbit = uint64_t{1} << (B ? B - 1 : 31);
      lanes(m, [&](unsigned l) { d[l] = ((b[l] & ~sbit) | (a[l] & sbit)) & M; });
      return;
    }
    case Opcode::Testp: {
      const uint64_t* a = A();
      uint32_t r = 0;
      lanes(m, [&](unsigned l) {
        double x = fval(t, a[l]);
        bool v;
        int cls = t == DType::F64 ? std::fpclassify(x) : std::fpclassify(float(x));
        switch (in.mod.testp) {
          case TestpMode::Finite: v = std::isfinite(x); break;
          case TestpMode::Infinite: v = std::isinf(x); break;
          case TestpMode::Number: v = !std::isnan(x); break;
          case TestpMode::NotANumber: v = std::isnan(x); break;
          case TestpMode::Normal: v = cls == FP_NORMAL; break;
          case TestpMode::Subnormal: v = cls == FP_SUBNORMAL; break;
          default: v = false; break;
        }
        r |= uint32_t(v) << l;
      });
      write_pred(in.ops[0], w, m, r);
      return;
    }
    case Opcode::And:
    case Opcode::Or:
    case Opcode::Xor:
    case Opcode::Not:
    case Opcode::Cnot: {
      if (t == DType::Pred || in.ops[0].kind == OpKind::Pred) {
        uint32_t a = pred_mask(in.ops[1], w), b = in.nops > 2 ? pred_mask(in.ops[2], w) : 0, r;
        switch (in.op) {
          case Opcode::And: r = a & b; break;
          case Opcode::Or: r = a | b; break;
          case Opcode::Xor: r = a ^ b; break;
          default: r = ~a; break;
        }
        write_pred(in.ops[0], w, m, r);
        return;
      }
      const uint64_t* a = A();
      uint64_t* d = D();
      switch (in.op) {
        case Opcode::Not: lanes(m, [&](unsigned l) { d[l] = ~a[l] & M; }); return;
        case Opcode::Cnot: lanes(m, [&](unsigned l) { d[l] = (a[l] & M) == 0 ? 1 : 0; }); return;
        default: break;
      }
      const uint64_t* b = Bv();
      if (in.op == Opcode::And) lanes(m, [&](unsigned l) { d[l] = a[l] & b[l] & M; });
      else if (in.op == Opcode::Or) lanes(m, [&](unsigned l) { d[l] = (a[l] | b[l]) & M; });
      else lanes(m, [&](unsigned l) { d[l] = (a[l] ^ b[l]) & M; });
      return;
    }
    case Opcode::Lop3: {
      const uint64_t *a = A(), *b = Bv(), *c = Cv();
      uint64_t* d = D();
      unsigned lut = unsigned(in.ops[4].imm) & 0xFF;
      lanes(m, [&](unsigned l) { d[l] = lop3(a[l], b[l], c[l], lut) & M; });
      return;
    }
    case Opcode::Shl:
    case Opcode::Shr: {
      const uint64_t *a = A(), *b = Bv();
      uint64_t* d = D();
      if (in.op == Opcode::Shl) {
        lanes(m, [&](unsigned l) {
          uint32_t s = uint32_t(b[l]);
          d[l] = s >= B ? 0 : (a[l] << s) & M;
        });
      } else if (S) {
        lanes(m, [&](unsigned l) {
          uint32_t s = uint32_t(b[l]);
          int64_t v = sext(a[l], B);
          d[l] = uint64_t(v >> (s >= B ? B - 1 : s)) & M;
        });
      } else {
        lanes(m, [&](unsigned l) {
          uint32_t s = uint32_t(b[l]);
          d[l] = s >= B ? 0 : (a[l] & M) >> s;
        });
      }
      return;
    }
    case Opcode::Shf: {
      const uint64_t *a = A(), *b = Bv(), *c = Cv();
      uint64_t* d = D();
      bool left = in.mod.flags & kShfLeft, wrap = in.mod.flags & kShfWrap;
      lanes(m, [&](unsigned l) {
        uint32_t n = uint32_t(c[l]);
        n = wrap ? (n & 31) : std::min(n, 32u);
        uint64_t x = (b[l] & 0xFFFFFFFFull) << 32 | (a[l] & 0xFFFFFFFFull);
        d[l] = left ? uint32_t((x << n) >> 32) : uint32_t(x >> n);
      });
      return;
    }
    case Opcode::Popc:
    case Opcode::Clz:
    case Opcode::Brev:
    case Opcode::Bfind: {
      const uint64_t* a = A();
      uint64_t* d = D();
      switch (in.op) {
        case Opcode::Popc: lanes(m, [&](unsigned l) { d[l] = uint64_t(__builtin_popcountll(a[l] & M)); }); return;
        case Opcode::Clz:
          lanes(m, [&](unsigned l) {
            uint64_t v = a[l] & M;
            d[l] = v ? uint64_t(__builtin_clzll(v)) - (64 - B) : B;
          });
          return;
        case Opcode::Brev:
          lanes(m, [&](unsigned l) {
            uint64_t v = a[l], r = 0;
            for (unsigned i = 0; i < B; ++i) r |= ((v >> i) & 1) << (B - 1 - i);
            d[l] = r;
          });
          return;
        default: {
          bool shamt = in.mod.flags & kShiftAmt;
          lanes(m, [&](unsigned l) {
            uint64_t v = a[l] & M;
            if (S && (v >> (B - 1)) & 1) v = ~v & M;  // signed: first bit differing from the sign
            if (!v) {
              d[l] = 0xFFFFFFFFu;
              return;
            }
            unsigned pos = 63 - unsigned(__builtin_clzll(v));
            d[l] = shamt ? (B - 1 - pos) : pos;
          });
          return;
        }
      }
    }
    case Opcode::Bfe: {
      const uint64_t *a = A(), *b = Bv(), *c = Cv();
      uint64_t* d = D();
      unsigned msb = B - 1;
      lanes(m, [&](unsigned l) {
        unsigned pos = unsigned(b[l] & 0xFF), len = unsigned(c[l] & 0xFF);
        uint64_t v = a[l] & M;
        uint64_t sbit = 0;
        if (S && len) sbit = (v >> std::min(pos + len - 1, msb)) & 1;
        uint64_t r = 0;
        for (unsigned i = 0; i <= msb; ++i) {
          uint64_t bit = (i < len && pos + i <= msb) ? (v >> (pos + i)) & 1 : sbit;
          r |= bit << i;
        }
        d[l] = r & M;
      });
      return;
    }
    case Opcode::Bfi: {
      // bfi f, a, b, c, d: insert a into b at pos c, length d.
      const uint64_t *a = A(), *b = Bv(), *c = Cv();
      const uint64_t* e = src(in.ops[4], w, m, sd);
      uint64_t tmp[32];
      unsigned msb = B - 1;
      lanes(m, [&](unsigned l) {
        unsigned pos = unsigned(c[l] & 0xFF), len = unsigned(e[l] & 0xFF);
        uint64_t r = b[l] & M;
        for (unsigned i = 0; i < len && pos + i <= msb; ++i) r = (r & ~(uint64_t{1} << (pos + i))) | (((a[l] >> i) & 1) << (pos + i));
        tmp[l] = r;
      });
      uint64_t* d = dst(in.ops[0], w, sa);
      lanes(m, [&](unsigned l) { d[l] = tmp[l]; });
      return;
    }
    case Opcode::Prmt: {
      const uint64_t *a = A(), *b = Bv(), *c = Cv();
      uint64_t* d = D();
      lanes(m, [&](unsigned l) { d[l] = prmt(uint32_t(a[l]), uint32_t(b[l]), uint32_t(c[l]), in.mod.prmt); });
      return;
    }
    case Opcode::Setp:
    case Opcode::Set: {
      bool setp = in.op == Opcode::Setp;
      DType ct = setp ? t : (in.type2 == DType::None ? t : in.type2);
      const uint64_t* a = src(in.ops[setp ? 2 : 1], w, m, sa);
      const uint64_t* b = src(in.ops[setp ? 3 : 2], w, m, sb);
      uint32_t cmask = 0;
      if (in.mod.boolop != BoolOp::None) cmask = pred_mask(in.ops[setp ? 4 : 3], w);
      unsigned cb = bits_of(ct);
      bool cs = is_signed(ct), cf = is_float(ct);
      // r: lanes whose comparison holds; p/q = boolop(r, c) / boolop(!r, c) lane by lane, as masks.
      uint32_t r;
      if (cf) {
        double x[32], y[32];
        if (ct == DType::F64) lanes(m, [&](unsigned l) { x[l] = f64(a[l]), y[l] = f64(b[l]); });
        else if (ct == DType::F16)
          lanes(m, [&](unsigned l) { x[l] = half_to_float(uint16_t(a[l])), y[l] = half_to_float(uint16_t(b[l])); });
        else lanes(m, [&](unsigned l) { x[l] = f32(a[l]), y[l] = f32(b[l]); });
        r = fcmp_mask(in.mod.cmp, m, x, y);
      } else {
        uint64_t x[32], y[32];
        if (cs) lanes(m, [&](unsigned l) { x[l] = uint64_t(sext(a[l], cb)), y[l] = uint64_t(sext(b[l], cb)); });
        else {
          uint64_t wm = wmask(cb);
          lanes(m, [&](unsigned l) { x[l] = a[l] & wm, y[l] = b[l] & wm; });
        }
        r = cs ? icmp_mask_signed(in.mod.cmp, m, x, y) : icmp_mask_unsigned(in.mod.cmp, m, x, y);
      }
      uint32_t p, q;
      switch (in.mod.boolop) {
        case BoolOp::And: p = r & cmask, q = ~r & cmask; break;
        case BoolOp::Or: p = r | cmask, q = ~r | cmask; break;
        case BoolOp::Xor: p = r ^ cmask, q = ~r ^ cmask; break;
        default: p = r, q = ~r; break;
      }
      p &= m;
      q &= m;
      if (setp) {
        write_pred(in.ops[0], w, m, p);
        write_pred(in.ops[1], w, m, q);
      } else {
        uint64_t* d = D();
        uint64_t one = t == DType::F32 ? 0x3F800000u : M;
        lanes(m, [&](unsigned l) { d[l] = ((p >> l) & 1) ? one : 0; });
      }
      return;
    }
    case Opcode::Selp: {
      const uint64_t *a = A(), *b = Bv();
      uint32_t p = pred_mask(in.ops[3], w);
      uint64_t* d = D();
      uint64_t mm = B ? M : ~uint64_t{0};
      lanes(m, [&](unsigned l) { d[l] = (((p >> l) & 1) ? a[l] : b[l]) & mm; });
      return;
    }
    case Opcode::Slct: {
      const uint64_t *a = A(), *b = Bv(), *c = Cv();
      uint64_t* d = D();
      bool cf = in.type2 == DType::F32;
      bool fz = in.mod.flags & kFtz;
      uint64_t mm = B ? M : ~uint64_t{0};
      lanes(m, [&](unsigned l) {
        bool ge;
        if (cf) {
          float x = f32(c[l]);
          if (fz) x = ftz(x);
          ge = x >= 0.0f;  // NaN selects b
        } else {
          ge = sext(c[l], 32) >= 0;
        }
        d[l] = (ge ? a[l] : b[l]) & mm;
      });
      return;
    }
    case Opcode::Shfl: {
      // PTX shfl.sync: c packs the clamp (bits 4:0) and segment mask (bits 12:8).
      uint64_t av[32];
      const uint64_t* a = src(in.ops[2], w, ~0u, sa);
      for (unsigned l = 0; l < 32; ++l) av[l] = a[l];
      const uint64_t *b = src(in.ops[3], w, m, sb), *c = src(in.ops[4], w, m, sc);
      uint64_t* d = D();
      uint32_t pv = 0;
      lanes(m, [&](unsigned l) {
        int lane = int(l), bval = int(b[l] & 31), cval = int(c[l] & 31), seg = int((c[l] >> 8) & 31);
        int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg;
        int j;
        bool ok;
        switch (in.mod.shfl) {
          case ShflMode::Up: j = lane - bval; ok = j >= maxl; break;
          case ShflMode::Down: j = lane + bval; ok = j <= maxl; break;
          case ShflMode::Bfly: j = lane ^ bval; ok = j <= maxl; break;
          default: j = minl | (bval & ~seg); ok = j <= maxl; break;
        }
        if (!ok) j = lane;
        d[l] = av[j & 31] & 0xFFFFFFFFull;
        pv |= uint32_t(ok) << l;
      });
      write_pred(in.ops[1], w, m, pv);
      return;
    }
    case Opcode::Vote: {
      uint32_t mem = ~0u;
      if (in.nops > 2 && in.ops[2].kind != OpKind::None) {
        const uint64_t* mk = src(in.ops[2], w, m, sc);
        mem = uint32_t(mk[__builtin_ctz(m)]);
      }
      uint32_t act = m & mem;
      uint32_t p = pred_mask(in.ops[1], w) & act;
      switch (in.mod.vote) {
        case VoteMode::Ballot: {
          uint64_t* d = D();
          lanes(m, [&](unsigned l) { d[l] = p; });
          return;
        }
        case VoteMode::All: write_pred(in.ops[0], w, m, p == act ? ~0u : 0u); return;
        case VoteMode::Any: write_pred(in.ops[0], w, m, p ? ~0u : 0u); return;
        default: write_pred(in.ops[0], w, m, (p == act || p == 0) ? ~0u : 0u); return;
      }
    }
    case Opcode::Activemask: {
      uint64_t* d = D();
      uint32_t am = g.mask;
      lanes(m, [&](unsigned l) { d[l] = am; });
      return;
    }
    case Opcode::Nanosleep: {
      const uint64_t* a = src(in.ops[0], w, m, sa);
      uint64_t ns = std::min<uint64_t>(a[__builtin_ctz(m)] & 0xFFFFFFFFull, 1000000);  // PTX: at most 1 ms
      uint64_t cyc = (ns * 1000 + period_ps_ - 1) / period_ps_;
      done_at_ = std::max(done_at_, now_ + cyc);
      return;
    }
    default:
      fail("decode", fmt::format("opcode {} not executable here", unsigned(in.op)), &w, -1, 0);
      return;
  }
}

// --- test access --------------------------------------------------------------------------------

uint64_t SimtCore::reg(unsigned b, unsigned tid, unsigned slot) const {
  const Warp& w = warps_.at(blocks_.at(b).first_warp + tid / cfg_.warp_size);
  return w.regs[size_t(slot) * 32 + tid % cfg_.warp_size];
}
bool SimtCore::pred(unsigned b, unsigned tid, unsigned slot) const {
  const Warp& w = warps_.at(blocks_.at(b).first_warp + tid / cfg_.warp_size);
  return (w.preds[slot] >> (tid % cfg_.warp_size)) & 1;
}
uint8_t* SimtCore::local(unsigned b, unsigned tid) {
  return blocks_.at(b).local.data() + size_t(tid) * lp_.local_bytes;
}

}  // namespace gpuvp
