#include "models/sm/sm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <vector>

#include "models/common/digest.h"
#include "sw/isa/address_map.h"
#include "models/cache/timed_cache.h"
#include "models/common/requester_instant.h"
#include "models/common/demand_extension.h"
#include "models/common/hold_extension.h"
#include "models/common/log.h"
#include "models/memprot/data_objects.h"
#include "sw/isa/config_regs.h"
#include "models/power/activity.h"
#include "models/sm/simt_core.h"

namespace gpuvp {

// Controller state and the CoreEnv the SIMT core runs against: every outside access becomes one
// b_transport whose annotated delay is the core's local time offset (temporal decoupling).
class SmCore : public CoreEnv {
 public:
  enum State : uint32_t { Idle = 0, Setup = 1, Running = 2, Done = 3, Error = 4 };

  SmCore(Sm& sm, const SmConfig& cfg, Registry& reg, ErrorSink& errors, const std::string& path, PrintSink* prints)
      : sm_(sm), cfg_(cfg), errors_(errors), prints_(prints), path_(path), reg_(reg), core_(cfg, *this) {
    pv_ = cfg.clock.period().value();
    reg.add_field(path + ".state", 3, &state_);
    reg.add_field(path + ".num_blocks", 32, &num_blocks_);
    reg.add_field(path + ".block_idx", 32, &block_idx_);
    reg.add_field(path + ".done", 1, &done_);
    track_controller(reg, path);
    Target t;
    t.name = path + ".smem";
    t.kind = TargetKind::Memory;
    t.width = 8;
    t.count = core_.smem().size();
    uint8_t* mem = core_.smem().data();  // never reallocated after construction
    t.get = [mem](uint64_t i) { return uint64_t(mem[i]); };
    t.set = [mem](uint64_t i, uint64_t v) { mem[i] = uint8_t(v); };
    const size_t bytes = core_.smem().size();
    t.digest = [mem, bytes] { return digest_nonzero(mem, bytes); };
    reg.add(std::move(t));
    core_.register_state(reg, path);
    build_caches(reg);
  }

  void set_data_objects(DataObjects* d) { objs_ = d; }
  void record_issues(bool on) { core_.set_issue_log(on ? &issues_ : nullptr); }
  void set_retire_observer(RetireObserver* o) { core_.set_retire_observer(o); }
  void record_blocks(bool on) { record_blocks_ = on; }
  std::vector<uint64_t> issue_times() const {
    std::vector<uint64_t> ps(issues_.size());
    for (size_t i = 0; i < ps.size(); ++i) ps[i] = issues_[i] * pv_;
    return ps;
  }

  void set_horizon(uint64_t ps) { core_.set_horizon(ps == ~uint64_t{0} ? ps : (ps + pv_ - 1) / pv_); }

  // Through the port's cache when the SM has one (sm_caches.h), else straight to the port.
  uint64_t access(Port port, uint64_t addr, uint8_t* data, unsigned len, bool write, AtomicExtension* atomic,
                  uint64_t at, Fault& fault) override {
    if (objs_ && objs_->observer && port != Port::Fetch && port != Port::Const) observe(addr, len, write);
    if (atomic && l1d_) l1d_->clean(addr, addr + len, true, at);  // performed at the memory: the L1 copy is stale
    TimedCache* c = atomic ? nullptr : cache(port);
    if (act_ && c) act_->add(at, cache_event(c, write));
    const bool bypass = !c && l1d_ && !atomic && port == Port::GlobalRead;  // a plain load the L1 does not cache
    if (!c && !bypass) return transport(socket(port), addr, data, len, write, atomic, at, fault);
    // The L1 pipeline takes the SM's next access the cycle after this one: its misses (and the
    // plain loads it does not cache, which still cross it) wait in its queue, not in the SM.
    uint64_t done;
    if (!c) {
      // A write-back L1 may hold this SM's own newer bytes of the line: they reach the L2 first.
      if (l1d_->core().dirty(addr, len)) l1d_->clean(addr, addr + len, false, at);
      done = transport(socket(port), addr, data, len, write, atomic, at + cfg_.caches.l1d.latency, fault);
      release_ = at + 1;
      return done;
    }
    fault_ = &fault;
    if (c == l1d_.get() && cfg_.caches.gmem_allows && !cfg_.caches.gmem_allows(addr, len)) {
      // Refused as the memory refuses it, whether or not the L1 holds the line.
      trans_.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      fault.kind = "address";
      release_ = at + 1;
    } else {
      done = write ? c->write(addr, data, len, at) : c->read(addr, data, len, at);
      release_ = c->accepted() + 1;
      if (done != TimedCache::kFail) return done;
      if (fault.kind == kDetected) return kFail;  // the copies' mismatch names itself
    }
    // Name the access itself, not the cache's sector fetch that failed for it.
    fault.message = fmt::format("{} on {} {} of {} bytes at {:#x}", trans_.get_response_string(),
                                socket(port).basename(), write ? "write" : "read", len, addr);
    return kFail;
  }

  power::Event cache_event(const TimedCache* c, bool write) const {
    if (c == icache_.get()) return power::Event::ICache;
    if (c == ccache_.get()) return power::Event::ConstCache;
    return write ? power::Event::L1dWrite : power::Event::L1dRead;
  }

  TimedCache* cache(Port port) {
    switch (port) {
      case Port::Fetch: return icache_.get();
      case Port::Const: return ccache_.get();
      case Port::GlobalReadNc:
      case Port::GlobalWrite: return l1d_.get();
      case Port::GlobalRead: break;
    }
    return cfg_.caches.l1d_global ? l1d_.get() : nullptr;
  }

  tlm_utils::simple_initiator_socket<Sm>& socket(Port port) {
    switch (port) {
      case Port::Fetch: return sm_.imem;
      case Port::Const: return sm_.cmem;
      case Port::GlobalWrite: return sm_.gmem_wr;
      case Port::GlobalRead:
      case Port::GlobalReadNc: break;
    }
    return sm_.gmem_rd;
  }

  // Each cache's misses and write-throughs go out through its port's socket (writes of the L1
  // through the global write port), carrying the bytes the access asked for (DemandExtension).
  std::unique_ptr<TimedCache> make_cache(const SmCacheConfig& c, Port read_port, Port write_port, Registry& reg,
                                         const char* name, std::function<void()> on_write = {}) {
    if (!c.present()) return nullptr;
    CacheGeometry g = c.geometry;
    g.name = path_ + "." + name;
    auto next = [this, read_port, write_port](const NextAccess& n) {
      demand_.addr = n.demand_addr;
      demand_.len = n.demand_len;
      return transport(socket(n.write ? write_port : read_port), n.addr, n.data, n.len, n.write, nullptr, n.at, *fault_,
                       &demand_);
    };
    // Only the L1s sit side by side, one per SM, without coherence: they write back bytes.
    const bool bytes = read_port == Port::GlobalRead;
    auto tc = std::make_unique<TimedCache>(g, CacheTiming{c.latency, c.banks, bytes}, next);
    tc->register_state(reg, g.name, [this] { return core_.access_instant_ps(); }, pv_, std::move(on_write));
    return tc;
  }
  void build_caches(Registry& reg) {
    l1d_ = make_cache(cfg_.caches.l1d, Port::GlobalRead, Port::GlobalWrite, reg, "l1d");
    ccache_ = make_cache(cfg_.caches.ccache, Port::Const, Port::Const, reg, "ccache");
    // The instruction buffer keeps copies of the icache's lines: an injection there must reach decode.
    icache_ = make_cache(cfg_.caches.icache, Port::Fetch, Port::Fetch, reg, "icache",
                         [this] { core_.code_cache_written(); });
  }
  void fetch_view(uint64_t addr, uint8_t* data, unsigned len) override {
    if (icache_) icache_->overlay(addr, data, len);
  }
  bool fetch_watched() const override { return icache_ && reg_.recording(); }
  // Both only grow (the instant, as access_instant_ps gives it; the count of changes).
  ViewKey fetch_view_key() override {
    if (!icache_ || !reg_.recording()) return {};
    return {true, core_.access_instant_ps(), icache_->overlay_changes()};
  }
  // A new kernel's first block on this SM: the L1 and constant caches are not coherent with other
  // SMs' and the host's writes, so they start empty (as the driver invalidates them at a launch);
  // the instruction cache too (a module loaded since may reuse code addresses).
  void invalidate_caches(uint64_t at) {
    for (TimedCache* c : {l1d_.get(), ccache_.get(), icache_.get()})
      if (c) c->invalidate(at);
  }

 public:
  // A write-back L1's dirty lines to the L2 at `at` (kept, clean): GPU L1s are not coherent, so what
  // this SM stored becomes visible to the host and the other SMs at the end of its part of a kernel
  // and at a membar.gl / membar.sys (docs/caches.md, "Write-back L1").
  void fence(uint64_t at) override {
    if (l1d_) l1d_->write_back_all(at);
  }

 public:
  std::vector<std::pair<std::string, CacheStats>> cache_stats() const {
    std::vector<std::pair<std::string, CacheStats>> out;
    if (l1d_) out.emplace_back("l1d", l1d_->stats());
    if (ccache_) out.emplace_back("ccache", ccache_->stats());
    if (icache_) out.emplace_back("icache", icache_->stats());
    return out;
  }

 private:
  std::unique_ptr<TimedCache> l1d_, ccache_, icache_;
  Fault* fault_ = nullptr;  // the current access's, for its cache's next-level transports
  RequesterInstant instant_;

  // While the registry records: the core's instant on the transaction (requester_instant.h), so
  // that the targets behind it (L2, memories) order its accesses against a stop at that instant.
  RequesterInstant::Forward stamp(tlm::tlm_generic_payload& p) {
    return {p, instant_, reg_.recording() ? core_.access_instant_ps() : 0};
  }
  DemandExtension demand_;

 public:

  bool peek(Port port, uint64_t addr, uint8_t* data, unsigned len, Fault& fault) override {
    tlm::tlm_generic_payload& t = dbg_;
    t.set_read();
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(len);
    t.set_streaming_width(len);
    auto& s = socket(port);
    unsigned got;
    {
      const auto stamped = stamp(t);
      got = s->transport_dbg(t);
    }
    if (got >= len) return true;
    fault.kind = "address";
    fault.message = fmt::format("no memory behind {} for a read of {} bytes at {:#x}", s.basename(), len, addr);
    return false;
  }

  uint64_t last_release() const override { return release_; }

  void print(DevicePrint line) override {
    if (prints_) prints_->add(std::move(line));
  }
  size_t print_capacity() const override { return prints_ ? size_t(prints_->capacity()) : 0; }

  uint64_t sim_ps() const override { return sc_core::sc_time_stamp().value(); }

  void sync(uint64_t at) override {
    sc_core::sc_time t = sc_core::sc_time::from_value(at * pv_);
    if (t > sc_core::sc_time_stamp()) sc_core::wait(t - sc_core::sc_time_stamp());
    settle();
  }

  void controller();
  void batch();  // one smp_en: set up, run, done pulse (or a reported error)
  // Concurrent mode: blocks from the dispatcher, one at a time, among those running.
  void blocks_loop();
  void assign(const BlockWork& w) {
    arrived_.push_back(w);
    arrival_.notify(sc_core::SC_ZERO_TIME);
  }
  void connect(BlockDoneSink& d, const ConcurrentHorizon* h) {
    done_sink_ = &d;
    horizon_src_ = h;
  }
  bool work_waiting() const override { return !arrived_.empty(); }
  // Every warp waits until `until`: wait for then, or for a block arriving before.
  uint64_t idle(uint64_t until) override {
    if (!cfg_.concurrent) return CoreEnv::idle(until);
    const sc_core::sc_time t = sc_core::sc_time::from_value(until * pv_);
    if (arrived_.empty() && t > sc_core::sc_time_stamp()) sc_core::wait(t - sc_core::sc_time_stamp(), arrival_);
    settle();
    return std::min<uint64_t>(until, (sc_core::sc_time_stamp().value() + pv_ - 1) / pv_);
  }
  // Concurrent mode: simulated time reached the core; a block the dispatcher assigns at this very
  // instant (its edge method runs in the instant's first delta, as this thread may) is seen too.
  void settle() {
    if (cfg_.concurrent) sc_core::wait(sc_core::SC_ZERO_TIME);
  }
  uint64_t no_arrival_before(uint64_t /*now*/) const override {
    if (!horizon_src_) return ~uint64_t{0};
    const uint64_t ps = horizon_src_->no_assignment_before_ps();
    return ps == ConcurrentHorizon::kUnknown ? kUnknown : ps / pv_;  // the cycle of that instant (an edge)
  }
  void reset() {
    note(t_state_, Access::Read);
    if (state_ == Setup || state_ == Running) return;  // a batch in flight is not interrupted
    core_.clear();
    num_blocks_ = block_idx_ = 0;
    done_ = false;
    state_ = Idle;
    for (const Target* t : {t_nb_, t_bidx_, t_done_, t_state_}) note(t, Access::Write);
  }

  const SmConfig& config() const { return cfg_; }
  const SmStats& stats() const { return core_.stats(); }
  const std::vector<BlockRecord>& records() const { return records_; }

 private:
  static constexpr const char* kDetected = "detected";

  // Every transaction leaving the SM. Global data transactions meet the data objects: the profiler
  // counts the reads that leave (L1 misses) and protected objects' copies are accessed too.
  uint64_t transport(tlm_utils::simple_initiator_socket<Sm>& s, uint64_t addr, uint8_t* data, unsigned len, bool write,
                     AtomicExtension* atomic, uint64_t at, Fault& fault, DemandExtension* demand = nullptr) {
    if (!objs_ || !(objs_->observer || objs_->protecting()) || (&s != &sm_.gmem_rd && &s != &sm_.gmem_wr))
      return transport_one(s, addr, data, len, write, atomic, at, fault, demand);
    // A sector fetch may start before or end after the object: its demanded bytes say whose it is.
    const uint64_t key = demand ? demand->addr : addr;
    const size_t oi = objs_->find(key);
    if (oi != DataObjects::kNone && objs_->observer && !write && !atomic)
      objs_->observer->l1_miss(oi, key, demand ? demand->len : len);
    if (oi == DataObjects::kNone || objs_->objects()[oi].replicas.empty())
      return transport_one(s, addr, data, len, write, atomic, at, fault, demand);
    return replicated(objs_->objects()[oi], s, addr, data, len, write, atomic, at, fault, demand);
  }

  void observe(uint64_t addr, unsigned len, bool write) {
    const size_t oi = objs_->find(addr);
    if (oi != DataObjects::kNone) objs_->observer->access(oi, addr, len, write, warp_tag);
  }

  // The access once per copy of object `o`, all issued at `at` (the ports and DRAM serialise them).
  // A write (or atomic) completes when every copy has it. A read of two copies goes on with the first
  // to arrive and compares when the second arrives; of three, waits for all and takes the majority.
  uint64_t replicated(const DataObject& o, tlm_utils::simple_initiator_socket<Sm>& s, uint64_t addr, uint8_t* data,
                      unsigned len, bool write, AtomicExtension* atomic, uint64_t at, Fault& fault,
                      DemandExtension* demand) {
    uint64_t done[3];
    done[0] = transport_one(s, addr, data, len, write, atomic, at, fault, demand);
    if (done[0] == kFail) return kFail;
    const size_t n = 1 + o.replicas.size();
    for (size_t k = 1; k < n; ++k) {
      const uint64_t shift = o.replicas[k - 1] - o.base;
      std::vector<uint8_t>& buf = copy_buf_[k - 1];
      buf.assign(data, data + len);
      DemandExtension d2;
      if (demand) d2.addr = demand->addr + shift, d2.len = demand->len;
      AtomicExtension& a2 = copy_atom_[k - 1];
      if (atomic) a2 = *atomic;  // the same operation on every copy
      done[k] = transport_one(s, addr + shift, buf.data(), len, write, atomic ? &a2 : nullptr, at, fault,
                              demand ? &d2 : nullptr);
      if (done[k] == kFail) return kFail;
    }
    if (atomic) return atomic_result(o, *atomic, addr, n, done, fault);  // (an atomic is a write too)
    if (write) return *std::max_element(done, done + n);
    const uint64_t lo = std::max(addr, o.base) - addr, hi = std::min(addr + len, o.base + o.size) - addr;
    if (n == 3) {
      majority3(data + lo, copy_buf_[0].data() + lo, copy_buf_[1].data() + lo, data + lo, hi - lo);
      return *std::max_element(done, done + n);
    }
    if (std::memcmp(data + lo, copy_buf_[0].data() + lo, hi - lo) != 0) {
      fault.kind = kDetected;
      // The core prefixes the kind ("detected error: "), as for every device error.
      fault.message = fmt::format("the two copies of '{}' differ in [{:#x}, {:#x})", o.name,
                                  addr + lo, addr + hi);
      return kFail;
    }
    return std::min(done[0], done[1]);  // equal data: the first to arrive is used
  }

  // An atomic on every copy: the old values compared (duplication) or voted (triplication) as a
  // read's data is, so a fault in one copy is detected or corrected here too.
  uint64_t atomic_result(const DataObject& o, AtomicExtension& first, uint64_t addr, size_t n, const uint64_t* done,
                         Fault& fault) {
    const uint64_t* olds[3] = {&first.old, &copy_atom_[0].old, &copy_atom_[1].old};
    if (n == 3) {
      uint8_t* r = reinterpret_cast<uint8_t*>(&first.old);
      majority3(r, reinterpret_cast<const uint8_t*>(olds[1]), reinterpret_cast<const uint8_t*>(olds[2]), r, 8);
    } else if (*olds[0] != *olds[1]) {
      fault.kind = kDetected;
      fault.message = fmt::format("the two copies of '{}' differ at {:#x} (atomic)", o.name, addr);
      return kFail;
    }
    return *std::max_element(done, done + n);
  }

  uint64_t transport_one(tlm_utils::simple_initiator_socket<Sm>& s, uint64_t addr, uint8_t* data, unsigned len,
                         bool write, AtomicExtension* atomic, uint64_t at, Fault& fault,
                         DemandExtension* demand = nullptr) {
    using namespace sc_core;
    if (act_ && &s != &sm_.cfg) act_->add(at, power::Event::Offchip);
    sc_time now = sc_time_stamp();
    sc_time t = sc_time::from_value(at * pv_);
    sc_time delay = t > now ? t - now : SC_ZERO_TIME;
    trans_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    trans_.set_address(addr);
    trans_.set_data_ptr(data);
    trans_.set_data_length(len);
    trans_.set_streaming_width(len);
    trans_.set_byte_enable_ptr(nullptr);
    trans_.set_byte_enable_length(0);
    trans_.set_dmi_allowed(false);
    trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (atomic) trans_.set_extension(atomic);
    if (demand) trans_.set_extension(demand);
    release_ext_.valid = false;
    trans_.set_extension(&release_ext_);
    {
      const auto stamped = stamp(trans_);
      s->b_transport(trans_, delay);
    }
    trans_.clear_extension(&release_ext_);
    if (demand) trans_.clear_extension(demand);
    if (atomic) trans_.clear_extension(atomic);
    if (!trans_.is_response_ok()) {
      fault.kind = trans_.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE ? "address" : "tlm";
      fault.message = fmt::format("{} on {} {} of {} bytes at {:#x}", trans_.get_response_string(), s.basename(),
                                  atomic ? "atomic" : write ? "write" : "read", len, addr);
      return kFail;
    }
    // The call returns when the port is released; the annotated delay is the pipelined rest.
    const sc_time freed = release_ext_.valid ? release_ext_.at : sc_time_stamp();
    release_ = (freed.value() + pv_ - 1) / pv_;
    uint64_t done = (sc_time_stamp() + delay).value();
    return (done + pv_ - 1) / pv_;
  }

  bool read_cfg(unsigned index, uint32_t& v, uint64_t& t) {
    Fault f;
    uint8_t b[4];
    uint64_t r = transport(sm_.cfg, amap::kConfigBase + 4ull * index, b, 4, false, nullptr, t, f);
    if (r == kFail) {
      DeviceErrorInfo e;
      e.kind = f.kind;
      e.sm = int(cfg_.id);
      e.address = amap::kConfigBase + 4ull * index;
      e.message = fmt::format("{} error: configuration read failed: {} (sm {})", f.kind, f.message, cfg_.id);
      report(e);
      return false;
    }
    t = r;
    v = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
    return true;
  }

  // Access recording of the controller registers (faultinj/lifetimes.h), at simulated time: the
  // controller thread and the reset method touch them there (the core running ahead never does).
  // state is read by reset only, num_blocks and block_idx when a batch's block list is made (after its
  // configuration reads), done by nothing (the done pulse is a signal of its own); every assignment
  // replaces a whole register.
  void track_controller(Registry& reg, const std::string& path) {
    const Target** mine[] = {&t_state_, &t_nb_, &t_bidx_, &t_done_};
    const char* names[] = {".state", ".num_blocks", ".block_idx", ".done"};
    for (size_t i = 0; i < 4; ++i) {
      Target& t = reg.at_mut(path + names[i]);
      t.reads_observed = true;
      *mine[i] = &t;
    }
  }
  void note(const Target* t, Access kind) const {
    if (reg_.recording()) reg_.note(*t, 0, kind, sc_core::sc_time_stamp().value());
  }

  void report(const DeviceErrorInfo& e) {
    state_ = Error;
    note(t_state_, Access::Write);
    log::error(path_, "{}", e.message);
    errors_.report(e);
  }

  Sm& sm_;
  SmConfig cfg_;
  ErrorSink& errors_;
  PrintSink* prints_;
  std::string path_;
  Registry& reg_;
  SimtCore core_;
  uint64_t pv_ = 1;  // clock period in sc_time ticks
  // The payload borrows the core's AtomicExtension around an atomic transaction, and our
  // ReleaseExtension (and while recording our RequesterInstant) around every one. If the simulation stops while a transaction is in flight
  // (timeout, another SM's error) they are still attached: detach them so that the payload does not
  // free what it does not own.
  struct Payload : tlm::tlm_generic_payload {
    ~Payload() {
      clear_extension<AtomicExtension>();
      clear_extension<ReleaseExtension>();
      clear_extension<DemandExtension>();
      clear_extension<RequesterInstant>();
    }
  } trans_;
  ReleaseExtension release_ext_;  // when the port frees (arbitrated_port.h)
  tlm::tlm_generic_payload dbg_;  // debug reads (peek), reused: no extension but the instant while recording
  std::vector<BlockRecord> records_;
  bool record_blocks_ = true;  // a record per block (40 bytes): a timeline of a huge grid is asked for, not kept
  std::vector<uint64_t> issues_;
  // Concurrent mode.
  BlockDoneSink* done_sink_ = nullptr;
  const ConcurrentHorizon* horizon_src_ = nullptr;
  std::vector<BlockWork> arrived_;  // assigned, not yet added to the core
  sc_core::sc_event arrival_;
  std::map<std::pair<uint64_t, uint64_t>, BlockWork> running_;  // (launch id, block) -> its work
  bool launch_running(uint64_t launch_id) const {
    auto it = running_.lower_bound({launch_id, 0});
    return it != running_.end() && it->first.first == launch_id;
  }
  std::map<uint64_t, std::shared_ptr<const LaunchParams>> kernels_;  // launch id -> the core's view
  bool take_arrivals();
  void report_completions();
  static constexpr uint64_t kNotBusy = ~uint64_t{0};
  uint64_t busy_since_ = kNotBusy;  // issue cycles when recording (fault-injection triggers)
  power::ActivityLog* act_ = nullptr;  // what consumes energy, per interval (models/power); null: not counted
  void powered(uint64_t cycle, bool on) {
    if (act_) act_->set_powered(cycle, on);
  }

 public:
  void set_activity(power::ActivityLog* log) {
    act_ = log;
    core_.set_activity(log);
  }
  void set_distributor(std::unique_ptr<sm::ClusterDistributor> d) { core_.set_distributor(std::move(d)); }

 private:
  // Registered controller state.
  uint32_t state_ = Idle;
  uint32_t num_blocks_ = 0;
  uint32_t block_idx_ = 0;
  uint64_t release_ = 0;  // cycle the last transaction released its port
  bool done_ = false;
  const Target *t_state_ = nullptr, *t_nb_ = nullptr, *t_bidx_ = nullptr, *t_done_ = nullptr;
  DataObjects* objs_ = nullptr;            // the platform's data objects (profiler, protection); may be null
  std::vector<uint8_t> copy_buf_[2];       // the copies' data of a replicated access
  AtomicExtension copy_atom_[2];           // the copies' operations of a replicated atomic
};

void SmCore::controller() {
  using namespace sc_core;
  if (cfg_.concurrent) return blocks_loop();
  for (;;) {
    // Gated: sleep on the enable signal, never poll the clock.
    while (!sm_.smp_en.read()) wait(sm_.smp_en.value_changed_event());
    batch();
    while (sm_.smp_en.read()) wait(sm_.smp_en.value_changed_event());
  }
}

void SmCore::batch() {
  using namespace sc_core;
  {
    num_blocks_ = sm_.num_blocks.read();
    block_idx_ = sm_.block_idx.read();
    done_ = false;
    for (const Target* t : {t_nb_, t_bidx_, t_done_}) note(t, Access::Write);
    note(t_nb_, Access::Read);
    if (num_blocks_ == 0) return;
    state_ = Setup;
    note(t_state_, Access::Write);
    uint64_t start = cfg_.clock.cycle(cfg_.clock.next_edge(sc_time_stamp()));
    uint64_t t = start;
    LaunchParams lp;
    lp.block[0] = sm_.dims.block_x.read();
    lp.block[1] = sm_.dims.block_y.read();
    lp.block[2] = sm_.dims.block_z.read();
    lp.grid[0] = sm_.dims.grid_x.read();
    lp.grid[1] = sm_.dims.grid_y.read();
    lp.grid[2] = sm_.dims.grid_z.read();
    lp.smem_per_block = sm_.dims.shmem_per_block.read();
    uint32_t v[cfgreg::kLaunchId + 1] = {};
    static const unsigned kRegs[] = {cfgreg::kNumGprs,     cfgreg::kShmemSize, cfgreg::kParamSize,   cfgreg::kDynShmemSize,
                                     cfgreg::kEntryLo,     cfgreg::kEntryHi,   cfgreg::kLocalBytes,  cfgreg::kNumRegSlots,
                                     cfgreg::kNumPreds,    cfgreg::kLaunchId};
    bool ok = true;
    for (unsigned r : kRegs)
      if (ok) ok = read_cfg(r, v[r], t);
    uint32_t pwords = std::min<uint32_t>(v[cfgreg::kParamSize], cfgreg::kParamWords);
    lp.params.resize(size_t(pwords) * 4);
    for (uint32_t i = 0; ok && i < pwords; ++i) {
      uint32_t w = 0;
      ok = read_cfg(cfgreg::kParamBase + i, w, t);
      std::memcpy(lp.params.data() + 4 * i, &w, 4);
    }
    if (!ok) return;  // reported; never done for this batch
    lp.entry = uint64_t(v[cfgreg::kEntryHi]) << 32 | v[cfgreg::kEntryLo];
    lp.regs_per_thread = v[cfgreg::kNumGprs];
    lp.static_shared = v[cfgreg::kShmemSize];
    lp.dyn_shared = v[cfgreg::kDynShmemSize];
    lp.local_bytes = v[cfgreg::kLocalBytes];
    lp.num_regs = v[cfgreg::kNumRegSlots];
    lp.num_preds = v[cfgreg::kNumPreds];
    lp.launch_id = v[cfgreg::kLaunchId];
    // Block identity (block-scheduler.md): b + id + j * num_sms, or a contiguous range for the fill policies.
    note(t_nb_, Access::Read);
    note(t_bidx_, Access::Read);
    for (uint32_t j = 0; j < num_blocks_; ++j)
      lp.blocks.push_back(cfg_.interleaved_blocks ? uint64_t(block_idx_) + cfg_.id + uint64_t(j) * cfg_.num_sms
                                                  : uint64_t(block_idx_) + j);
    log::debug(path_, "batch: {} blocks from {} entry {:#x}", num_blocks_, block_idx_, lp.entry);

    state_ = Running;
    note(t_state_, Access::Write);
    invalidate_caches(t);
    powered(t, true);
    if (!core_.launch(lp, t) || !core_.run()) {
      DeviceErrorInfo e = *core_.error();
      report(e);
      sync(core_.now());
      return;
    }
    uint64_t end = core_.now();
    fence(end);
    powered(end, false);
    sync(end);
    if (record_blocks_)
      for (auto& bt : core_.block_times())
        records_.push_back(BlockRecord{lp.launch_id, bt.block, cfg_.id, bt.start * pv_, bt.end * pv_});
    core_.stats().busy_ps += (end - start) * pv_;
    // One done pulse per batch, on a clock edge.
    wait(cfg_.clock.edge_at_or_after(sc_time_stamp()) - sc_time_stamp());
    state_ = Done;
    done_ = true;
    note(t_state_, Access::Write);
    note(t_done_, Access::Write);
    sm_.smp_done.write(true);
    wait(cfg_.clock.period());
    sm_.smp_done.write(false);
  }
}

// The concurrent mode's controller: adds the blocks that arrived, runs the core until a block
// completes (or a block arrives while every warp waits), reports completions at their instants.
void SmCore::blocks_loop() {
  for (;;) {
    if (!take_arrivals()) return;  // reported
    if (core_.resident_blocks() == 0) {
      state_ = Idle;
      note(t_state_, Access::Write);
      if (arrived_.empty()) sc_core::wait(arrival_);
      continue;
    }
    state_ = Running;
    note(t_state_, Access::Write);
    if (!core_.run_blocks()) {
      // No copy of the error may live across the wait: the simulation may end in it, and the frame
      // of a thread suspended then is never unwound (its strings would leak).
      report(*core_.error());
      sync(core_.now());
      return;
    }
    report_completions();
  }
}

// A block starts at the later of now and the core's local time (the core may have run ahead of the
// instant the block arrived by up to its quantum while it was busy; when it was waiting, not at all).
bool SmCore::take_arrivals() {
  for (const BlockWork& w : arrived_) {
    auto& k = kernels_[w.kernel->launch_id];
    const uint64_t now = (sc_core::sc_time_stamp().value() + pv_ - 1) / pv_;
    if (!k) {
      k = std::make_shared<const LaunchParams>(LaunchParams{*w.kernel, {}});
      invalidate_caches(std::max(now, core_.now()));
    }
    if (!core_.add_block(k, w.linear, std::max(now, core_.now()))) {
      DeviceErrorInfo e;
      if (const DeviceErrorInfo* ce = core_.error()) e = *ce;
      e.kind = "resource";
      e.sm = int(cfg_.id);
      e.block = int64_t(w.linear);
      e.launch_id = w.kernel->launch_id;
      if (!core_.error())
        e.message = fmt::format("resource error: the dispatcher assigned block {} of launch {} to sm {}, which has "
                                "not enough {} for it ({} blocks resident)",
                                w.linear, w.kernel->launch_id, cfg_.id, core_.short_of(*k), core_.resident_blocks());
      report(e);
      return false;
    }
    if (busy_since_ == kNotBusy) {  // the SM was empty
      busy_since_ = std::max(now, core_.now());
      powered(busy_since_, true);
    }
    running_[{w.kernel->launch_id, w.linear}] = w;
  }
  arrived_.clear();
  return true;
}

void SmCore::report_completions() {
  for (const SimtCore::Completed& c : core_.take_completed()) {
    sync(c.end);
    if (record_blocks_) records_.push_back(BlockRecord{c.launch_id, c.block, cfg_.id, c.start * pv_, c.end * pv_});
    auto it = running_.find({c.launch_id, c.block});
    if (it == running_.end()) continue;
    const BlockWork w = it->second;
    running_.erase(it);
    if (!launch_running(c.launch_id)) fence(c.end);  // this SM's part of the kernel is done
    if (done_sink_) done_sink_->block_done(cfg_.id, w);
  }
  if (core_.resident_blocks() == 0 && busy_since_ != kNotBusy) {  // busy: at least one block resident
    core_.stats().busy_ps += (core_.now() - busy_since_) * pv_;
    powered(core_.now(), false);
    busy_since_ = kNotBusy;
  }
}

Sm::Sm(sc_core::sc_module_name name, const SmConfig& cfg, Registry& reg, ErrorSink& errors, const std::string& path,
       PrintSink* prints)
    : sc_module(name), core_(std::make_unique<SmCore>(*this, cfg, reg, errors, path, prints)) {
  SC_HAS_PROCESS(Sm);
  SC_THREAD(controller_thread);
  SC_METHOD(reset_method);
  sensitive << smp_reset.pos();
  dont_initialize();
}

Sm::~Sm() = default;

void Sm::controller_thread() { core_->controller(); }
void Sm::reset_method() { core_->reset(); }

const SmConfig& Sm::config() const { return core_->config(); }
void Sm::connect_dispatcher(BlockDoneSink& d, const ConcurrentHorizon* h) { core_->connect(d, h); }
void Sm::assign(const BlockWork& w) { core_->assign(w); }
void Sm::set_horizon(uint64_t ps) { core_->set_horizon(ps); }
void Sm::record_issues(bool on) { core_->record_issues(on); }
void Sm::record_blocks(bool on) { core_->record_blocks(on); }
void Sm::set_data_objects(DataObjects* d) { core_->set_data_objects(d); }
std::vector<uint64_t> Sm::issue_times() const { return core_->issue_times(); }
void Sm::set_retire_observer(RetireObserver* o) { core_->set_retire_observer(o); }
const SmStats& Sm::stats() const { return core_->stats(); }
const std::vector<BlockRecord>& Sm::block_records() const { return core_->records(); }
void Sm::set_activity(power::ActivityLog* log) { core_->set_activity(log); }
void Sm::set_distributor(std::unique_ptr<sm::ClusterDistributor> d) { core_->set_distributor(std::move(d)); }
std::vector<std::pair<std::string, CacheStats>> Sm::cache_stats() const { return core_->cache_stats(); }

}  // namespace gpuvp
