#pragma once
// Where SMs put the lines their threads print (device printf); the platform owns it and hands the
// lines of a kernel to the host when it synchronises, as CUDA prints its printf buffer then. The
// SM never sees stdout. Like CUDA's printf FIFO (cudaLimitPrintfFifoSize) it holds a fixed number
// of bytes of text between two takes; lines beyond it are dropped and counted, never buffered.
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
  bool cut = false;  // the line was longer than the FIFO: `text` is its beginning only
};

class PrintSink {
 public:
  static constexpr uint64_t kDefaultCapacity = 1048576;  // CUDA's default printf FIFO, 1 MiB

  void set_capacity(uint64_t bytes) { capacity_ = bytes; }
  uint64_t capacity() const { return capacity_; }

  // Keeps the line if its text fits what is left of the FIFO, else drops and counts it. The hash
  // covers every line, kept or not.
  void add(DevicePrint p) {
    mix(p.block);
    mix(p.thread);
    for (char c : p.text) mix(uint8_t(c));
    if (p.cut) mix(0xc07);
    if (p.text.empty() && !p.cut) return;  // prints nothing, takes no room
    if (p.cut || p.text.size() > capacity_ - used_) {
      ++dropped_;
      return;
    }
    used_ += p.text.size();
    lines_.push_back(std::move(p));
  }
  // A hash of everything added so far, in order (take() does not reset it): part of the platform's
  // state hash, so a run that printed other text never counts as having reconverged.
  uint64_t hash() const { return hash_; }
  // Everything kept since the last take, in block order, then thread order, each thread's lines in
  // the order it printed them (the sort is stable), then a line saying how many were dropped, if
  // any; empties the FIFO.
  std::string take() {
    std::stable_sort(lines_.begin(), lines_.end(), [](const DevicePrint& a, const DevicePrint& b) {
      return a.block != b.block ? a.block < b.block : a.thread < b.thread;
    });
    std::string out;
    for (auto& l : lines_) out += l.text;
    if (dropped_)
      out += "gpuvp: device printf FIFO full (" + std::to_string(capacity_) + " bytes): " + std::to_string(dropped_) +
             (dropped_ == 1 ? " line" : " lines") + " dropped (host.printf_fifo_bytes sets its size)\n";
    lines_.clear();
    lines_.shrink_to_fit();
    used_ = dropped_ = 0;
    return out;
  }

 private:
  void mix(uint64_t v) { hash_ = (hash_ ^ v) * 0x100000001b3ull; }  // FNV-1a step

  std::vector<DevicePrint> lines_;
  uint64_t capacity_ = kDefaultCapacity;
  uint64_t used_ = 0;     // bytes of text kept since the last take
  uint64_t dropped_ = 0;  // lines dropped since the last take
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

}  // namespace gpuvp
