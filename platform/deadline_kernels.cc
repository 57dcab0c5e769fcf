#include "platform/deadline_kernels.h"

namespace gpuvp::deadline {

uint64_t LaunchHook::launch(const rt::Module& m, const std::string& kernel, rt::Dim3 grid, rt::Dim3 block,
                            const rt::KernelArgs& args, uint32_t dyn_shmem, uint32_t /*blocks_per_core*/) {
  const uint64_t id = hook_(Launch{m, kernel, grid, block, args, dyn_shmem});
  rt::LaunchStats s;
  s.kernel = kernel;
  s.launch_id = id;
  stats_.push_back(s);
  return id;
}

}  // namespace gpuvp::deadline
