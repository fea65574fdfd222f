// The one include for standalone Asio with C++20 coroutines. Only targets that link the
// mirra_asio interface library may include it: it defines ASIO_STANDALONE and
// ASIO_NO_DEPRECATED, plus ASIO_HAS_CO_AWAIT/ASIO_HAS_STD_COROUTINE, which Asio 1.22 does not
// detect on clang 14 with libstdc++ (see the top-level CMakeLists.txt).
#pragma once

#include <asio.hpp>
