#pragma once
// Where SMs put the lines their threads print (device printf); the platform owns it and hands the
// lines of a kernel to the host when it synchronises, as CUDA prints its printf buffer then. The
// SM never sees stdout.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpuvp {

// One line one thread printed: its block's linear index and its linear index in the block order
// the output (SMs run blocks concurrently, so the order of arrival depends on timing).
struct DevicePrint {
  uint64_t block = 0;
  uint32_t thread = 0;
  std::string text;
};

class PrintSink {
 public:
  void add(DevicePrint p) {
    mix(p.block);
    mix(p.thread);
    for (char c : p.text) mix(uint8_t(c));
    lines_.push_back(std::move(p));
  }
  // A hash of everything added so far, in order (take() does not reset it): part of the platform's
  // state hash, so a run that printed other text never counts as having reconverged.
  uint64_t hash() const { return hash_; }
  // Everything printed since the last take, in block order, then thread order, each thread's
  // lines in the order it printed them (the sort is stable); empties the sink.
  std::string take() {
    std::stable_sort(lines_.begin(), lines_.end(), [](const DevicePrint& a, const DevicePrint& b) {
      return a.block != b.block ? a.block < b.block : a.thread < b.thread;
    });
    std::string out;
    for (auto& l : lines_) out += l.text;
    lines_.clear();
    return out;
  }

 private:
  void mix(uint64_t v) { hash_ = (hash_ ^ v) * 0x100000001b3ull; }  // FNV-1a step

  std::vector<DevicePrint> lines_;
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

}  // namespace gpuvp
