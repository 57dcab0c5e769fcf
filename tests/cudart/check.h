// Shared by the CUDA test programs: a failed CUDA call or a wrong value ends the program with exit 1
// and a line saying what and where; the test passes on exit 0.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                    \
  do {                                                                                                 \
    cudaError_t e_ = (call);                                                                           \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_), \
                   cudaGetErrorName(e_));                                                              \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

#define EXPECT(cond, ...)                                         \
  do {                                                            \
    if (!(cond)) {                                                \
      std::fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                          \
      std::fprintf(stderr, "\n");                                 \
      std::exit(1);                                               \
    }                                                             \
  } while (0)

// Expects `call` to return the error `code` (compared by value and by name).
#define EXPECT_ERROR(call, code)                                                                     \
  do {                                                                                               \
    cudaError_t e_ = (call);                                                                         \
    EXPECT(e_ == (code), "%s returned %s, expected %s", #call, cudaGetErrorName(e_), #code);         \
  } while (0)
