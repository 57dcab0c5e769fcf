// HotPages (faultinj/hot_pages.h): the pages most learning runs wrote are chosen, and a later forked
// run has them as its own (copied) before it writes them, the others still shared with its parent.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <set>

#include "faultinj/hot_pages.h"

using gpuvp::fi::HotPages;

namespace {

// Mapped by this process alone (/proc/self/pagemap bit 56): a private page after its copy on write.
bool exclusive(const void* p) {
  const int fd = ::open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0) return false;
  uint64_t e = 0;
  const auto page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const bool ok = ::pread(fd, &e, 8, off_t(reinterpret_cast<uintptr_t>(p) / page * 8)) == 8;
  ::close(fd);
  return ok && (e >> 63 & 1) && (e >> 56 & 1);
}

// A forked run as the campaign leader makes one: populate, run `body`, report; its exit status.
int run(HotPages& hot, const std::function<int()>& body) {
  const int slot = hot.slot_for_next_run();
  const pid_t pid = ::fork();
  if (pid == 0) {
    hot.populate();
    const int rc = body();
    hot.report(slot);
    ::_exit(rc);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (slot >= 0) hot.run_ended();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// What HotPages needs: /proc/self/pagemap with its exclusive bit, and madvise(MADV_POPULATE_READ).
bool usable() {
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  void* p = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  static_cast<char*>(p)[0] = 1;
  const bool pagemap = exclusive(p);
  const bool populate = ::madvise(p, page, 22) == 0;  // MADV_POPULATE_READ
  ::munmap(p, page);
  if (!pagemap) WARN("/proc/self/pagemap does not report exclusive pages here: skipped");
  if (!populate) WARN("madvise(MADV_POPULATE_READ) is not supported by this kernel (Linux 5.14 and later): skipped");
  return pagemap && populate;
}

// `n` private pages, each byte 1, written before the runs fork: shared with each run until it writes one.
struct Pages {
  explicit Pages(size_t n) : page(size_t(::sysconf(_SC_PAGESIZE))), len(n * page) {
    void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    buf = static_cast<uint8_t*>(p);
    std::memset(buf, 1, len);
  }
  ~Pages() { ::munmap(buf, len); }
  size_t page, len;
  uint8_t* buf = nullptr;
};

}  // namespace

TEST_CASE("hot pages: the pages most learning runs wrote are populated by every later run") {
  if (!usable()) return;
  Pages pages(16);
  const size_t page = pages.page;
  uint8_t* buf = pages.buf;
  HotPages hot(4, 0.75);
  // Four learning runs: pages 2..5 written by all, 12 by three of them (hot at 75 %), 9 by two (not).
  for (int k = 0; k < 4; ++k)
    CHECK(run(hot, [&] {
            for (int i = 2; i <= 5; ++i) ++buf[i * page];
            if (k < 2) ++buf[9 * page];
            if (k < 3) ++buf[12 * page];
            return 0;
          }) == 0);
  CHECK(hot.slot_for_next_run() == -1);  // learning is over
  const std::set<int> expected = {2, 3, 4, 5, 12};
  for (int i = 0; i < 16; ++i) {
    INFO("page " << i);
    CHECK(hot.hot(buf + i * page) == (expected.count(i) == 1));
  }
  // A later run: before writing anything, the hot pages are its own copies, the others still shared.
  CHECK(run(hot, [&] {
          for (int i = 0; i < 16; ++i)
            if (exclusive(buf + i * page) != (expected.count(i) == 1)) return 10 + i;
          return 0;
        }) == 0);
  // Its copies hold what the pages held: populating changes no value.
  CHECK(run(hot, [&] {
          for (int i = 0; i < 16; ++i)
            if (buf[i * page] != 1) return 10 + i;
          return 0;
        }) == 0);
}

TEST_CASE("hot pages: the share is of the runs that reported, not of those that died before") {
  if (!usable()) return;
  Pages pages(8);
  const size_t page = pages.page;
  uint8_t* buf = pages.buf;
  HotPages hot(4, 0.75);
  // Two runs die before reporting (a watchdog kill, a crash); the two that report both wrote pages 1
  // and 6, one of them page 3: 75 % of two reports is two.
  hot.slot_for_next_run();
  hot.run_ended();
  for (int k = 0; k < 2; ++k)
    CHECK(run(hot, [&] {
            ++buf[page], ++buf[6 * page];
            if (k == 0) ++buf[3 * page];
            return 0;
          }) == 0);
  hot.slot_for_next_run();
  hot.run_ended();
  for (int i = 0; i < 8; ++i) {
    INFO("page " << i);
    CHECK(hot.hot(buf + i * page) == (i == 1 || i == 6));
  }
}

TEST_CASE("hot pages: learning runs that report nothing choose nothing, and runs still populate nothing") {
  if (!usable()) return;
  HotPages hot(2, 0.5);
  const int a = hot.slot_for_next_run(), b = hot.slot_for_next_run();
  CHECK(a == 0);
  CHECK(b == 1);
  hot.run_ended();  // two runs that died before reporting
  hot.run_ended();
  CHECK(hot.slot_for_next_run() == -1);
  CHECK(hot.hot_pages() == 0);
  int x = 0;
  CHECK_FALSE(hot.hot(&x));
  hot.populate();  // no range: nothing happens
}
