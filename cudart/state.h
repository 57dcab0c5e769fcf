#pragma once
// What the replacement runtime remembers between calls: the fat binaries, kernels and variables the
// program registered, its allocations, streams and events, and the error state CUDA keeps.
// Everything here is guarded by one mutex (State::lock); device work goes through Session::call.
#include <unistd.h>

#include <cstdint>
#include <map>
#include <memory>
#include <atomic>
#include <mutex>
#include <thread>
#include <optional>
#include <string>
#include <vector>

#include "cudart/cuda_types.h"
#include "sw/runtime/runtime.h"

namespace gpuvp::cudart {

// The compute capability the device reports (major * 10 + minor): nvcc 13's default architecture, so
// PTX built without -arch is for it and programs comparing it with their target accept it. A fat
// binary's PTX for it (or the highest below) is taken, as the driver would; the platform assembles
// any PTX it can, so a program with newer PTX only gets its highest.
constexpr unsigned kComputeCapability = 75;

// One __cudaRegisterFatBinary: its PTX (read at registration), assembled into the platform on first use.
struct FatBinaryRecord {
  const void* wrapper = nullptr;
  std::string ptx;            // empty when the fat binary holds no usable PTX
  std::string ptx_error;      // why, for the message at launch
  std::string source_name;    // for the assembler's messages
  unsigned ptx_isa = 0;       // major * 10 + minor (cudaFuncAttributes::ptxVersion)
  std::optional<rt::Module> module;  // loaded
  // The kernels the assembler refused, left out of `module` (docs/cuda.md): name -> why, for their launch.
  std::map<std::string, std::string> refused;
};

struct KernelRecord {
  FatBinaryRecord* fatbin = nullptr;
  const void* host_fun = nullptr;
  std::string name;  // the PTX entry name (mangled)
  // cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize): launches may not ask for more.
  std::optional<uint32_t> max_dynamic_shared;
};

struct VarRecord {
  FatBinaryRecord* fatbin = nullptr;
  std::string name;
  size_t size = 0;
  bool constant = false;
  void** managed = nullptr;  // __managed__: where the program's host code reads the variable's address
};

// Memory both sides reach (docs/cuda.md, "Managed and mapped memory"): `size` bytes at `host` in this
// process and at `dev` in the platform's global memory, made coherent at the points CUDA defines.
// Managed and mapped allocations have host == dev (the same pages mapped at the device address);
// registered host memory keeps its own address and gets a device buffer.
struct Mirror {
  enum Kind { Managed, ManagedVar, Mapped, Registered };
  Kind kind = Managed;
  uint64_t dev = 0;
  void* host = nullptr;
  size_t size = 0;
  size_t mapped_bytes = 0;  // pages mapped at `dev` for this mirror (0: host memory not ours)
  uint64_t block = 0;       // the platform allocation to free (0: a module variable's)
  unsigned flags = 0;       // as the program gave them (cudaHostGetFlags)
  // Which launches take it to the device (cudaMallocManaged's flags, cudaStreamAttachMemAsync):
  // every launch (global), none (host), or those of one stream (single).
  enum Scope { Global, Host, Single } scope = Global;
  rt::Stream stream = 0;     // Single's stream
  bool device_owns = false;  // copied to the device at a launch and not yet back
  // Mapped and registered memory while the device holds it: the host bytes as last exchanged with the
  // device, which tell what the host has written since (coherence.cc, zero_copy).
  std::vector<uint8_t> shadow;
};

// A cudaMallocHost/cudaHostAlloc block that is not mapped (mapped ones are mirrors).
struct HostBlock {
  size_t size = 0;
  unsigned flags = 0;  // as the program gave them (cudaHostGetFlags)
};

struct StreamRecord {
  rt::Stream id = 0;
  int priority = 0;
  unsigned flags = 0;
};

struct EventRecord {
  rt::Event ev;
  unsigned flags = 0;
  bool recorded = false;
};

// Where a launch goes: from __cudaPushCallConfiguration to __cudaPopCallConfiguration.
struct CallConfig {
  dim3 grid{1, 1, 1}, block{1, 1, 1};
  size_t shared = 0;
  void* stream = nullptr;
};

// A recursive mutex that the thread of a forked child still owns. std::recursive_mutex records the
// kernel's thread id, which differs in a child of fork(), so a child could never release what its
// thread held at the fork, and the library forks inside CUDA calls, which hold State::lock
// (cudart/fork_plan.h); std::thread::id (the thread's descriptor) is the same in the child.
class ForkableRecursiveMutex {
 public:
  void lock();
  void unlock();

 private:
  std::mutex m_;
  std::atomic<std::thread::id> owner_{};
  unsigned depth_ = 0;  // touched by the owner only
};

struct State {
  ForkableRecursiveMutex lock;
  // The process the platform runs in: a child the program forks has no simulation thread (CUDA: such
  // a child's calls fail); the library's own forked runs set it anew.
  pid_t pid = ::getpid();
  std::vector<std::unique_ptr<FatBinaryRecord>> fatbins;
  std::map<const void*, std::unique_ptr<KernelRecord>> kernels;  // by host function
  std::map<const void*, VarRecord> vars;                          // by host shadow variable
  std::map<uint64_t, size_t> device_allocs;                       // cudaMalloc: start -> bytes
  std::map<uint64_t, size_t> symbols;  // loaded modules' __device__ and __constant__ variables: start -> bytes
  std::map<const void*, HostBlock> host_allocs;                   // cudaMallocHost/HostAlloc (not mapped)
  std::map<uint64_t, Mirror> mirrors;                             // by device address
  std::map<uint64_t, size_t> pinned;  // cudaHostRegister without cudaHostRegisterMapped: nothing to mirror
  std::map<const void*, std::unique_ptr<StreamRecord>> streams;   // by handle (the record's address)
  std::map<const void*, std::unique_ptr<EventRecord>> events;
  // Platform events of destroyed CUDA events, for reuse once their records have completed: the
  // dispatcher has a fixed number of them (scheduler.events).
  std::vector<rt::Event> free_events;
  Error sticky = kSuccess;  // an error the device reported: every later call returns it (CUDA's rule)
  int device = 0;
  // What setup calls set and their Get counterparts return (the platform has nothing they change).
  unsigned device_flags = 0;     // cudaSetDeviceFlags
  int cache_config = 0;          // cudaDeviceSetCacheConfig
  std::map<int, size_t> limits;  // cudaDeviceSetLimit: cudaLimit -> value
  static State& get();
};

// The per-thread last error (cudaGetLastError) and the call configuration stack.
Error& last_error();
std::vector<CallConfig>& call_stack();

// The PTX of a registered wrapper; failures are kept in the record, never thrown (registration runs
// before main, where an exception would end the program without a word).
std::unique_ptr<FatBinaryRecord> read_fatbin(const void* wrapper);

// Loads the module into the platform if it is not yet (on the simulation's host thread).
const rt::Module& loaded(FatBinaryRecord& fb, rt::Runtime& rt);

// Throws cudaErrorInvalidPtx naming the kernel and the assembler's reason when `kernel` is one the
// assembler refused (its module loaded).
void check_runnable(const FatBinaryRecord& fb, const std::string& kernel);

// Whether [p, p + n) lies inside one of `ranges` (start -> bytes).
bool in_ranges(const std::map<uint64_t, size_t>& ranges, uint64_t p, size_t n);

}  // namespace gpuvp::cudart
