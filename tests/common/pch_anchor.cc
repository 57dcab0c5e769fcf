// The translation unit that builds the test sources' precompiled header (tests/CMakeLists.txt).
