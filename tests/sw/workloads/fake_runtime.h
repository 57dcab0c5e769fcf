#pragma once
// A runtime that executes nothing: it keeps device memory on the host and, at each launch, checks
// the kernel name and the argument sizes against the PTX entry's parameter list. It lets the tests
// drive every workload's host code without the simulator.
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "sw/runtime/runtime.h"

namespace gpuvp::test {

class FakeRuntime : public rt::Runtime {
 public:
  struct Launch {
    std::string kernel;
    rt::Dim3 grid, block;
    uint32_t blocks_per_core;
  };
  std::vector<Launch> calls;
  rt::DeviceProps props;
  const rt::DeviceProps& device() const override { return props; }

  rt::DevPtr malloc(size_t bytes) override {
    rt::DevPtr p = next_;
    next_ += (bytes + 255) / 256 * 256 + 256;
    mem_[p].assign(bytes, 0xcd);
    return p;
  }
  void free(rt::DevPtr p) override {
    if (!mem_.erase(p)) throw rt::RuntimeError("free of an unknown pointer");
  }
  void memcpy_h2d(rt::DevPtr dst, const void* src, size_t bytes) override {
    std::memcpy(at(dst, bytes), src, bytes);
  }
  void memcpy_d2h(void* dst, rt::DevPtr src, size_t bytes) override { std::memcpy(dst, at(src, bytes), bytes); }
  void memset(rt::DevPtr dst, uint8_t value, size_t bytes) override { std::memset(at(dst, bytes), value, bytes); }
  rt::Module load_module(const std::string& ptx_text, const std::string&) override {
    modules_.push_back(ptx_text);
    return rt::Module{int(modules_.size() - 1), nullptr};
  }
  uint64_t launch(const rt::Module& m, const std::string& kernel, rt::Dim3 grid, rt::Dim3 block,
                         const rt::KernelArgs& args, uint32_t, uint32_t blocks_per_core) override {
    auto sizes = param_sizes(modules_.at(m.id), kernel);
    if (sizes.size() != args.args().size())
      throw rt::RuntimeError(kernel + ": " + std::to_string(args.args().size()) + " arguments for " +
                             std::to_string(sizes.size()) + " parameters");
    for (size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] != args.args()[i].size())
        throw rt::RuntimeError(kernel + ": argument " + std::to_string(i) + " has the wrong size");
    if (grid.count() == 0 || block.count() == 0 || block.count() > 1024)
      throw rt::RuntimeError(kernel + ": bad launch geometry");
    calls.push_back({kernel, grid, block, blocks_per_core});
    stats_.push_back(rt::LaunchStats{kernel, stats_.size() + 1, 0, 0, 0, blocks_per_core, 0, {}});
    return stats_.back().launch_id;
  }
  void synchronize() override {}
  void set_device_output(std::ostream*) override {}  // its kernels print nothing
  const std::vector<rt::LaunchStats>& launches() const override { return stats_; }
  size_t live_allocations() const { return mem_.size(); }

  // Sizes of the parameters of `.entry kernel(...)`; throws if there is no such entry.
  static std::vector<size_t> param_sizes(const std::string& ptx, const std::string& kernel) {
    auto pos = ptx.find(".entry " + kernel + "(");
    if (pos == std::string::npos) throw rt::RuntimeError("no entry " + kernel);
    auto end = ptx.find(')', pos);
    std::string params = ptx.substr(pos, end - pos);
    std::vector<size_t> sizes;
    std::regex re(R"(\.param\s+(?:\.align\s+\d+\s+)?\.([bsuf])(\d+)\s+\w+(?:\[(\d+)\])?)");
    for (std::sregex_iterator it(params.begin(), params.end(), re), e; it != e; ++it) {
      size_t bits = std::stoul((*it)[2]);
      size_t count = (*it)[3].matched ? std::stoul((*it)[3]) : 1;
      sizes.push_back(bits / 8 * count);
    }
    return sizes;
  }

 private:
  uint8_t* at(rt::DevPtr p, size_t bytes) {
    auto it = mem_.upper_bound(p);
    if (it == mem_.begin()) throw rt::RuntimeError("bad device pointer");
    --it;
    if (p + bytes > it->first + it->second.size()) throw rt::RuntimeError("access beyond an allocation");
    return it->second.data() + (p - it->first);
  }
  rt::DevPtr next_ = 0x10000;
  std::map<rt::DevPtr, std::vector<uint8_t>> mem_;
  std::vector<std::string> modules_;
  std::vector<rt::LaunchStats> stats_;
};

}  // namespace gpuvp::test
