#!/bin/sh
# Builds librdkafka.a from a librdkafka source tree (the one inside the npm package
# @confluentinc/kafka-javascript) in a copy under the build directory: librdkafka's configure
# writes its results into the source tree, and node_modules stays untouched.
#
#   build_librdkafka.sh <source tree> <copy to build in> <C compiler command>
#
# Called by CMakeLists.txt (a custom command that runs again only when the package or this script
# changes). The compiler command is plain cc, behind ccache when there is one: the library is a
# test tool, built without the sanitizer build's flags, and ccache makes a rebuild take seconds.
# Everything configure and make print goes to <copy>.log; on failure its end is printed.
set -eu
src=$1
dest=$2
cc=$3
log=$dest.log

rm -rf "$dest"
mkdir -p "$dest"
cp -R "$src/." "$dest"
cd "$dest"

# The flags of the environment (a sanitizer build's, say) must not reach the library.
unset CFLAGS CPPFLAGS CXXFLAGS LDFLAGS LIBS

# Only what the share consumer and the mock cluster need: plaintext connections, every codec
# (zlib and zstd from Debian, lz4 and snappy built in), no TLS, SASL/GSSAPI or HTTP (OIDC).
# --no-download: mklove would otherwise fetch missing modules from GitHub.
if ! { CC="$cc" ./configure --no-download --disable-ssl --disable-gssapi --disable-curl \
         --disable-lz4-ext --enable-zlib --enable-zstd &&
       make -C src librdkafka.a; } >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "build_librdkafka: building $dest failed; the whole output is in $log" >&2
  exit 1
fi
