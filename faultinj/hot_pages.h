#pragma once
// The pages most faulty runs write, faulted in by each run in a few calls instead of one page fault
// each. A forked run shares the leader's pages and copies each page it writes at its first write; on
// a virtual machine a page fault costs tens of microseconds (docs/campaigns.md, "Campaign speed"), a
// run writes about 300 pages, and most runs write the same ones (the model state every run touches,
// the allocator's lists, the code it executes). The first runs report which pages they wrote (from
// /proc/self/pagemap; the leader waits while such a run lives, so that its own writes do not count),
// the leader keeps those most of the reports name, and every later run populates them at once (madvise
// MADV_POPULATE_WRITE, MADV_POPULATE_READ for code: Linux 5.14). What a run computes is unchanged: a
// page faulted in early holds what it held. Without /proc nothing is learned; on an older kernel the
// first runs still report, and nothing more is done.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuvp::fi {

class HotPages {
 public:
  // `learn`: how many runs report their pages; a page is hot when `share` of them wrote it.
  explicit HotPages(unsigned learn = 16, double share = 0.8);
  ~HotPages();
  HotPages(const HotPages&) = delete;
  HotPages& operator=(const HotPages&) = delete;

  // Leader, before forking a run: the report slot that run fills (-1: none, learning is over).
  int slot_for_next_run();
  // Leader, after a run ended: once every learning run has ended, the hot pages are chosen.
  void run_ended();
  // In a run, at its start: populates the hot pages (nothing while learning).
  void populate() const;
  // In a run, at its end: writes the pages it wrote into `slot` (from slot_for_next_run).
  void report(int slot) const;

  size_t hot_pages() const { return hot_; }
  bool hot(const void* p) const;  // in a hot page

 private:
  struct Range {
    uintptr_t start;
    size_t len;
    bool write;
  };
  void choose();

  unsigned learn_;
  double share_;
  unsigned given_ = 0, ended_ = 0;
  uint64_t* shared_ = nullptr;  // learn_ slots of kSlot words: count, then page numbers
  std::vector<Range> ranges_;
  size_t hot_ = 0;
  bool chosen_ = false;
};

}  // namespace gpuvp::fi
