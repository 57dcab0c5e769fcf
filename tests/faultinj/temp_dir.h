#pragma once
// A per-test scratch directory under the system temp directory, removed (files and all) at the end.
// The process id is part of the name so that two suites running at once (two worktrees) never share one.
#include <filesystem>
#include <string>

#include <unistd.h>

namespace gpuvp::fi::test {

struct TempDir {
  std::filesystem::path dir;
  explicit TempDir(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / ("gpuvp_faultinj_test_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~TempDir() { std::filesystem::remove_all(dir); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator()(const std::string& file) const { return (dir / file).string(); }
};

}  // namespace gpuvp::fi::test
