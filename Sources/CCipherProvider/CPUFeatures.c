// What the CPU offers, asked with CPUID on first use. The compiler's __builtin_cpu_supports
// would do the same, but it links a constructor that asks the CPU at the start of every
// process, and on a virtual machine each CPUID leaves to the hypervisor (about 3.6 us here):
// tens of microseconds on `cipherctl --version`, which uses none of it (docs/performance.md,
// "Start-up"). The bits are those of Intel's SDM, volume 2A, CPUID, and the register checks
// those of its section 15.2 (AVX-512 needs XCR0's SSE, AVX, opmask and ZMM states), which is
// also how the compiler's runtime decides.

#include "CPUFeatures.h"
#include "CryptoMode.h"

#if defined(__x86_64__) || defined(__i386__)

#include <cpuid.h>
#include <pthread.h>

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static unsigned available;

// XCR0, the register states the kernel saves and restores (read only when OSXSAVE is set).
static unsigned long long saved_states(void) {
    unsigned low, high;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    return ((unsigned long long)high << 32) | low;
}

static void probe(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return;
    unsigned found = 0;
    if (ecx & bit_AES) found |= CPU_FEATURE_AES;
    if (ecx & bit_SSE4_1) found |= CPU_FEATURE_SSE41;
    int avx = (ecx & bit_OSXSAVE) && (ecx & bit_AVX) && (saved_states() & 0x6) == 0x6;
    int avx512 = avx && (saved_states() & 0xe0) == 0xe0;
    if (__get_cpuid_max(0, 0) >= 7) {
        __cpuid_count(7, 0, eax, ebx, ecx, edx);
        if (ebx & bit_SHA) found |= CPU_FEATURE_SHA;
        if (avx512 && (ebx & bit_AVX512F)) found |= CPU_FEATURE_AVX512F;
        if (avx512 && (ebx & bit_AVX512BW)) found |= CPU_FEATURE_AVX512BW;
        if (avx && (ecx & bit_VAES)) found |= CPU_FEATURE_VAES;
    }
    available = found;
}

int cipherprovider_cpu_has(unsigned features) {
    // FIPS mode chooses none of the CPU-specific crypto: OpenSSL's EVP does it all.
    if (cipherprovider_fips()) return 0;
    pthread_once(&probe_once, probe);
    return (available & features) == features;
}

#else

int cipherprovider_cpu_has(unsigned features) {
    (void)features;
    return 0;
}

#endif
