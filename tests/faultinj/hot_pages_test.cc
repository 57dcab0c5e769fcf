// HotPages (faultinj/hot_pages.h): the pages most learning runs wrote are chosen, and a later forked
// run has them as its own (copied) before it writes them, the others still shared with its parent.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace

TEST_CASE("hot pages: the pages most learning runs wrote are populated by every later run") {
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  char probe[1] = {0};
  if (::madvise(reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(probe) / page * page), page, 22) != 0 &&
      errno == EINVAL) {
    WARN("madvise(MADV_POPULATE_READ) is not supported by this kernel (Linux 5.14 and later): skipped");
    return;
  }
  // 16 pages written before the runs fork: shared with each run until it writes one.
  auto* buf = static_cast<uint8_t*>(::mmap(nullptr, 16 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(buf != MAP_FAILED);
  std::memset(buf, 1, 16 * page);
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
  ::munmap(buf, 16 * page);
}

TEST_CASE("hot pages: learning runs that report nothing choose nothing, and runs still populate nothing") {
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
