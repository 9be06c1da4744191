// What makes objects of one module unusable in another even when the plugin API matches: the
// compiler's C++ ABI, the standard library's string ABI, and Eigen's version, alignment,
// vectorization and index type. Eigen matrices cross the plugin boundary (a kernel returns
// an Eigen::MatrixXd the host frees), so a plugin built with -mavx2 (EIGEN_MAX_ALIGN_BYTES
// 32, Eigen's own aligned malloc) next to a host built without (16, plain malloc) corrupts
// the heap on the first free.
//
// QUENCH_ABI_FINGERPRINT expands to the values of the translation unit it is expanded in: the
// plugin records its own in its LibraryDescriptor, the registry its own, and they must be
// equal field by field.
//
// Vectorization: only the ISA levels that change Eigen's alignment and packet layout are
// recorded (SSE2 16 bytes, AVX 32, AVX-512 64, and NEON/AltiVec on other hosts). FMA, AVX2,
// SSE3/SSSE3/SSE4 or F16C change the instructions Eigen emits, not the layout of its objects,
// so modules that differ only in them may be mixed and are not refused.
#pragma once

#include <cstdint>

#include <Eigen/Core>

namespace quench {

/// Fixed layout, C types only: read by a host before anything else of the plugin is trusted.
struct AbiFingerprint {
  std::uint32_t gxx_abi_version;               ///< __GXX_ABI_VERSION (0: not a GNU C++ ABI)
  std::uint32_t glibcxx_use_cxx11_abi;         ///< _GLIBCXX_USE_CXX11_ABI (2: not libstdc++)
  std::uint32_t eigen_world_version;           ///< EIGEN_WORLD_VERSION
  std::uint32_t eigen_major_version;           ///< EIGEN_MAJOR_VERSION
  std::uint32_t eigen_minor_version;           ///< EIGEN_MINOR_VERSION
  std::uint32_t eigen_max_align_bytes;         ///< EIGEN_MAX_ALIGN_BYTES
  std::uint32_t eigen_max_static_align_bytes;  ///< EIGEN_MAX_STATIC_ALIGN_BYTES
  std::uint32_t eigen_vectorize_sse2;          ///< EIGEN_VECTORIZE_SSE2 defined (1) or not (0)
  std::uint32_t eigen_vectorize_avx;           ///< EIGEN_VECTORIZE_AVX
  std::uint32_t eigen_vectorize_avx512;        ///< EIGEN_VECTORIZE_AVX512 (AVX-512F)
  std::uint32_t eigen_vectorize_neon;          ///< EIGEN_VECTORIZE_NEON
  std::uint32_t eigen_vectorize_altivec;       ///< EIGEN_VECTORIZE_ALTIVEC
  std::uint32_t sizeof_eigen_index;            ///< sizeof(Eigen::Index)
};

}  // namespace quench

#ifdef __GXX_ABI_VERSION
#define QUENCH_ABI_GXX_ __GXX_ABI_VERSION
#else
#define QUENCH_ABI_GXX_ 0
#endif
#ifdef _GLIBCXX_USE_CXX11_ABI
#define QUENCH_ABI_CXX11_ _GLIBCXX_USE_CXX11_ABI
#else
#define QUENCH_ABI_CXX11_ 2
#endif
#ifdef EIGEN_VECTORIZE_SSE2
#define QUENCH_ABI_SSE2_ 1
#else
#define QUENCH_ABI_SSE2_ 0
#endif
#ifdef EIGEN_VECTORIZE_AVX
#define QUENCH_ABI_AVX_ 1
#else
#define QUENCH_ABI_AVX_ 0
#endif
#ifdef EIGEN_VECTORIZE_AVX512
#define QUENCH_ABI_AVX512_ 1
#else
#define QUENCH_ABI_AVX512_ 0
#endif
#ifdef EIGEN_VECTORIZE_NEON
#define QUENCH_ABI_NEON_ 1
#else
#define QUENCH_ABI_NEON_ 0
#endif
#ifdef EIGEN_VECTORIZE_ALTIVEC
#define QUENCH_ABI_ALTIVEC_ 1
#else
#define QUENCH_ABI_ALTIVEC_ 0
#endif

/// The AbiFingerprint of the translation unit this is expanded in (a braced initializer).
#define QUENCH_ABI_FINGERPRINT                                                    \
  ::quench::AbiFingerprint {                                                      \
    QUENCH_ABI_GXX_, QUENCH_ABI_CXX11_, EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, \
        EIGEN_MINOR_VERSION, EIGEN_MAX_ALIGN_BYTES, EIGEN_MAX_STATIC_ALIGN_BYTES, \
        QUENCH_ABI_SSE2_, QUENCH_ABI_AVX_, QUENCH_ABI_AVX512_, QUENCH_ABI_NEON_,  \
        QUENCH_ABI_ALTIVEC_, static_cast<std::uint32_t>(sizeof(::Eigen::Index))   \
  }
