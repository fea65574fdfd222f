# Sourced by scripts/run.sh and scripts/test.sh (from the repository root): the one place that
# says how each build directory is configured. Both commands configure build/ with exactly the
# same options and ccache settings, so whichever runs second reuses the first one's objects
# instead of recompiling the tree.

# ccache keys on paths relative to the checkout, so a fresh clone in another folder (CI) reuses
# the objects an earlier build of the same sources left in the cache.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

# The release build (g++): what scripts/run.sh runs and the first stage of scripts/test.sh.
mirra_configure_release() {
  cmake -S . -B build -G Ninja -DMIRRA_WERROR=ON >/dev/null
}

# The sanitizer build (clang, ASan + UBSan, libFuzzer targets): the second stage of
# scripts/test.sh.
mirra_configure_asan() {
  cmake -S . -B build-asan -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DMIRRA_SANITIZE=ON -DMIRRA_FUZZ=ON -DMIRRA_BENCH=OFF -DMIRRA_WERROR=ON >/dev/null
}
