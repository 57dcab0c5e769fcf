#include "faultinj/hot_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

namespace gpuvp::fi {

namespace {

// A learning run's slot in the shared region: a header (kReported | the count), the page numbers, and
// scratch space for its report's reads, so that reporting writes no page of the run's own memory.
constexpr size_t kPages = 8191;
constexpr size_t kScratchWords = 4096;   // pagemap entries read at once
constexpr size_t kMapsBytes = 64 << 10;  // /proc/self/maps read in chunks of this size
constexpr size_t kSlotWords = 1 + kPages + kScratchWords + kMapsBytes / 8;
constexpr uint64_t kReported = uint64_t(1) << 63;
constexpr uintptr_t kLargest = uintptr_t(256) << 20;  // larger mappings (memory arrays) are not scanned

struct Mapping {
  uintptr_t start = 0, end = 0;
  bool write = false, shared = false, readable = false, file = false, special = false;
};

bool parse_mapping(const char* line, Mapping& m) {
  char perms[8] = {};
  unsigned long long start = 0, end = 0, inode = 0;
  int path_at = 0;
  if (std::sscanf(line, "%llx-%llx %7s %*s %*s %llu %n", &start, &end, perms, &inode, &path_at) < 4) return false;
  m.start = uintptr_t(start), m.end = uintptr_t(end);
  m.readable = perms[0] == 'r', m.write = perms[1] == 'w', m.shared = perms[3] == 's';
  m.file = inode != 0;
  m.special = std::strncmp(line + path_at, "[v", 2) == 0;  // [vdso], [vvar], [vvar_vclock], [vsyscall]
  return true;
}

// Calls f for each mapping of this process (/proc/self/maps), read through `buf` (no allocation).
template <typename F>
void for_each_mapping(char* buf, size_t cap, F&& f) {
  const int fd = ::open("/proc/self/maps", O_RDONLY);
  if (fd < 0) return;
  size_t have = 0;
  for (;;) {
    const ssize_t got = ::read(fd, buf + have, cap - 1 - have);
    if (got <= 0) break;
    have += size_t(got);
    buf[have] = 0;
    char* line = buf;
    while (char* nl = static_cast<char*>(std::memchr(line, '\n', size_t(buf + have - line)))) {
      *nl = 0;
      Mapping m;
      if (parse_mapping(line, m)) f(m);
      line = nl + 1;
    }
    have = size_t(buf + have - line);
    std::memmove(buf, line, have);
    if (have == cap - 1) have = 0;  // a line longer than the buffer: dropped
  }
  ::close(fd);
}

std::vector<Mapping> mappings() {
  std::vector<Mapping> v;
  std::vector<char> buf(kMapsBytes);
  for_each_mapping(buf.data(), buf.size(), [&](const Mapping& m) { v.push_back(m); });
  return v;
}

}  // namespace

HotPages::HotPages(unsigned learn, double share) : learn_(learn), share_(share) {
  void* p = ::mmap(nullptr, learn_ * kSlotWords * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED || ::access("/proc/self/pagemap", R_OK) != 0) {
    if (p != MAP_FAILED) ::munmap(p, learn_ * kSlotWords * sizeof(uint64_t));
    chosen_ = true;  // nothing to learn with: runs fault their pages in one by one, as before
    return;
  }
  shared_ = static_cast<uint64_t*>(p);
}

HotPages::~HotPages() {
  if (shared_) ::munmap(shared_, learn_ * kSlotWords * sizeof(uint64_t));
}

int HotPages::slot_for_next_run() { return chosen_ || given_ >= learn_ ? -1 : int(given_++); }

void HotPages::run_ended() {
  if (chosen_ || ++ended_ < learn_) return;
  choose();
}

// The pages `share_` of the reports name (runs that died without reporting do not count), as ranges of
// one mapping each: written (copied when populated) or read only (code, mapped when populated).
void HotPages::choose() {
  chosen_ = true;
  std::map<uint64_t, unsigned> count;
  unsigned reports = 0;
  for (unsigned s = 0; s < learn_; ++s) {
    const uint64_t* slot = shared_ + s * kSlotWords;
    if (!(slot[0] & kReported)) continue;
    ++reports;
    for (uint64_t i = 1; i <= std::min<uint64_t>(slot[0] & ~kReported, kPages); ++i) ++count[slot[i]];
  }
  if (reports == 0) return;
  const unsigned need = std::max(1u, unsigned(std::ceil(share_ * reports)));
  const std::vector<Mapping> maps = mappings();
  const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  for (auto& [pn, c] : count) {
    if (c < need) continue;
    const uintptr_t a = uintptr_t(pn) * page;
    auto m = std::upper_bound(maps.begin(), maps.end(), a, [](uintptr_t x, const Mapping& y) { return x < y.start; });
    if (m == maps.begin() || a >= std::prev(m)->end) continue;  // unmapped since
    const Mapping& in = *std::prev(m);
    if (in.shared || !in.readable) continue;  // changed since
    ++hot_;
    if (!ranges_.empty() && ranges_.back().start + ranges_.back().len == a && ranges_.back().write == in.write &&
        a != in.start) {
      ranges_.back().len += page;
      continue;
    }
    ranges_.push_back({a, page, in.write});
  }
  // A kernel without MADV_POPULATE_* (before 5.14) refuses it: then no run tries.
  static const char probe = 0;
  const auto at = reinterpret_cast<uintptr_t>(&probe) / page * page;
  if (::madvise(reinterpret_cast<void*>(at), page, MADV_POPULATE_READ) != 0 && errno == EINVAL) {
    ranges_.clear();
    hot_ = 0;
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
// new; the leader waits while a learning run lives, so none of its own copies count). Read-only file
// mappings (code) are not copied at fork: a page of them present was faulted in by the run.
void HotPages::report(int slot) const {
  if (slot < 0 || !shared_) return;
  uint64_t* out = shared_ + size_t(slot) * kSlotWords;
  uint64_t* entries = out + 1 + kPages;
  char* text = reinterpret_cast<char*>(entries + kScratchWords);
  const int fd = ::open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0) return;
  const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  uint64_t n = 0;
  for_each_mapping(text, kMapsBytes, [&](const Mapping& m) {
    if (m.shared || !m.readable || m.special || m.end - m.start > kLargest) return;
    const bool code = m.file && !m.write;
    for (uintptr_t a = m.start; a < m.end && n < kPages;) {
      const size_t pages = std::min<size_t>(kScratchWords, (m.end - a) / page);
      const ssize_t got = ::pread(fd, entries, pages * 8, off_t(a / page * 8));
      if (got <= 0) break;
      for (size_t i = 0; i < size_t(got) / 8 && n < kPages; ++i) {
        const bool present = entries[i] >> 63 & 1, exclusive = entries[i] >> 56 & 1;
        if (present && (code || exclusive)) out[1 + n++] = a / page + i;
      }
      a += size_t(got) / 8 * page;
    }
  });
  ::close(fd);
  out[0] = kReported | n;
}

}  // namespace gpuvp::fi
