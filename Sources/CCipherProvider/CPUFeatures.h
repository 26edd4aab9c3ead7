#ifndef CIPHERPROVIDER_CPU_FEATURES_H
#define CIPHERPROVIDER_CPU_FEATURES_H

// The x86 instruction sets the page engine and the settings search choose their code by.
enum {
    CPU_FEATURE_AES = 1u << 0,
    CPU_FEATURE_SSE41 = 1u << 1,
    CPU_FEATURE_SHA = 1u << 2,
    CPU_FEATURE_AVX512F = 1u << 3,
    CPU_FEATURE_AVX512BW = 1u << 4,
    CPU_FEATURE_VAES = 1u << 5,
};

// 1 when the CPU has every feature in `features` (and, for the AVX-512 and VAES ones, the
// kernel saves the registers they use), else 0; always 0 elsewhere than x86. The CPU is
// asked once, on the first call, not at the start of every process.
int cipherprovider_cpu_has(unsigned features);

#endif
