#pragma once
// The launch pin bundles, declared once. LaunchConfigPins: what the configuration block drives to
// the block scheduler (register values). LaunchDimsPins: the launch dimensions the scheduler latches
// for the SMs. Each is instantiated with sc_in, sc_out or sc_signal; `bind` connects two bundles
// field by field (port to signal, or port to port), so wiring is one line.
#include <systemc>

#include <array>
#include <cstdint>
#include <string>
#include <tuple>

namespace gpuvp {

template <class T>
using InPin = sc_core::sc_in<T>;
template <class T>
using OutPin = sc_core::sc_out<T>;
template <class T>
using Wire = sc_core::sc_signal<T>;

// Binds each pin of `a` to the pin of `b` at the same position.
template <class A, class B>
void bind_pins(const A& a, const B& b) {
  static_assert(std::tuple_size<A>::value == std::tuple_size<B>::value, "bundles of different sizes");
  for (size_t i = 0; i < a.size(); ++i) (*a[i])(*b[i]);
}

template <template <class> class P>
struct LaunchConfigPins {
  static constexpr size_t kCount = 10;
  // `prefix` keeps the ports' SystemC names what they were ("cfg_grid_x" on the scheduler).
  explicit LaunchConfigPins(const std::string& prefix = "")
      : blocks_per_core((prefix + "blocks_per_core").c_str()),
        grid_x((prefix + "grid_x").c_str()), grid_y((prefix + "grid_y").c_str()), grid_z((prefix + "grid_z").c_str()),
        block_x((prefix + "block_x").c_str()), block_y((prefix + "block_y").c_str()),
        block_z((prefix + "block_z").c_str()),
        shmem_size((prefix + "shmem_size").c_str()),
        dyn_shmem_size((prefix + "dyn_shmem_size").c_str()),
        param_size((prefix + "param_size").c_str()) {}

  P<uint32_t> blocks_per_core, grid_x, grid_y, grid_z, block_x, block_y, block_z, shmem_size, dyn_shmem_size,
      param_size;

  std::array<P<uint32_t>*, kCount> all() {
    return {&blocks_per_core, &grid_x, &grid_y, &grid_z, &block_x, &block_y, &block_z,
            &shmem_size, &dyn_shmem_size, &param_size};
  }
  template <class Other>
  void bind(Other& o) { bind_pins(all(), o.all()); }
};

template <template <class> class P>
struct LaunchDimsPins {
  static constexpr size_t kCount = 8;
  explicit LaunchDimsPins(const std::string& prefix = "")
      : block_x((prefix + "block_x").c_str()), block_y((prefix + "block_y").c_str()),
        block_z((prefix + "block_z").c_str()),
        grid_x((prefix + "grid_x").c_str()), grid_y((prefix + "grid_y").c_str()), grid_z((prefix + "grid_z").c_str()),
        threads_per_block((prefix + "threads_per_block").c_str()),
        shmem_per_block((prefix + "shmem_per_block").c_str()) {}

  P<uint32_t> block_x, block_y, block_z, grid_x, grid_y, grid_z, threads_per_block, shmem_per_block;

  std::array<P<uint32_t>*, kCount> all() {
    return {&block_x, &block_y, &block_z, &grid_x, &grid_y, &grid_z, &threads_per_block, &shmem_per_block};
  }
  template <class Other>
  void bind(Other& o) { bind_pins(all(), o.all()); }
};

}  // namespace gpuvp
