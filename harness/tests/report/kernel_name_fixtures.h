/* kernel_name_fixtures.h: real kernel names from the evidence, shared by the tests of the
 * kernel-name matcher (test_kernel_names.c) and of the report's resource columns
 * (test_report.c). Rung 10 at 1x8x512x64 (the H100 and H200 reference runs of 2b3275c):
 * the name the profiler printed, and its build's entries for D = 64 and 128. */
#ifndef ATTNLADDER_TESTS_KERNEL_NAME_FIXTURES_H
#define ATTNLADDER_TESTS_KERNEL_NAME_FIXTURES_H

#define LAT64_RAN "void <unnamed>::latency_attention<64>(CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, " \
                  "<unnamed>::LatParams)"
#define LAT64 "_ZN45_GLOBAL__N__af43c7dc_12_attention_cu_93ba954417latency_attentionILi64EEEv14CUtensorMap_stS1_S1_" \
              "NS_9LatParamsE"
#define LAT128 "_ZN45_GLOBAL__N__af43c7dc_12_attention_cu_93ba954417latency_attentionILi128EEEv14CUtensorMap_stS1_" \
               "S1_NS_9LatParamsE"

#endif
