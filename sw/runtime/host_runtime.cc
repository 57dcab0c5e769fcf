#include "sw/runtime/host_runtime.h"

#include <fmt/format.h>

#include <iterator>

#include "sw/isa/config_regs.h"
#include "sw/runtime/clock_cycles.h"
#include "sw/ptx/assembler.h"

namespace gpuvp::rt {

namespace {
constexpr uint64_t kAlign = 256;
uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// A float argument for a .u/.s parameter, or an integer for a .f one (.b takes either).
template <class Where>
void check_kind(ArgKind kind, const ptx::ParamInfo& p, size_t i, const Where& where) {
  const char t = p.type.empty() ? 'b' : p.type[0];
  if ((kind == ArgKind::Float && (t == 'u' || t == 's')) || (kind == ArgKind::Int && t == 'f'))
    throw RuntimeError(where(fmt::format("argument {} ({}) is {}, the parameter is .{}", i, p.name,
                                         kind == ArgKind::Float ? "a float" : "an integer", p.type)));
}
}  // namespace

uint64_t shared_per_block(uint32_t param_bytes, uint32_t static_shared, uint32_t dyn_shared) {
  return round_up(16 + uint64_t(param_bytes) + static_shared + dyn_shared, 256);
}

uint32_t blocks_that_fit(const DeviceProps& p, uint64_t threads, uint32_t regs_per_thread, uint64_t shmem,
                         std::string* why) {
  uint64_t n = p.max_blocks;
  const char* limit = "resident blocks per SM";
  auto cap = [&](uint64_t v, const char* what) {
    if (v < n) {
      n = v;
      limit = what;
    }
  };
  cap(p.max_threads / threads, "threads per SM");
  if (regs_per_thread) cap(p.registers / (uint64_t(regs_per_thread) * threads), "registers per SM");
  cap(p.shared_bytes / shmem, "shared memory per SM");
  if (n == 0 && why)
    *why = fmt::format("a block of {} threads ({} registers each, {} bytes of shared memory) does not fit the SM's {}",
                       threads, regs_per_thread, shmem, limit);
  return static_cast<uint32_t>(n);
}

HostRuntime::HostRuntime(HostInterface& host, ptx::Schedule schedule)
    : host_(host), objects_(dynamic_cast<ObjectHost*>(&host)), schedule_(schedule) {}

void name_allocation(Runtime& rt, DevPtr p, const std::string& name) {
  if (auto* h = dynamic_cast<HostRuntime*>(&rt)) h->name_allocation(p, name);
}

DevPtr HostRuntime::malloc(size_t bytes) {
  if (bytes == 0) throw RuntimeError("malloc: size 0");
  const DeviceProps& p = host_.props();
  if (bytes > p.gmem_size)  // also keeps the sums below from wrapping
    throw RuntimeError(fmt::format("malloc: {} bytes do not fit in global memory ({} bytes)", bytes, p.gmem_size));
  // First fit, 256-byte aligned, in address order, never adjacent: at least one unmapped byte follows
  // every allocation, so a read one element past a buffer whose size is a multiple of 256 (512 bytes)
  // is an address error, not a read of the next buffer.
  uint64_t cand = p.gmem_base + kAlign;  // the first 256 bytes stay unallocated: a small pointer is an error
  for (auto& [start, size] : allocs_) {
    if (cand + bytes < start) break;
    cand = std::max(cand, round_up(start + size + 1, kAlign));
  }
  if (cand + bytes > p.gmem_base + p.gmem_size)
    throw RuntimeError(fmt::format("malloc: {} bytes do not fit in global memory ({} bytes, {} allocations)", bytes,
                                   p.gmem_size, allocs_.size()));
  allocs_[cand] = bytes;
  host_.map_global(cand, bytes);
  return cand;
}

void HostRuntime::free(DevPtr ptr) {
  synchronize();
  auto it = allocs_.find(ptr);
  if (it == allocs_.end()) throw RuntimeError(fmt::format("free: {:#x} is not the start of an allocation", ptr));
  allocs_.erase(it);
  host_.unmap_global(ptr);
  auto rep = replicas_.find(ptr);
  if (rep == replicas_.end()) return;
  for (DevPtr r : rep->second) {
    allocs_.erase(r);
    host_.unmap_global(r);
  }
  replicas_.erase(rep);
}

void HostRuntime::name_allocation(DevPtr p, const std::string& name) {
  if (!allocs_.count(p)) throw RuntimeError(fmt::format("name_allocation: {:#x} is not the start of an allocation", p));
  if (objects_) objects_->name_global(p, name);
}

// The platform protects some objects by replication (docs/reliability.md): before the first launch
// after an object became protected its copies are made from the original (only the host wrote it so
// far, and a campaign's memory faults are installed at the kernel's start, after this), with timed
// copies over the host bus, so the kernel's cycles do not include them. From then on every host write
// goes to every copy (write_targets) and a kernel's writes reach every copy: the copies are never
// refreshed from the original, so a fault in the original never reaches them.
void HostRuntime::replicate_protected() {
  if (!objects_) return;
  std::vector<std::pair<DevPtr, size_t>> to_replicate;
  for (const auto& [p, n] : allocs_) {
    auto it = replicas_.find(p);
    if (objects_->copies_wanted(p) > (it == replicas_.end() ? 0 : it->second.size()) + 1) to_replicate.emplace_back(p, n);
  }
  for (const auto& [p, n] : to_replicate) {
    std::vector<uint8_t> bytes(n);
    memcpy_d2h(bytes.data(), p, n);
    std::vector<DevPtr>& reps = replicas_[p];
    while (reps.size() + 1 < objects_->copies_wanted(p)) {
      reps.push_back(malloc(n));
      memcpy_h2d(reps.back(), bytes.data(), n);
    }
    objects_->set_replicas(p, reps);
  }
}

std::vector<DevPtr> HostRuntime::write_targets(DevPtr dst) const {
  std::vector<DevPtr> out{dst};
  auto it = replicas_.upper_bound(dst);
  if (it == replicas_.begin()) return out;
  --it;
  auto a = allocs_.find(it->first);
  if (a == allocs_.end() || dst - it->first >= a->second) return out;
  for (DevPtr r : it->second) out.push_back(r + (dst - it->first));
  return out;
}

bool HostRuntime::in_allocation(DevPtr ptr, size_t n) const {
  auto it = allocs_.upper_bound(ptr);
  return it != allocs_.begin() && ptr >= std::prev(it)->first && ptr + n <= std::prev(it)->first + std::prev(it)->second;
}

void HostRuntime::check_range(DevPtr ptr, size_t n, const char* what) const {
  if (!in_allocation(ptr, n))
    throw RuntimeError(fmt::format("{}: [{:#x}, {:#x}) is not inside one allocation", what, ptr, ptr + n));
}

void HostRuntime::memcpy_h2d(DevPtr dst, const void* src, size_t n) {
  if (host_.concurrent()) {  // cudaMemcpy: the NULL stream's copy, waited for
    memcpy_h2d_async(dst, src, n, 0);
    return stream_synchronize(0);
  }
  Guard g(host_);
  synchronize();
  if (n == 0) return;
  check_range(dst, n, "memcpy_h2d");
  for (DevPtr d : write_targets(dst)) host_.bus_write(d, src, n);
}

void HostRuntime::memcpy_d2h(void* dst, DevPtr src, size_t n) {
  if (host_.concurrent()) {
    memcpy_d2h_async(dst, src, n, 0);
    return stream_synchronize(0);
  }
  Guard g(host_);
  synchronize();
  if (n == 0) return;
  check_range(src, n, "memcpy_d2h");
  host_.bus_read(src, dst, n);
}

void HostRuntime::memset(DevPtr dst, uint8_t v, size_t n) {
  Guard g(host_);
  synchronize();
  if (n == 0) return;
  check_range(dst, n, "memset");
  std::vector<uint8_t> buf(n, v);
  for (DevPtr d : write_targets(dst)) host_.bus_write(d, buf.data(), n);
}

// Memories take a write of a power-of-two size as one access, which must be naturally aligned; a
// .global of .align 1 (nvcc's printf strings) need not be: its first byte then goes alone and the
// rest, of another size, as a burst.
void HostRuntime::write_variable(uint64_t addr, const uint8_t* data, size_t n) {
  if (n > 1 && (n & (n - 1)) == 0 && addr % n != 0) {
    host_.bus_write(addr, data, 1);
    ++addr, ++data, --n;
  }
  host_.bus_write(addr, data, n);
}

void HostRuntime::check_symbol(uint64_t addr, size_t n, const char* what) const {
  for (auto& img : modules_)
    for (auto* vars : {&img->globals, &img->consts})
      for (auto& v : *vars)
        if (addr >= v.address && addr - v.address <= v.size && n <= v.size - (addr - v.address)) return;
  throw RuntimeError(fmt::format("{}: [{:#x}, +{}) is not inside a variable of a loaded module", what, addr, n));
}

void HostRuntime::write_now(uint64_t addr, const void* src, size_t n) {
  for (DevPtr d : write_targets(addr)) write_variable(d, static_cast<const uint8_t*>(src), n);
}

void HostRuntime::write_symbol(uint64_t addr, const void* src, size_t n) {
  check_symbol(addr, n, "write_symbol");
  Guard g(host_);
  synchronize();
  if (n) write_now(addr, src, n);
}

void HostRuntime::read_symbol(void* dst, uint64_t addr, size_t n) {
  check_symbol(addr, n, "read_symbol");
  Guard g(host_);
  synchronize();
  if (n) host_.bus_read(addr, dst, n);
}

void HostRuntime::write_unordered(uint64_t addr, const void* src, size_t n) {
  if (!in_allocation(addr, n)) check_symbol(addr, n, "write_unordered");
  Guard g(host_);
  if (n) write_now(addr, src, n);
}

void HostRuntime::read_unordered(void* dst, uint64_t addr, size_t n) {
  if (!in_allocation(addr, n)) check_symbol(addr, n, "read_unordered");
  Guard g(host_);
  if (n) host_.bus_read(addr, dst, n);
}

Module HostRuntime::load_module(const std::string& text, const std::string& source_name) {
  synchronize();
  const DeviceProps& p = host_.props();
  // Sizes do not depend on where sections go: assemble once to learn them, once at their place.
  // The probe already refuses variables beyond what the memories have left (a 1 GiB .const array must
  // not cost 1 GiB of host memory and seconds before it is found not to fit).
  const uint64_t const_used = round_up(const_next_, kAlign);
  ptx::Layout room{p.sysmem_base, p.cmem_base, p.gmem_base};
  room.const_capacity = p.cmem_size > const_used ? p.cmem_size - const_used : 0;
  room.global_capacity = p.gmem_size;
  ptx::Image probe = ptx::assemble_text(text, source_name, room, schedule_);
  ptx::Layout layout = room;
  layout.code_base = p.sysmem_base + round_up(sys_next_, kAlign);
  layout.const_base = p.cmem_base + round_up(const_next_, kAlign);
  if (layout.code_base + probe.code.size() > p.sysmem_base + p.sysmem_size)
    throw RuntimeError(fmt::format("{}: {} bytes of code do not fit in system memory", source_name, probe.code.size()));
  if (layout.const_base + probe.const_data.size() > p.cmem_base + p.cmem_size)
    throw RuntimeError(
        fmt::format("{}: {} bytes of constants do not fit in constant memory", source_name, probe.const_data.size()));
  layout.global_base = probe.global_bytes ? malloc(probe.global_bytes) : p.gmem_base;
  auto img = std::make_shared<ptx::Image>(ptx::assemble_text(text, source_name, layout, schedule_));
  if (!img->code.empty()) host_.bus_write(layout.code_base, img->code.data(), img->code.size());
  if (!img->const_data.empty()) host_.bus_write(layout.const_base, img->const_data.data(), img->const_data.size());
  for (auto& g : img->globals) {
    std::vector<uint8_t> init = g.init;
    init.resize(g.size, 0);
    if (g.size) write_variable(g.address, init.data(), init.size());
  }
  sys_next_ = layout.code_base - p.sysmem_base + img->code.size();
  const_next_ = layout.const_base - p.cmem_base + img->const_data.size();
  modules_.push_back(img);
  return Module{static_cast<int>(modules_.size() - 1), img};
}

// Checks a launch against the kernel and the device and builds what the GPU needs to run it.
// `bpc` (blocks per core, batch mode) is checked and completed here; 0 lets the runtime choose.
KernelDesc HostRuntime::prepare(const Module& m, const std::string& kernel, Dim3 grid, Dim3 block,
                                const KernelArgs& args, uint32_t dyn_shmem, uint32_t& bpc) const {
  if (!m.image) throw RuntimeError("launch: module not loaded");
  const ptx::Image& img = *m.image;
  const ptx::KernelInfo* k = img.find_kernel(kernel);
  if (!k) {
    std::string known;
    for (auto& kk : img.kernels) known += (known.empty() ? "" : ", ") + kk.name;
    throw RuntimeError(fmt::format("launch: no kernel '{}' in {} (kernels: {})", kernel, img.source_name, known));
  }
  const DeviceProps& p = host_.props();
  auto where = [&](const std::string& s) { return fmt::format("launch {}: {}", kernel, s); };
  if (grid.count() == 0 || block.count() == 0) throw RuntimeError(where("grid and block dimensions must be non-zero"));
  if (grid.x > 0xFFFF || grid.y > 0xFFFF || grid.z > 0xFFFF)
    throw RuntimeError(where(fmt::format("grid {}x{}x{} exceeds the 16-bit grid fields", grid.x, grid.y, grid.z)));
  if (block.z > 64)  // CUDA's limit on every GPU (maxThreadsDim[2])
    throw RuntimeError(where(fmt::format("block {}x{}x{}: z is at most 64", block.x, block.y, block.z)));
  if (block.count() > p.max_threads_per_block)
    throw RuntimeError(where(fmt::format("block of {} threads exceeds {} threads per block", block.count(),
                                         p.max_threads_per_block)));
  if (const uint32_t lim = k->thread_limit(); lim && block.count() > lim)
    throw RuntimeError(where(fmt::format("block of {} threads exceeds the kernel's {} of {} (__launch_bounds__)",
                                         block.count(), k->max_ntid[0] ? ".maxntid" : ".reqntid", lim)));
  if (k->reqntid[0] && (block.x != k->reqntid[0] || block.y != std::max(k->reqntid[1], 1u) ||
                        block.z != std::max(k->reqntid[2], 1u)))
    throw RuntimeError(where(fmt::format("block {}x{}x{} is not the kernel's .reqntid {}x{}x{}", block.x, block.y,
                                         block.z, k->reqntid[0], std::max(k->reqntid[1], 1u), std::max(k->reqntid[2], 1u))));
  if (args.args().size() != k->params.size())
    throw RuntimeError(where(fmt::format("{} arguments given, the kernel takes {}", args.args().size(), k->params.size())));
  if (k->param_bytes > cfgreg::kParamWords * 4)
    throw RuntimeError(where(fmt::format("{} bytes of parameters exceed the {} of the configuration block",
                                         k->param_bytes, cfgreg::kParamWords * 4)));
  KernelDesc d;
  d.params.assign(round_up(k->param_bytes, 4), 0);
  for (size_t i = 0; i < k->params.size(); ++i) {
    const auto& a = args.args()[i];
    if (a.size() != k->params[i].size)
      throw RuntimeError(where(fmt::format("argument {} ({}) is {} bytes, the parameter is {}", i, k->params[i].name,
                                           a.size(), k->params[i].size)));
    check_kind(args.kinds()[i], k->params[i], i, where);
    std::memcpy(d.params.data() + k->params[i].offset, a.data(), a.size());
  }
  uint64_t shmem = shared_per_block(k->param_bytes, k->static_shared_bytes, dyn_shmem);
  if (shmem > p.shared_per_block)
    throw RuntimeError(where(fmt::format("{} bytes of shared memory per block exceed the limit of {}", shmem,
                                         p.shared_per_block)));
  // A kernel reaching recursive functions also needs the call stack (CUDA's cudaLimitStackSize).
  const uint32_t stack = stack_bytes_.value_or(p.stack_bytes);
  const uint64_t local = uint64_t{k->local_bytes} + (k->call_stack ? stack : 0);
  if (local > p.local_bytes)
    throw RuntimeError(where(fmt::format("{} bytes of local memory per thread{} exceed the limit of {}", local,
                                         k->call_stack ? fmt::format(" ({}-byte call stack included)", stack) : "",
                                         p.local_bytes)));
  std::string why;
  uint32_t fit = blocks_that_fit(p, block.count(), k->regs_per_thread, shmem, &why);
  if (fit == 0) throw RuntimeError(where(why));
  if (bpc == 0) bpc = p.blocks_per_core ? p.blocks_per_core : fit;
  if (bpc > fit)
    throw RuntimeError(where(fmt::format("{} blocks per core requested, only {} fit ({})", bpc, fit,
                                         fit < p.max_blocks ? "limited by threads, registers or shared memory"
                                                            : "resident block limit")));
  d.entry = k->entry;
  d.block[0] = block.x, d.block[1] = block.y, d.block[2] = block.z;
  d.grid[0] = grid.x, d.grid[1] = grid.y, d.grid[2] = grid.z;
  d.static_shared = k->static_shared_bytes;
  d.dyn_shared = dyn_shmem;
  d.local_bytes = static_cast<uint32_t>(local);
  d.num_regs = k->num_regs;
  d.num_preds = k->num_preds;
  d.regs_per_thread = k->regs_per_thread;
  d.smem_per_block = static_cast<uint32_t>(shmem);
  return d;
}

uint64_t HostRuntime::launch(const Module& m, const std::string& kernel, Dim3 grid, Dim3 block, const KernelArgs& args,
                             uint32_t dyn_shmem, uint32_t bpc) {
  if (host_.concurrent()) return launch_async(0, m, kernel, grid, block, args, dyn_shmem);
  Guard g(host_);
  synchronize();  // one kernel at a time on this platform
  replicate_protected();
  KernelDesc d = prepare(m, kernel, grid, block, args, dyn_shmem, bpc);
  const DeviceProps& p = host_.props();
  std::vector<uint32_t> regs(cfgreg::kParamBase + cfgreg::kParamWords, 0);
  regs[cfgreg::kBlocksPerCore] = bpc;
  regs[cfgreg::kNumGprs] = d.regs_per_thread;
  regs[cfgreg::kShmemSize] = d.static_shared;
  regs[cfgreg::kParamSize] = static_cast<uint32_t>(d.params.size() / 4);
  regs[cfgreg::kDynShmemSize] = d.dyn_shared;
  regs[cfgreg::kBlockX] = d.block[0];
  regs[cfgreg::kBlockY] = d.block[1];
  regs[cfgreg::kBlockZ] = d.block[2];
  regs[cfgreg::kGridX] = d.grid[0];
  regs[cfgreg::kGridY] = d.grid[1];
  regs[cfgreg::kGridZ] = d.grid[2];
  regs[cfgreg::kEntryLo] = static_cast<uint32_t>(d.entry);
  regs[cfgreg::kEntryHi] = static_cast<uint32_t>(d.entry >> 32);
  regs[cfgreg::kLocalBytes] = d.local_bytes;
  regs[cfgreg::kNumRegSlots] = d.num_regs;
  regs[cfgreg::kNumPreds] = d.num_preds;
  const uint64_t id = next_launch_++;  // == launches_.size() + 1: one kernel at a time
  regs[cfgreg::kLaunchId] = static_cast<uint32_t>(id);
  // Registers 0..kLaunchId, then the parameter words; the control register is written last.
  host_.bus_write(p.cfg_base, regs.data(), (cfgreg::kLaunchId + 1) * 4);
  if (!d.params.empty()) host_.bus_write(p.cfg_base + cfgreg::kParamBase * 4, d.params.data(), d.params.size());
  if (p.launch_latency_ns > 0) host_.wait_ns(p.launch_latency_ns);
  uint32_t start = 1;
  host_.bus_write(p.cfg_base + cfgreg::kControl * 4, &start, 4);

  LaunchStats st = launch_stats(m, kernel, d.entry);
  st.launch_id = id;
  st.blocks_per_core = bpc;
  running_ = st;
  running_image_ = m.image;
  return st.launch_id;
}

LaunchStats HostRuntime::launch_stats(const Module& m, const std::string& kernel, uint64_t entry) {
  LaunchStats st;
  st.kernel = kernel;
  st.entry = entry;
  if (const ptx::KernelInfo* k = m.image ? m.image->find_kernel(kernel) : nullptr) st.reg_names = k->reg_names;
  return st;
}

// CUDA prints a kernel's printf buffer when the host synchronises with it.
void HostRuntime::print_device_output() {
  std::string text = host_.take_device_output();
  if (out_ && !text.empty()) *out_ << text << std::flush;
}

void HostRuntime::synchronize() {
  if (host_.concurrent()) return wait_pending([](const Pending&) { return true; });
  if (!running_) return;
  LaunchStats st = *running_;
  running_.reset();
  try {
    host_.wait_kernel_done(st.start_ps, st.end_ps);
    print_device_output();
  } catch (const DeviceError& e) {
    print_device_output();  // what the threads printed before the error, as CUDA flushes it too
    record_launch(st, st.end_ps);  // it ran until the error (wait_kernel_done's window)
    throw with_kernel(e, st.kernel, *running_image_);
  }
  record_launch(st, st.end_ps);
}

// A completed or failed launch: its window [start_ps, end_ps) in whole GPU cycles.
void HostRuntime::record_launch(LaunchStats st, uint64_t end_ps) {
  st.end_ps = end_ps;
  st.cycles = cycles_in(end_ps - st.start_ps, clock_period_ps(host_.props().clock_mhz));
  launches_.push_back(std::move(st));
}

// The SM knows PCs, blocks and lanes; only the runtime knows which kernel that was.
DeviceError HostRuntime::with_kernel(const DeviceError& e, const std::string& kernel, const ptx::Image& img) const {
  DeviceErrorInfo info = e.info();
  info.kernel = kernel;
  const ptx::FuncInfo* f = img.function_at(info.pc);
  info.function = f ? f->name : "";
  info.message = fmt::format("kernel {} ({}{}): {}", kernel, img.source_name, f ? ", in function " + f->name : "",
                             info.message);
  return DeviceError(info);
}

// --- streams, events, asynchronous copies ----------------------------------------------------

uint64_t HostRuntime::submit(WorkRequest w, Pending p, double latency_ns) {
  const uint64_t tag = w.tag = next_tag_++;
  w.high_priority = high_priority(w.stream);
  w.non_blocking = non_blocking(w.stream);
  pending_[tag] = std::move(p);
  try {
    if (latency_ns > 0) host_.submit_after(std::move(w), latency_ns);
    else host_.submit(std::move(w));
  } catch (...) {  // refused: nothing to wait for
    pending_.erase(tag);
    throw;
  }
  // A kernel's launch reaches the GPU's queues now (G1).
  if (auto it = pending_.find(tag); it != pending_.end()) it->second.launch.start_ps = host_.now_ps();
  return tag;
}

uint64_t HostRuntime::launch_async(Stream s, const Module& m, const std::string& kernel, Dim3 grid, Dim3 block,
                                   const KernelArgs& args, uint32_t dyn_shmem) {
  if (!host_.concurrent()) return Runtime::launch_async(s, m, kernel, grid, block, args, dyn_shmem);
  return launch_sub_async(s, m, kernel, grid, block, args, SubKernel{}, dyn_shmem);
}

uint64_t HostRuntime::launch_sub_async(Stream s, const Module& m, const std::string& kernel, Dim3 grid, Dim3 block,
                                       const KernelArgs& args, SubKernel part, uint32_t dyn_shmem) {
  if (!host_.concurrent()) return Runtime::launch_sub_async(s, m, kernel, grid, block, args, part, dyn_shmem);
  check_stream(s, "launch");
  replicate_protected();  // synchronous NULL-stream copies: done before the kernel is queued
  uint32_t bpc = 0;
  auto d = std::make_shared<KernelDesc>(prepare(m, kernel, grid, block, args, dyn_shmem, bpc));
  const uint64_t last = part.last ? part.last : d->grid_blocks();
  if (part.first >= last || last > d->grid_blocks())
    throw RuntimeError(fmt::format("launch of {}: blocks [{}, {}) are not a non-empty range of its {} blocks", kernel,
                                   part.first, last, d->grid_blocks()));
  if (part.sm_set > sm_sets_created_)
    throw RuntimeError(fmt::format("launch of {}: SM set {} was not created ({} sets)", kernel, part.sm_set,
                                   sm_sets_created_));
  d->launch_id = next_launch_++;
  Pending pend{WorkRequest::Kernel, s, {}, m.image};
  pend.launch = launch_stats(m, kernel, d->entry);
  pend.launch.launch_id = d->launch_id;
  WorkRequest w;
  w.kind = WorkRequest::Kernel;
  w.stream = s;
  w.kernel = d;
  w.first_block = part.first;
  w.block_count = last - part.first;
  w.sm_set = part.sm_set;
  launch_tags_[d->launch_id] = submit(std::move(w), std::move(pend), host_.props().launch_latency_ns);
  return d->launch_id;
}

uint64_t HostRuntime::tag_of(uint64_t launch_id, const char* what) const {
  auto it = launch_tags_.find(launch_id);
  if (it == launch_tags_.end())
    throw RuntimeError(fmt::format("{}: launch {} is not an asynchronous launch of this program", what, launch_id));
  return it->second;
}

double HostRuntime::launch_done_ns(uint64_t id) const {
  if (!host_.concurrent()) return Runtime::launch_done_ns(id);
  const uint64_t at = host_.done_at(tag_of(id, "launch_done_ns"));
  return at == ~uint64_t{0} ? -1.0 : double(at) / 1000.0;
}

void HostRuntime::wait_any(const std::vector<uint64_t>& ids, double until_ns) {
  if (!host_.concurrent()) return Runtime::wait_any(ids, until_ns);
  std::vector<uint64_t> tags;
  for (uint64_t id : ids) tags.push_back(tag_of(id, "wait_any"));
  // (beyond 2^64 ps, about seven months: no limit)
  const uint64_t until = until_ns <= 0 ? 0 : until_ns >= 1.8e16 ? ~uint64_t{0} : uint64_t(until_ns * 1000.0 + 0.5);
  host_.wait_any_until(tags, until);
}

uint32_t HostRuntime::create_sm_set(uint64_t sms) {
  if (!host_.concurrent()) return Runtime::create_sm_set(sms);
  if (sm_sets_created_ + 1 >= host_.sm_sets())
    throw RuntimeError(fmt::format("create_sm_set: the GPU has {} SM sets besides set 0 (scheduler.sm_sets)",
                                   host_.sm_sets() - 1));
  host_.set_sm_set(sm_sets_created_ + 1, sms);  // checks the mask before the set counts as created
  return ++sm_sets_created_;
}

void HostRuntime::set_sm_set(uint32_t set, uint64_t sms) {
  if (!host_.concurrent()) return Runtime::set_sm_set(set, sms);
  if (set == 0 || set > sm_sets_created_)
    throw RuntimeError(fmt::format("set_sm_set: SM set {} was not created ({} sets; set 0 is every SM and fixed)", set,
                                   sm_sets_created_));
  host_.set_sm_set(set, sms);
}

void HostRuntime::copy_async(WorkRequest w, Stream s, const char* what) {
  check_stream(s, what);
  check_range(w.device_addr, w.bytes, what);
  w.stream = s;
  submit(std::move(w), Pending{w.kind, s, {}, nullptr});
}

void HostRuntime::memcpy_h2d_async(DevPtr dst, const void* src, size_t n, Stream s) {
  if (!host_.concurrent()) return Runtime::memcpy_h2d_async(dst, src, n, s);
  if (n == 0) return;
  for (DevPtr d : write_targets(dst)) {  // in stream order: the copies change with the original
    WorkRequest w;
    w.kind = WorkRequest::CopyToDevice;
    w.device_addr = d;
    w.bytes = n;
    w.data.assign(static_cast<const uint8_t*>(src), static_cast<const uint8_t*>(src) + n);
    copy_async(std::move(w), s, "memcpy_h2d_async");
  }
}

void HostRuntime::memcpy_d2h_async(void* dst, DevPtr src, size_t n, Stream s) {
  if (!host_.concurrent()) return Runtime::memcpy_d2h_async(dst, src, n, s);
  if (n == 0) return;
  WorkRequest w;
  w.kind = WorkRequest::CopyToHost;
  w.device_addr = src;
  w.bytes = n;
  w.host_dst = dst;
  copy_async(std::move(w), s, "memcpy_d2h_async");
}

void HostRuntime::record_event(Event e, Stream s) {
  if (!host_.concurrent()) return Runtime::record_event(e, s);
  check_event(e, "record_event");
  check_stream(s, "record_event");
  WorkRequest w;
  w.kind = WorkRequest::Record;
  w.stream = s;
  w.event = e.id;
  events_[e.id - 1] = EventState{submit(std::move(w), Pending{WorkRequest::Record, s, {}, nullptr}), false, 0};
}

void HostRuntime::stream_wait_event(Stream s, Event e) {
  if (!host_.concurrent()) return Runtime::stream_wait_event(s, e);
  check_event(e, "stream_wait_event");
  check_stream(s, "stream_wait_event");
  WorkRequest w;
  w.kind = WorkRequest::Wait;
  w.stream = s;
  w.event = e.id;
  submit(std::move(w), Pending{WorkRequest::Wait, s, {}, nullptr});
}

void HostRuntime::event_synchronize(Event e) {
  check_event(e, "event_synchronize");
  const uint64_t tag = events_[e.id - 1].tag;
  if (pending_.count(tag)) retire(tag);
}

double HostRuntime::event_elapsed_ms(Event a, Event b) {
  for (Event e : {a, b}) {  // a record the GPU completed counts even if nobody waited for it yet
    check_event(e, "event_elapsed_ms");
    const uint64_t tag = events_[e.id - 1].tag;
    if (pending_.count(tag) && host_.done_at(tag) != ~uint64_t{0}) retire(tag);
  }
  return Runtime::event_elapsed_ms(a, b);
}

void HostRuntime::stream_synchronize(Stream s) {
  if (!host_.concurrent()) return Runtime::stream_synchronize(s);
  check_stream(s, "stream_synchronize");
  wait_pending([s](const Pending& p) { return p.stream == s; });
}

bool HostRuntime::event_done(Event e) {
  if (!host_.concurrent()) return Runtime::event_done(e);
  check_event(e, "event_done");
  const uint64_t tag = events_[e.id - 1].tag;
  if (!pending_.count(tag)) return true;
  if (host_.done_at(tag) == ~uint64_t{0}) return false;
  retire(tag);
  return true;
}

bool HostRuntime::stream_idle(Stream s) {
  if (!host_.concurrent()) return Runtime::stream_idle(s);
  check_stream(s, "stream_idle");
  for (auto& [tag, p] : pending_)
    if (p.stream == s && host_.done_at(tag) == ~uint64_t{0}) return false;
  wait_pending([s](const Pending& p) { return p.stream == s; });  // all completed: retires without waiting
  return true;
}

// Retires pending work in tag (submission) order; what a kernel printed is written as it retires.
void HostRuntime::wait_pending(const std::function<bool(const Pending&)>& which) {
  std::vector<uint64_t> tags;
  for (auto& [tag, p] : pending_)
    if (which(p)) tags.push_back(tag);
  for (uint64_t t : tags)
    if (pending_.count(t)) retire(t);  // another host thread may have retired it meanwhile
}

void HostRuntime::retire(uint64_t tag) {
  uint64_t at = 0;
  try {
    at = host_.wait_done(tag);
  } catch (const DeviceError& e) {
    print_device_output();
    // Name the kernel the failing block belonged to (or the one waited for, if the SM did not say).
    const Pending* k = nullptr;
    for (auto& [t, p] : pending_)
      if (p.kind == WorkRequest::Kernel && (p.launch.launch_id == e.info().launch_id || (!k && t == tag))) k = &p;
    if (k && !failed_recorded_) record_launch(k->launch, host_.now_ps()), failed_recorded_ = true;
    if (k && k->image) throw with_kernel(e, k->launch.kernel, *k->image);
    throw;
  }
  auto it = pending_.find(tag);
  if (it == pending_.end()) return;  // retired by another host thread while this one waited
  Pending p = std::move(it->second);
  pending_.erase(it);
  if (p.kind == WorkRequest::Kernel) {
    record_launch(p.launch, at);
    print_device_output();
  }
  for (auto& ev : events_)
    if (ev.tag == tag) ev.done = true, ev.at_ns = double(at) / 1000.0;
}

void HostRuntime::spawn(std::function<void(Runtime&)> fn) {
  host_.spawn([this, fn] { fn(*this); });
}

}  // namespace gpuvp::rt
