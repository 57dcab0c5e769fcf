#pragma once
// Helpers for `gpuvp exec` tests: PTX of a tests/data/exec/*.cu (regenerated with nvcc when it is
// installed, else the committed .ptx), running the binary, reading dumped buffers.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "common/subprocess.h"
#include "platform/exec_init.h"

namespace exectest {
using namespace gpuvp::test;

constexpr const char* kNvcc = "/usr/local/cuda/bin/nvcc";

inline bool have_nvcc() { return ::access(kNvcc, X_OK) == 0; }

// tests/data/exec/STEM.ptx, or with nvcc present the PTX nvcc makes now from STEM.cu. The result is
// cached under /tmp by the .cu's content (ctest runs every TEST_CASE as its own process).
inline std::string ptx_of(const std::string& stem) {
  std::string cu = std::string(GPUVP_TEST_DATA) + "/exec/" + stem + ".cu";
  std::string committed = std::string(GPUVP_TEST_DATA) + "/exec/" + stem + ".ptx";
  if (!have_nvcc()) return committed;
  std::string src = slurp(cu);
  REQUIRE(!src.empty());
  std::string dir = fmt::format("/tmp/gpuvp_nvcc_{:016x}", std::hash<std::string>{}(src + stem));
  std::string out = dir + "/" + stem + ".ptx";
  if (::access(out.c_str(), R_OK) == 0) return out;
  ::mkdir(dir.c_str(), 0755);
  std::string tmp = fmt::format("{}/{}.{}.tmp.ptx", dir, stem, ::getpid());
  RunResult r = run_cmd(fmt::format("{} -ptx -O3 -arch=sm_75 {} -o {}", kNvcc, cu, tmp));
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE(std::rename(tmp.c_str(), out.c_str()) == 0);
  return out;
}

template <typename T>
std::vector<T> read_bin(const std::string& path, size_t n) {
  std::string s = slurp(path);
  REQUIRE(s.size() == n * sizeof(T));
  std::vector<T> v(n);
  std::memcpy(v.data(), s.data(), s.size());
  return v;
}

// Runs `gpuvp exec` with the given arguments; fails the test (with stderr) on a non-zero status.
inline RunResult exec_ok(const std::string& args) {
  RunResult r = run_gpuvp("exec " + args);
  INFO("gpuvp exec " << args << "\n" << r.out << r.err);
  REQUIRE(r.status == 0);
  return r;
}

// Output file paths that are removed at the end of the test.
struct Outs {
  std::vector<std::string> paths;
  std::string operator()(const std::string& stem) {
    paths.push_back(temp_path(stem));
    return paths.back();
  }
  ~Outs() {
    for (auto& p : paths) std::remove(p.c_str());
  }
};

// Writes v to a temporary file of `outs` (an exec buffer's file=PATH input) and returns its path.
template <typename T>
std::string write_bin(Outs& outs, const std::string& stem, const std::vector<T>& v) {
  std::string path = outs(stem);
  FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f);
  REQUIRE(std::fwrite(v.data(), sizeof(T), v.size(), f) == v.size());
  std::fclose(f);
  return path;
}

}  // namespace exectest
