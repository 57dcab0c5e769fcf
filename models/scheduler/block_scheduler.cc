#include "models/scheduler/block_scheduler.h"

#include <algorithm>
#include <stdexcept>

#include "models/common/log.h"

namespace gpuvp {

namespace {
constexpr uint32_t kM8 = 0xFF, kM16 = 0xFFFF;
unsigned popcount(uint64_t v) { return static_cast<unsigned>(__builtin_popcountll(v)); }
}  // namespace


const char* to_string(SchedPhase p) {
  switch (p) {
    case SchedPhase::Idle: return "idle";
    case SchedPhase::Configuration: return "configuration";
    case SchedPhase::Dispatch: return "dispatch";
    case SchedPhase::Wait: return "wait";
    case SchedPhase::Exchange: return "exchange";
  }
  return "?";
}

bool BlockScheduler::Regs::operator==(const Regs& o) const {
  return state == o.state && cnt == o.cnt && num_blocks == o.num_blocks && done_array == o.done_array &&
         block_idx == o.block_idx && bx == o.bx && by == o.by && bz == o.bz && gx == o.gx && gy == o.gy &&
         gz == o.gz && tpb == o.tpb && shmem == o.shmem && rdy == o.rdy && kernel_done == o.kernel_done &&
         smp_en == o.smp_en && smp_reset == o.smp_reset && prng == o.prng;
}

BlockScheduler::BlockScheduler(sc_core::sc_module_name name, const BlockSchedulerConfig& cfg, Registry& reg)
    : BlockDispatcher(name, cfg.num_sms), cfg_(cfg), n_(cfg.num_sms), edge_(cfg.clock), reg_(reg) {
  if (n_ == 0 || n_ > 64)
    throw std::invalid_argument(fmt::format("{}: scheduler needs 1..64 SMs, got {}", cfg.path, n_));
  all_ = n_ >= 64 ? ~uint64_t{0} : ((uint64_t{1} << n_) - 1);
  reset_.num_blocks.assign(n_, 0);
  reset_.block_idx.assign(n_, 0);
  reset_.prng = cfg.seed;
  r_ = reset_;
  batch_order_ = policy_order(cfg.policy, n_, r_.prng);

  const std::string& p = cfg.path;
  auto w = [this] { wake(); };
  reg.add_field(p + ".state", 3, &r_.state, w);
  reg.add_field(p + ".blocks_scheduled_cnt", 32, &r_.cnt, w);
  for (unsigned i = 0; i < n_; ++i) reg.add_field(fmt::format("{}.num_blocks[{}]", p, i), 8, &r_.num_blocks[i], w);
  reg.add_field(p + ".smp_done_array", n_, &r_.done_array, w);
  for (unsigned i = 0; i < n_; ++i) reg.add_field(p + ".block_idx[" + std::to_string(i) + "]", 32, &r_.block_idx[i], w);
  reg.add_field(p + ".block_x", 16, &r_.bx, w);
  reg.add_field(p + ".block_y", 16, &r_.by, w);
  reg.add_field(p + ".block_z", 16, &r_.bz, w);
  reg.add_field(p + ".grid_x", 16, &r_.gx, w);
  reg.add_field(p + ".grid_y", 16, &r_.gy, w);
  reg.add_field(p + ".grid_z", 16, &r_.gz, w);
  reg.add_field(p + ".threads_per_block", 32, &r_.tpb, w);
  reg.add_field(p + ".shmem_per_block", 32, &r_.shmem, w);
  reg.add_field(p + ".rdy", 1, &r_.rdy, w);
  reg.add_field(p + ".kernel_done", 1, &r_.kernel_done, w);
  reg.add_field(p + ".smp_en", n_, &r_.smp_en, w);
  reg.add_field(p + ".smp_reset", n_, &r_.smp_reset, w);
  if (cfg.policy == SchedPolicy::Random) reg.add_field(p + ".prng", 64, &r_.prng, w);
  track_accesses(reg);

  SC_METHOD(process);  // runs once at time 0: drives the reset outputs
  sensitive << rst << en;
  for (auto* pin : launch.all()) sensitive << *pin;
  for (unsigned i = 0; i < n_; ++i) sensitive << smp_done[i];
  sensitive << wake_ev_ << edge_.event();
  stats_.phases.push_back({SchedPhase::Idle, 0});
}

uint32_t BlockScheduler::compute_shmem_per_block(uint32_t shmem, uint32_t dyn_shmem, uint32_t param_words) {
  uint64_t bytes = 16 + uint64_t{shmem} + dyn_shmem + 4 * uint64_t{param_words};
  return static_cast<uint32_t>((bytes + 255) / 256 * 256);
}

uint64_t BlockScheduler::prng_step(uint64_t s) {
  // splitmix64: the state advances by the golden gamma, the output is a mix of the new state.
  uint64_t z = s + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<unsigned> BlockScheduler::policy_order(SchedPolicy p, unsigned n, uint64_t prng) {
  std::vector<unsigned> o;
  o.reserve(n);
  if (p == SchedPolicy::EvenOdd) {
    for (unsigned i = 0; i < n; i += 2) o.push_back(i);
    for (unsigned i = 1; i < n; i += 2) o.push_back(i);
    return o;
  }
  for (unsigned i = 0; i < n; ++i) o.push_back(i);
  if (p == SchedPolicy::Random) {
    // Fisher-Yates driven by successive splitmix64 outputs of the prng register value.
    uint64_t x = prng;
    for (unsigned i = n; i > 1; --i) {
      x = prng_step(x);
      std::swap(o[i - 1], o[x % i]);
    }
  }
  return o;
}

std::vector<uint32_t> BlockScheduler::batch_counts(SchedPolicy p, unsigned n, uint32_t bpc, uint64_t remaining,
                                                   const std::vector<unsigned>& order) {
  std::vector<uint32_t> c(n, 0);
  if (remaining >= uint64_t{n} * bpc) {
    std::fill(c.begin(), c.end(), bpc);
  } else if (p == SchedPolicy::RoundRobin) {
    uint64_t q = remaining / n, r = remaining % n;
    for (unsigned pos = 0; pos < n; ++pos) c[order[pos]] = static_cast<uint32_t>(q + (pos < r ? 1 : 0));
  } else {
    uint64_t left = remaining;
    for (unsigned pos = 0; pos < n; ++pos) {
      uint64_t take = std::min<uint64_t>(bpc, left);
      c[order[pos]] = static_cast<uint32_t>(take);
      left -= take;
    }
  }
  return c;
}

std::vector<uint64_t> BlockScheduler::blocks_of_sm(SchedPolicy p, const std::vector<uint32_t>& counts, uint64_t first,
                                                   unsigned sm) {
  std::vector<uint64_t> out;
  if (p == SchedPolicy::RoundRobin) {
    for (uint32_t j = 0; j < counts[sm]; ++j) out.push_back(first + sm + uint64_t{j} * counts.size());
  } else {
    uint64_t b = first;
    for (unsigned k = 0; k < sm; ++k) b += counts[k];
    for (uint32_t j = 0; j < counts[sm]; ++j) out.push_back(b + j);
  }
  return out;
}

BlockScheduler::Inputs BlockScheduler::sample() const {
  Inputs in;
  in.rst = rst.read();
  in.en = en.read();
  in.bpc = launch.blocks_per_core.read();
  in.gx = launch.grid_x.read();
  in.gy = launch.grid_y.read();
  in.gz = launch.grid_z.read();
  in.bx = launch.block_x.read();
  in.by = launch.block_y.read();
  in.bz = launch.block_z.read();
  in.shmem = launch.shmem_size.read();
  in.dyn = launch.dyn_shmem_size.read();
  in.param = launch.param_size.read();
  for (unsigned i = 0; i < n_; ++i)
    if (smp_done[i].read()) in.done |= uint64_t{1} << i;
  return in;
}

BlockScheduler::Regs BlockScheduler::next(const Regs& r, const Inputs& in) const {
  if (in.rst) return reset_;
  Regs x = r;
  x.kernel_done = false;
  x.smp_en = 0;
  x.smp_reset = 0;
  uint64_t active = 0;
  for (unsigned i = 0; i < n_; ++i)
    if (r.num_blocks[i] != 0) active |= uint64_t{1} << i;
  switch (r.state) {
    case CALC_BLOCKS: {
      uint64_t grid = uint64_t{in.gx & kM16} * (in.gy & kM16) * (in.gz & kM16);
      if (r.cnt >= grid) {
        x.kernel_done = true;
        x.rdy = true;
        x.state = IDLE;
      } else {
        if (cfg_.policy == SchedPolicy::Random) x.prng = prng_step(r.prng);
        x.num_blocks = batch_counts(cfg_.policy, n_, in.bpc & kM8, grid - r.cnt, policy_order(cfg_.policy, n_, x.prng));
        for (auto& v : x.num_blocks) v &= kM8;
        x.state = CHECK_BLOCKS;
      }
      break;
    }
    case CHECK_BLOCKS:
      x.bx = in.bx & kM16;
      x.by = in.by & kM16;
      x.bz = in.bz & kM16;
      x.gx = in.gx & kM16;
      x.gy = in.gy & kM16;
      x.gz = in.gz & kM16;
      x.tpb = static_cast<uint32_t>(uint64_t{x.bx} * x.by * x.bz);
      x.shmem = compute_shmem_per_block(in.shmem, in.dyn, in.param);
      // Round robin: every SM gets the batch's first block and runs b+k, b+k+S, ... (spec). Fill
      // policies: each SM runs a contiguous range, the ranges in SM-id order.
      for (unsigned i = 0, off = 0; i < n_; ++i) {
        x.block_idx[i] = r.cnt + (cfg_.policy == SchedPolicy::RoundRobin ? 0 : off);
        off += r.num_blocks[i];
      }
      x.state = SCHEDULE_BLOCKS;
      break;
    case SCHEDULE_BLOCKS: {
      uint32_t sum = 0;
      for (uint32_t v : r.num_blocks) sum += v;
      x.cnt = r.cnt + sum;
      x.smp_en = active;
      x.done_array = 0;
      x.state = SCHEDULE_WAIT;
      break;
    }
    case SCHEDULE_WAIT:
      x.done_array = (r.done_array | in.done) & all_;
      if (popcount(r.done_array & all_) == popcount(active) && active != 0) {
        x.smp_reset = active;
        x.state = CALC_BLOCKS;
      }
      break;
    default:  // IDLE and the unused encodings 5..7
      x.rdy = true;
      x.cnt = 0;
      x.state = IDLE;
      if (in.en) {
        x.rdy = false;
        x.state = CALC_BLOCKS;
      }
      break;
  }
  return x;
}

SchedPhase phase_of_state(unsigned state, bool smp_reset) {
  switch (state) {
    case BlockScheduler::CALC_BLOCKS: return smp_reset ? SchedPhase::Exchange : SchedPhase::Configuration;
    case BlockScheduler::CHECK_BLOCKS: return SchedPhase::Configuration;
    case BlockScheduler::SCHEDULE_BLOCKS: return SchedPhase::Dispatch;
    case BlockScheduler::SCHEDULE_WAIT: return SchedPhase::Wait;
    default: return SchedPhase::Idle;
  }
}

SchedPhase BlockScheduler::phase_of(const Regs& r) const { return phase_of_state(r.state, r.smp_reset != 0); }

void BlockScheduler::account(const Regs& b, const Regs& a, uint64_t cyc) {
  if (b.state == IDLE && a.state == CALC_BLOCKS) {
    ++stats_.kernels_started;
    log::debug(cfg_.path, "cycle {}: kernel start", cyc);
  }
  if (b.state == CALC_BLOCKS && a.state == CHECK_BLOCKS)
    batch_order_ = policy_order(cfg_.policy, n_, a.prng);
  if (b.state == SCHEDULE_BLOCKS && a.state == SCHEDULE_WAIT) {
    ++stats_.batches;
    BatchRecord rec;
    rec.kernel = stats_.kernels_started ? stats_.kernels_started - 1 : 0;
    rec.first_block = b.cnt;
    rec.num_blocks = b.num_blocks;
    rec.order = batch_order_;
    rec.dispatch_cycle = cyc;
    for (uint32_t v : b.num_blocks) stats_.blocks += v;
    log::debug(cfg_.path, "cycle {}: batch {} from block {}", cyc, stats_.batches, rec.first_block);
    if (record_history_) stats_.batch_log.push_back(std::move(rec));
  }
  if (a.kernel_done && !b.kernel_done) {
    ++stats_.kernels_done;
    log::debug(cfg_.path, "cycle {}: kernel done", cyc);
  }
  SchedPhase ph = phase_of(a);
  if (ph != cur_phase_) {
    stats_.phase_cycles[static_cast<int>(cur_phase_)] += cyc - phase_since_;
    cur_phase_ = ph;
    phase_since_ = cyc;
    if (record_history_) stats_.phases.push_back({ph, cyc});
  }
}

void BlockScheduler::track_accesses(Registry& reg) {
  const std::string& p = cfg_.path;
  auto take = [&](const std::string& name) {
    Target& t = reg.at_mut(name);
    t.reads_observed = true;
    return &t;
  };
  t_cnt_ = take(p + ".blocks_scheduled_cnt");
  t_done_ = take(p + ".smp_done_array");
  t_shmem_ = take(p + ".shmem_per_block");
  t_tpb_ = take(p + ".threads_per_block");  // no consumer reads its signal: written, never read
  for (const char* d : {"block_x", "block_y", "block_z", "grid_x", "grid_y", "grid_z"}) t_dims_.push_back(take(p + "." + d));
  for (const char* h : {"state", "rdy", "kernel_done", "smp_en", "smp_reset"}) read_always(reg.at_mut(p + "." + h));
  if (cfg_.policy == SchedPolicy::Random) t_prng_ = take(p + ".prng");  // read and replaced by a batch's draw
  for (unsigned i = 0; i < n_; ++i) {
    t_nb_.push_back(take(fmt::format("{}.num_blocks[{}]", p, i)));
    t_bidx_.push_back(take(fmt::format("{}.block_idx[{}]", p, i)));
  }
}

// What the edge from r to x (state r.state) reads and writes of the tracked registers. A clock-gated
// wait still reads smp_done_array and num_blocks at every edge (a flip there wakes the scheduler,
// which then compares them): one span from the dispatch edge to the edge leaving the wait. The SMs
// read num_blocks, block_idx and the dimensions (not threads_per_block) when smp_en rises, at the
// dispatch edge. IDLE writes blocks_scheduled_cnt at every edge; the edge leaving IDLE is recorded (a
// flip during IDLE is overwritten at the next edge, so nothing live lies between).
void BlockScheduler::note_accesses(const Regs& r, const Regs& x, const Inputs& in, uint64_t t) {
  auto rd = [&](const Target* g) { reg_.note(*g, 0, Access::Read, t); };
  auto wr = [&](const Target* g) { reg_.note(*g, 0, Access::Write, t); };
  auto each = [](const std::vector<const Target*>& v, auto f) {
    for (const Target* g : v) f(g);
  };
  if (in.rst) {
    for (const Target* g : {t_cnt_, t_done_, t_shmem_, t_tpb_}) wr(g);
    if (t_prng_) wr(t_prng_);
    each(t_nb_, wr), each(t_bidx_, wr), each(t_dims_, wr);
    return;
  }
  switch (r.state) {
    case CALC_BLOCKS:
      rd(t_cnt_);
      if (x.state == CHECK_BLOCKS) each(t_nb_, wr);
      if (x.state == CHECK_BLOCKS && t_prng_) rd(t_prng_), wr(t_prng_);
      break;
    case CHECK_BLOCKS:
      rd(t_cnt_);
      if (cfg_.policy != SchedPolicy::RoundRobin) each(t_nb_, rd);
      each(t_dims_, wr), each(t_bidx_, wr), wr(t_shmem_), wr(t_tpb_);
      break;
    case SCHEDULE_BLOCKS:
      rd(t_cnt_), wr(t_cnt_), each(t_nb_, rd), wr(t_done_);
      each(t_bidx_, rd), each(t_dims_, rd), rd(t_shmem_);  // the SMs enabled now read them
      wait_from_ps_ = t;
      break;
    case SCHEDULE_WAIT:
      if (x.state == SCHEDULE_WAIT) break;
      reg_.note(*t_done_, 0, Access::ReadSpan, wait_from_ps_, t);
      for (const Target* g : t_nb_) reg_.note(*g, 0, Access::ReadSpan, wait_from_ps_, t);
      break;
    default:
      wr(t_cnt_);
      break;
  }
}

void BlockScheduler::process() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  Inputs in = sample();
  if (edge_.take()) {
    ++stats_.evaluations;
    Regs x = next(r_, in);
    account(r_, x, cfg_.clock.cycle(now));
    if (reg_.recording()) note_accesses(r_, x, in, now.value());
    // Copy, not move: the registry holds pointers into r_.num_blocks and r_.block_idx.
    r_ = x;
  }
  drive();
  if (next(r_, in) != r_) {
    edge_.request();
  }
}

void BlockScheduler::drive() {
  auto put = [](auto& port, auto v) {
    if (port.read() != v) port.write(v);
  };
  put(rdy, r_.rdy);
  put(kernel_done, r_.kernel_done);
  for (unsigned i = 0; i < n_; ++i) {
    put(num_blocks[i], r_.num_blocks[i]);
    put(block_idx[i], r_.block_idx[i]);
    put(smp_en[i], static_cast<bool>(r_.smp_en >> i & 1u));
    put(smp_reset[i], static_cast<bool>(r_.smp_reset >> i & 1u));
  }
  put(dims.block_x, r_.bx);
  put(dims.block_y, r_.by);
  put(dims.block_z, r_.bz);
  put(dims.grid_x, r_.gx);
  put(dims.grid_y, r_.gy);
  put(dims.grid_z, r_.gz);
  put(dims.threads_per_block, r_.tpb);
  put(dims.shmem_per_block, r_.shmem);
}

}  // namespace gpuvp
