#pragma once
// Runs Catch2's session (what Catch2's own main does). Defined in catch_impl.cc, the one source compiling
// Catch2's implementation: Catch2 declares its Session only there.
int gpuvp_catch_run(int argc, char* argv[]);
