#include "cudart/state.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cudart/api.h"
#include "cudart/coherence.h"
#include "sw/ptx/assembler.h"
#include "sw/fatbin/fatbin.h"

namespace gpuvp::cudart {

void ForkableRecursiveMutex::lock() {
  const std::thread::id me = std::this_thread::get_id();
  if (owner_.load(std::memory_order_relaxed) != me) {
    m_.lock();
    owner_.store(me, std::memory_order_relaxed);
  }
  ++depth_;
}

void ForkableRecursiveMutex::unlock() {
  if (--depth_ > 0) return;
  owner_.store(std::thread::id(), std::memory_order_relaxed);
  m_.unlock();
}

State& State::get() {
  static State* s = new State();  // never destroyed: __cudaUnregisterFatBinary runs after static destructors
  return *s;
}

Error& last_error() {
  thread_local Error e = kSuccess;
  return e;
}

std::vector<CallConfig>& call_stack() {
  thread_local std::vector<CallConfig> v;
  return v;
}

namespace {

// "fat binary N of FILE": N counts the registrations of FILE's fat binaries in this process. Not the
// wrapper's address, which ASLR moves from run to run: messages (a campaign run's detail) must not.
std::string fatbin_name(const void* wrapper) {
  static std::map<std::string, unsigned> serial;
  Dl_info info{};
  const std::string file = ::dladdr(wrapper, &info) && info.dli_fname && *info.dli_fname
                               ? std::filesystem::path(info.dli_fname).filename().string()
                               : "the program";
  return fmt::format("fat binary {} of {}", ++serial[file], file);
}

}  // namespace

std::unique_ptr<FatBinaryRecord> read_fatbin(const void* wrapper) {
  auto fb = std::make_unique<FatBinaryRecord>();
  fb->wrapper = wrapper;
  fb->source_name = fatbin_name(wrapper);
  try {
    const fatbin::FatBinary bin = fatbin::read_wrapper(wrapper);
    const std::vector<fatbin::Ptx> all = bin.ptx();
    const bool fits = std::any_of(all.begin(), all.end(), [](auto& x) { return x.arch <= kComputeCapability; });
    const fatbin::Ptx& p = fatbin::pick_ptx(all, fits ? kComputeCapability : ~0u);
    fb->ptx = p.text;
    fb->ptx_isa = p.isa_major * 10 + p.isa_minor;
    fb->source_name = fmt::format("PTX for {} of {}", p.arch_name, fb->source_name);
  } catch (const std::exception& e) {
    fb->ptx_error = e.what();
  }
  return fb;
}

namespace {

// The module's __managed__ variables get host pages at their device addresses, and the program's host
// code their addresses (the pointer nvcc's code reads them through).
void mirror_managed_vars(FatBinaryRecord& fb, rt::Runtime& rt) {
  for (auto& [host, v] : State::get().vars) {
    if (!v.managed || v.fatbin != &fb) continue;
    for (auto& g : fb.module->image->globals) {
      if (g.name != v.name) continue;
      add_var_mirror(rt, g.address, g.size);
      *v.managed = reinterpret_cast<void*>(g.address);
    }
  }
}

// The module, without the kernels the assembler refuses when it refuses the whole: a kernel using what
// the platform lacks (a texture, a device assert) must not stop the module's other kernels. Each kernel
// is tried with every other one left out; the refused ones' reasons are kept in fb.refused.
rt::Module load_runnable(FatBinaryRecord& fb, rt::Runtime& rt) {
  try {
    return rt.load_module(fb.ptx, fb.source_name);
  } catch (const ptx::ParseError&) {
    const std::vector<ptx::EntrySpan> all = ptx::entry_spans(fb.ptx);
    std::vector<ptx::EntrySpan> bad;
    for (size_t i = 0; i < all.size(); ++i) {
      std::vector<ptx::EntrySpan> others = all;
      others.erase(others.begin() + long(i));
      try {
        ptx::assemble_text(ptx::without_spans(fb.ptx, others), fb.source_name, ptx::Layout{});
      } catch (const ptx::ParseError& e) {
        fb.refused[all[i].name] = e.what();
        bad.push_back(all[i]);
      }
    }
    if (bad.empty() || bad.size() == all.size()) {  // not one kernel's fault, or every kernel's
      fb.refused.clear();
      throw;
    }
    return rt.load_module(ptx::without_spans(fb.ptx, bad), fb.source_name);
  }
}

}  // namespace

const rt::Module& loaded(FatBinaryRecord& fb, rt::Runtime& rt) {
  if (!fb.module) {
    if (fb.ptx.empty()) throw fatbin::FatbinError(fb.ptx_error);
    fb.module = load_runnable(fb, rt);
    for (auto* vars : {&fb.module->image->globals, &fb.module->image->consts})
      for (auto& v : *vars) State::get().symbols[v.address] = v.size;
    mirror_managed_vars(fb, rt);
  }
  return *fb.module;
}

void check_runnable(const FatBinaryRecord& fb, const std::string& kernel) {
  auto it = fb.refused.find(kernel);
  if (it != fb.refused.end())
    throw CudaError(kErrorInvalidPtx, fmt::format("kernel {} cannot run on the platform: {}", kernel, it->second));
}

bool in_ranges(const std::map<uint64_t, size_t>& a, uint64_t p, size_t n) {
  auto it = a.upper_bound(p);
  if (it == a.begin()) return false;
  --it;
  return p >= it->first && p - it->first <= it->second && n <= it->second - (p - it->first);
}

}  // namespace gpuvp::cudart
