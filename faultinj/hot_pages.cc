#include "faultinj/hot_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

namespace gpuvp::fi {

namespace {

constexpr size_t kSlot = 8192;                     // words per run's report: a count, then page numbers
constexpr uintptr_t kLargest = uintptr_t(256) << 20;  // larger mappings (memory arrays) are not scanned

struct Mapping {
  uintptr_t start = 0, end = 0;
  bool write = false, shared = false, readable = false, file = false, special = false;
};

// This process's mappings (/proc/self/maps), in address order.
std::vector<Mapping> mappings() {
  std::vector<Mapping> v;
  std::FILE* f = std::fopen("/proc/self/maps", "r");
  if (!f) return v;
  char line[4096];
  while (std::fgets(line, sizeof line, f)) {
    Mapping m;
    char perms[8] = {};
    unsigned long long start = 0, end = 0, inode = 0;
    int path_at = 0;
    if (std::sscanf(line, "%llx-%llx %7s %*s %*s %llu %n", &start, &end, perms, &inode, &path_at) < 4) continue;
    m.start = uintptr_t(start), m.end = uintptr_t(end);
    m.readable = perms[0] == 'r', m.write = perms[1] == 'w', m.shared = perms[3] == 's';
    m.file = inode != 0;
    m.special = std::strncmp(line + path_at, "[v", 2) == 0;  // [vdso], [vvar], [vvar_vclock], [vsyscall]
    v.push_back(m);
  }
  std::fclose(f);
  return v;
}

}  // namespace

HotPages::HotPages(unsigned learn, double share) : learn_(learn), share_(share) {
  void* p = ::mmap(nullptr, learn_ * kSlot * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
  if (p == MAP_FAILED || ::access("/proc/self/pagemap", R_OK) != 0) {
    if (p != MAP_FAILED) ::munmap(p, learn_ * kSlot * sizeof(uint64_t));
    chosen_ = true;  // nothing to learn with: runs fault their pages in one by one, as before
    return;
  }
  shared_ = static_cast<uint64_t*>(p);
}

HotPages::~HotPages() {
  if (shared_) ::munmap(shared_, learn_ * kSlot * sizeof(uint64_t));
}

int HotPages::slot_for_next_run() { return chosen_ || given_ >= learn_ ? -1 : int(given_++); }

void HotPages::run_ended() {
  if (chosen_ || ++ended_ < learn_) return;
  choose();
}

// The pages `share_` of the reports name, as ranges of one mapping each (written, or read only: code).
void HotPages::choose() {
  chosen_ = true;
  std::map<uint64_t, unsigned> count;
  for (unsigned s = 0; s < learn_; ++s) {
    const uint64_t* slot = shared_ + s * kSlot;
    for (uint64_t i = 1; i <= std::min<uint64_t>(slot[0], kSlot - 1); ++i) ++count[slot[i]];
  }
  const unsigned need = std::max(1u, unsigned(std::ceil(share_ * learn_)));
  const std::vector<Mapping> maps = mappings();
  const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  for (auto& [pn, c] : count) {
    if (c < need) continue;
    const uintptr_t a = uintptr_t(pn) * page;
    auto m = std::upper_bound(maps.begin(), maps.end(), a, [](uintptr_t x, const Mapping& y) { return x < y.start; });
    if (m == maps.begin() || a >= std::prev(m)->end) continue;  // unmapped since
    const Mapping& in = *std::prev(m);
    ++hot_;
    if (!ranges_.empty() && ranges_.back().start + ranges_.back().len == a && ranges_.back().write == in.write &&
        a != in.start) {
      ranges_.back().len += page;
      continue;
    }
    ranges_.push_back({a, page, in.write});
  }
}

bool HotPages::hot(const void* p) const {
  const auto a = reinterpret_cast<uintptr_t>(p);
  for (const Range& r : ranges_)
    if (a >= r.start && a < r.start + r.len) return true;
  return false;
}

void HotPages::populate() const {
  for (const Range& r : ranges_)
    (void)::madvise(reinterpret_cast<void*>(r.start), r.len, r.write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
}

// A page this run wrote: present in its page table and mapped by it alone (copied at its write, or
// new). Code and read-only data are not copied at fork: a page of them present was faulted in by the run.
void HotPages::report(int slot) const {
  if (slot < 0 || !shared_) return;
  uint64_t* out = shared_ + size_t(slot) * kSlot;
  const int fd = ::open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0) return;
  const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  uint64_t n = 0;
  std::vector<uint64_t> buf(4096);
  for (const Mapping& m : mappings()) {
    if (m.shared || !m.readable || m.special || m.end - m.start > kLargest) continue;
    const bool code = m.file && !m.write;
    for (uintptr_t a = m.start; a < m.end && n < kSlot - 1;) {
      const size_t pages = std::min<size_t>(buf.size(), (m.end - a) / page);
      const ssize_t got = ::pread(fd, buf.data(), pages * 8, off_t(a / page * 8));
      if (got <= 0) break;
      for (size_t i = 0; i < size_t(got) / 8 && n < kSlot - 1; ++i) {
        const bool present = buf[i] >> 63 & 1, exclusive = buf[i] >> 56 & 1;
        if (present && (code || exclusive)) out[1 + n++] = a / page + i;
      }
      a += size_t(got) / 8 * page;
    }
  }
  ::close(fd);
  out[0] = n;
}

}  // namespace gpuvp::fi
