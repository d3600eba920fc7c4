// The one translation unit that compiles Catch2's runner; every test binary links its object.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
