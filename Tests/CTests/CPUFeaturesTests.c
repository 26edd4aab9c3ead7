// The CPU probe (CPUFeatures.c) against the compiler's own: the page engine's lanes and the
// settings search choose their code by it, so on a CPU that has AVX-512, VAES or the SHA
// extensions a probe that said no would only make them slower, and no other test would fail.

#include "CTest.h"
#include "CPUFeatures.h"

#if defined(__x86_64__) || defined(__i386__)

static void test_each_feature_as_the_compiler_sees_it(void) {
    __builtin_cpu_init();
    CHECK(cipherprovider_cpu_has(CPU_FEATURE_AES) == !!__builtin_cpu_supports("aes"));
    CHECK(cipherprovider_cpu_has(CPU_FEATURE_SSE41) == !!__builtin_cpu_supports("sse4.1"));
    CHECK(cipherprovider_cpu_has(CPU_FEATURE_SHA) == !!__builtin_cpu_supports("sha"));
    CHECK(cipherprovider_cpu_has(CPU_FEATURE_AVX512F) == !!__builtin_cpu_supports("avx512f"));
    CHECK(cipherprovider_cpu_has(CPU_FEATURE_AVX512BW) == !!__builtin_cpu_supports("avx512bw"));
    CHECK(cipherprovider_cpu_has(CPU_FEATURE_VAES) == !!__builtin_cpu_supports("vaes"));
}

static void test_a_set_is_had_only_when_each_member_is(void) {
    int each = cipherprovider_cpu_has(CPU_FEATURE_AVX512F) && cipherprovider_cpu_has(CPU_FEATURE_VAES) &&
               cipherprovider_cpu_has(CPU_FEATURE_AES);
    CHECK(cipherprovider_cpu_has(CPU_FEATURE_AVX512F | CPU_FEATURE_VAES | CPU_FEATURE_AES) == each);
    CHECK(cipherprovider_cpu_has(0) == 1);
}

#endif

int main(void) {
#if defined(__x86_64__) || defined(__i386__)
    test_each_feature_as_the_compiler_sees_it();
    test_a_set_is_had_only_when_each_member_is();
#else
    CHECK(cipherprovider_cpu_has(CPU_FEATURE_AES) == 0);
    CHECK(cipherprovider_cpu_has(CPU_FEATURE_AVX512F | CPU_FEATURE_AVX512BW) == 0);
#endif
    return ctest_finish("cpu features");
}
