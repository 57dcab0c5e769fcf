// Lockstep equivalence of rtl/block_scheduler.sv (through RtlBlockScheduler) and the SystemC
// model BlockScheduler, for 1..16 SMs and each policy: the same pins drive both; every cycle all
// outputs and every register (through the two registries, same names) are compared.
// Stimulus: random launch configurations within the field widths (mostly small grids that finish,
// sometimes huge ones, blocks_per_core 0..255), `en` raised at random instants, SMs that answer
// smp_en with smp_done after a random delay (plus spurious dones), synchronous resets in the
// middle of kernels, every input changing at random instants inside the cycles.
// The fault case flips, at several instants, one bit of every register in both implementations
// through the registry and checks that the following cycles stay equal.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "lockstep.h"
#include "rtl/block_scheduler_wrapper.h"

using namespace gpuvp;
using gpuvp::test::RegistryPairs;
using gpuvp::test::Rng;
using sc_core::SC_NS;
using sc_core::sc_signal;
using sc_core::sc_time;
using sc_core::sc_vector;

namespace {

const Clock kClk{sc_time(10, SC_NS)};

struct Outs {
  sc_signal<bool> rdy, kernel_done;
  sc_vector<sc_signal<uint32_t>> num_blocks, block_idx;
  sc_vector<sc_signal<bool>> smp_en, smp_reset;
  sc_signal<uint32_t> bx, by, bz, gx, gy, gz, tpb, shmem;
  explicit Outs(unsigned n)
      : num_blocks("num_blocks", n), block_idx("block_idx", n), smp_en("smp_en", n), smp_reset("smp_reset", n) {}
  void bind(BlockDispatcher& d) {
    d.rdy(rdy);
    d.kernel_done(kernel_done);
    for (unsigned i = 0; i < num_blocks.size(); ++i) {
      d.num_blocks[i](num_blocks[i]);
      d.block_idx[i](block_idx[i]);
      d.smp_en[i](smp_en[i]);
      d.smp_reset[i](smp_reset[i]);
    }
    d.dims.block_x(bx);
    d.dims.block_y(by);
    d.dims.block_z(bz);
    d.dims.grid_x(gx);
    d.dims.grid_y(gy);
    d.dims.grid_z(gz);
    d.dims.threads_per_block(tpb);
    d.dims.shmem_per_block(shmem);
  }
  std::string diff(const Outs& o) const {
    if (rdy.read() != o.rdy.read()) return "rdy";
    if (kernel_done.read() != o.kernel_done.read()) return "kernel_done";
    for (unsigned i = 0; i < num_blocks.size(); ++i) {
      if (num_blocks[i].read() != o.num_blocks[i].read()) return fmt::format("num_blocks[{}]", i);
      if (block_idx[i].read() != o.block_idx[i].read()) return fmt::format("block_idx[{}]", i);
      if (smp_en[i].read() != o.smp_en[i].read()) return fmt::format("smp_en[{}]", i);
      if (smp_reset[i].read() != o.smp_reset[i].read()) return fmt::format("smp_reset[{}]", i);
    }
    if (bx.read() != o.bx.read() || by.read() != o.by.read() || bz.read() != o.bz.read()) return "block dims";
    if (gx.read() != o.gx.read() || gy.read() != o.gy.read() || gz.read() != o.gz.read()) return "grid dims";
    if (tpb.read() != o.tpb.read()) return "threads_per_block";
    if (shmem.read() != o.shmem.read()) return "shmem_per_block";
    return "";
  }
};

struct Options {
  SchedPolicy policy = SchedPolicy::RoundRobin;
  unsigned seeds = 6;
  uint64_t cycles_per_seed = 10000;
  bool flips = false;  // flip every register at a few instants
};

struct Pair : sc_core::sc_module {
  unsigned n;
  Options opt;
  Registry reg_model, reg_rtl;
  sc_signal<bool> rst{"rst"}, en{"en"};
  sc_signal<uint32_t> bpc, gx, gy, gz, bx, by, bz, shmem, dyn, param;
  sc_vector<sc_signal<bool>> done;
  Outs om, orr;
  std::unique_ptr<BlockScheduler> model;
  std::unique_ptr<RtlBlockScheduler> rtl;
  uint64_t cycles_checked = 0, mismatches = 0, kernels = 0, batches = 0, flips = 0, flips_seen = 0;
  std::string first_error;
  bool finished = false;
  static inline unsigned live = 0, ended = 0;

  SC_HAS_PROCESS(Pair);
  Pair(sc_core::sc_module_name nm, unsigned n_, const Options& o)
      : sc_module(nm), n(n_), opt(o), done("done", n_), om(n_), orr(n_) {
    BlockSchedulerConfig c;
    c.num_sms = n;
    c.clock = kClk;
    c.policy = o.policy;
    c.seed = 0x1234567 + n;
    model = std::make_unique<BlockScheduler>("model", c, reg_model);
    rtl = std::make_unique<RtlBlockScheduler>("rtl", c, reg_rtl);
    for (BlockDispatcher* d : {static_cast<BlockDispatcher*>(model.get()), static_cast<BlockDispatcher*>(rtl.get())}) {
      d->rst(rst);
      d->en(en);
      d->launch.blocks_per_core(bpc);
      d->launch.grid_x(gx);
      d->launch.grid_y(gy);
      d->launch.grid_z(gz);
      d->launch.block_x(bx);
      d->launch.block_y(by);
      d->launch.block_z(bz);
      d->launch.shmem_size(shmem);
      d->launch.dyn_shmem_size(dyn);
      d->launch.param_size(param);
      for (unsigned i = 0; i < n; ++i) d->smp_done[i](done[i]);
    }
    om.bind(*model);
    orr.bind(*rtl);
    ++live;
    SC_THREAD(stimulus);
    SC_THREAD(checker);
  }

  void random_config(Rng& r) {
    const bool huge = r.chance(0.05);
    bpc.write(static_cast<uint32_t>(r.chance(0.05) ? r.bits(32) : r.chance(0.03) ? 0 : 1 + r.below(8)));
    gx.write(static_cast<uint32_t>(huge ? r.bits(32) : 1 + r.below(40)));
    gy.write(static_cast<uint32_t>(huge ? r.bits(16) : 1 + r.below(3)));
    gz.write(static_cast<uint32_t>(r.chance(0.02) ? 0 : huge ? r.bits(16) : 1 + r.below(2)));
    bx.write(static_cast<uint32_t>(r.bits(32)));
    by.write(static_cast<uint32_t>(r.bits(r.chance(0.5) ? 4 : 32)));
    bz.write(static_cast<uint32_t>(r.bits(r.chance(0.5) ? 2 : 32)));
    shmem.write(static_cast<uint32_t>(r.bits(r.chance(0.5) ? 12 : 32)));
    dyn.write(static_cast<uint32_t>(r.bits(r.chance(0.5) ? 10 : 32)));
    param.write(static_cast<uint32_t>(r.bits(r.chance(0.5) ? 5 : 32)));
  }

  void stimulus() {
    std::vector<int64_t> done_at(n, -1), done_until(n, -1);
    for (unsigned seed = 1; seed <= opt.seeds; ++seed) {
      Rng r(seed * 7919 + n * 31 + static_cast<unsigned>(opt.policy));
      random_config(r);
      const uint64_t end = kClk.cycle(sc_core::sc_time_stamp()) + opt.cycles_per_seed;
      const double sm_speed = r.chance(0.5) ? 0.3 : 0.05;
      while (kClk.cycle(sc_core::sc_time_stamp()) < end) {
        // The next instant: the following cycle at a random offset (sometimes exactly at the edge).
        sc_time now = sc_core::sc_time_stamp();
        sc_time next = kClk.next_edge(now) + sc_time(r.chance(0.2) ? 0.0 : static_cast<double>(r.below(10)), SC_NS);
        wait(next - now);
        const int64_t cyc = static_cast<int64_t>(kClk.cycle(sc_core::sc_time_stamp()));
        if (rst.read()) {
          if (r.chance(0.5)) rst.write(false);
        } else if (r.chance(0.0008)) {
          rst.write(true);
        }
        if (om.rdy.read() && !en.read() && r.chance(0.1)) {
          if (r.chance(0.5)) random_config(r);
          en.write(true);
        } else if (en.read() && r.chance(0.4)) {
          en.write(false);
        }
        if (r.chance(0.002)) random_config(r);  // configuration changed under a running kernel
        for (unsigned i = 0; i < n; ++i) {
          if (om.smp_en[i].read()) done_at[i] = cyc + static_cast<int64_t>(r.chance(sm_speed) ? r.below(4) : r.below(60));
          if (done_at[i] >= 0 && cyc >= done_at[i]) {
            done[i].write(true);
            done_until[i] = cyc + 1 + static_cast<int64_t>(r.below(3));
            done_at[i] = -1;
          } else if (done[i].read() && cyc >= done_until[i]) {
            done[i].write(false);
          } else if (r.chance(0.0005)) {
            done[i].write(true);  // spurious
            done_until[i] = cyc + 1;
          }
        }
      }
    }
    finished = true;  // the checker ends its loop, and the last one to end stops the simulation
  }

  void checker() {
    wait(kClk.period() / 2);
    RegistryPairs regs(reg_model, reg_rtl);
    Rng fr(n * 13 + 5);
    // The model's registers (the RTL has the same names), flipped one after another.
    std::vector<const Target*> targets = reg_model.all();
    size_t next_flip = 0;
    while (!finished) {
      ++cycles_checked;
      const uint64_t cyc = kClk.cycle(sc_core::sc_time_stamp());
      std::string d = om.diff(orr);
      if (d.empty()) d = regs.diff();
      if (!d.empty()) {
        if (first_error.empty()) first_error = fmt::format("cycle {}: {}", cyc, d);
        ++mismatches;
      }
      if (om.kernel_done.read()) ++kernels;
      for (unsigned i = 0; i < n; ++i)
        if (om.smp_en[i].read()) {
          ++batches;
          break;
        }
      // Fault injection: every 37 cycles the next register gets a bit flipped in both.
      if (opt.flips && cyc % 37 == 0) {
        const Target* t = targets[next_flip++ % targets.size()];
        unsigned bit = static_cast<unsigned>(fr.below(t->width));
        uint64_t before_m = reg_model.read(t->name);
        reg_model.flip(t->name, bit);
        reg_rtl.flip(t->name, bit);
        ++flips;
        if (reg_rtl.read(t->name) != before_m) ++flips_seen;
      }
      wait(kClk.period());
    }
    // Stopped only once every checker has left its loop: a thread still waiting at sc_stop never
    // unwinds, and what it holds on its stack would leak.
    if (++ended == live) sc_core::sc_stop();
  }
};

void run_policy(const Options& o) {
  std::vector<std::unique_ptr<Pair>> pairs;
  for (unsigned n = 1; n <= rtl::max_scheduler_sms(); ++n)
    pairs.push_back(std::make_unique<Pair>(fmt::format("pair{}", n).c_str(), n, o));
  sc_core::sc_start();
  for (auto& p : pairs) {
    INFO(to_string(o.policy) << ", " << p->n << " SMs: " << p->first_error);
    CHECK(p->mismatches == 0);
    CHECK(p->cycles_checked >= o.seeds * o.cycles_per_seed);
    CHECK(p->kernels > 0);
    CHECK(p->batches > 0);
    CHECK(p->rtl->evaluations() < p->cycles_checked);
    if (o.flips) {
      CHECK(p->flips > 2 * p->reg_model.all().size());  // every register, at several instants
      CHECK(p->flips_seen == p->flips);
    }
  }
}

}  // namespace

TEST_CASE("rtl scheduler: lockstep with the SystemC model, round robin, 1..16 SMs") {
  run_policy({SchedPolicy::RoundRobin});
}
TEST_CASE("rtl scheduler: lockstep with the SystemC model, ordered, 1..16 SMs") { run_policy({SchedPolicy::Ordered}); }
TEST_CASE("rtl scheduler: lockstep with the SystemC model, even_odd, 1..16 SMs") { run_policy({SchedPolicy::EvenOdd}); }
TEST_CASE("rtl scheduler: lockstep with the SystemC model, random, 1..16 SMs") { run_policy({SchedPolicy::Random}); }

TEST_CASE("rtl scheduler: a bit flipped in any register through the registry acts as in the model") {
  Options o;
  o.policy = SchedPolicy::Random;  // the random policy registers every register, prng included
  o.seeds = 3;
  o.flips = true;
  run_policy(o);
}
