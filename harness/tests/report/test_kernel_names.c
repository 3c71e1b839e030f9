/* test_kernel_names.c: a profiled kernel's name (demangled, as ncu prints it) against the
 * names a shared object's resources list (Itanium-mangled, as the loader and ptxas give
 * them; report/kernel_names.h). The names are the committed runs' own, rung by rung:
 * hits, the near misses that must not match (another head dim, another template
 * argument, another namespace), ncu's own spellings (bools as 0/1, a leading namespace
 * left out, an enclosing one garbled), a name that matches no entry or more than one,
 * and malformed or crafted names, none of which may match or read out of bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/kernel_names.h"
#include "kernel_name_fixtures.h"

/* rung 10 includes rungs 06-09 whole, each in a namespace of its own */
#define R07_HOP64 "_ZN6rung0745_GLOBAL__N__af43c7dc_12_attention_cu_93ba954416hopper_attentionILi64EEEv14CUtensorMap_" \
                  "stS2_S2_NS0_6ParamsE"
#define R08_HOP64 "_ZN6rung0845_GLOBAL__N__af43c7dc_12_attention_cu_93ba954416hopper_attentionILi64EEEv14CUtensorMap_" \
                  "stS2_S2_NS0_6ParamsE"
#define R09_HOP128 "_ZN6rung0945_GLOBAL__N__af43c7dc_12_attention_cu_93ba954416hopper_attentionILi128ELi2ELb0E" \
                   "Li176ELi48ELb1EEEv14CUtensorMap_stS2_S2_NS0_6ParamsE"
#define R06_FLASH "_ZN6rung066tiling9flash_fwdILi64ELi32ELi128ELi4ELi2ELi2EEEvNS0_10fwd_paramsE"
/* rung 09's own build */
#define HOP09_64_T "_ZN45_GLOBAL__N__51d5bdbb_12_attention_cu_220b61af16hopper_attentionILi64ELi1ELb0ELi128" \
                   "ELi128ELb1EEEv14CUtensorMap_stS1_S1_NS_6ParamsE"
#define HOP09_64_F "_ZN45_GLOBAL__N__51d5bdbb_12_attention_cu_220b61af16hopper_attentionILi64ELi1ELb0ELi128" \
                   "ELi128ELb0EEEv14CUtensorMap_stS1_S1_NS_6ParamsE"
/* rung 06's own build */
#define FLASH64 "_ZN6tiling9flash_fwdILi64ELi32ELi128ELi4ELi2ELi2EEEvNS_10fwd_paramsE"
#define FLASH64_BIG "_ZN6tiling9flash_fwdILi64ELi128ELi128ELi4ELi2ELi1EEEvNS_10fwd_paramsE"
/* rung 07's own build, and rung 02's one kernel of its own */
#define HOP07_64 "_ZN45_GLOBAL__N__774edd4c_12_attention_cu_220b61af16hopper_attentionILi64EEEv14CUtensorMap_stS1_S1_" \
                 "NS_6ParamsE"
/* rung 12 (build 0513906) carrying rung 10 inside rung 11: rung11::rung10::<unnamed> */
#define R12_LAT64 "_ZN6rung116rung1048_GLOBAL__N__2e102bab_15_rung11_below_cu_e268630117latency_attentionILi64EE" \
                  "Ev14CUtensorMap_stS3_S3_NS1_9LatParamsE"
#define SOFTMAX "_ZN12softmax_rows19softmax_rows_kernelEPKfP6__halfiiiiiiii"

static int match(const char *ran, const char *built)
{
    return kernel_names_match(ran, built);
}

/* The committed runs' kernels, each against its own entry. */
static void real_names_match_their_entries(void **st)
{
    (void)st;
    assert_true(match(LAT64_RAN, LAT64));
    /* rung 09: ncu prints the bool arguments as 0 and 1 */
    assert_true(match("void <unnamed>::hopper_attention<64, 1, 0, 128, 128, 1>(CUtensorMap_st, CUtensorMap_st, "
                      "CUtensorMap_st, <unnamed>::Params)", HOP09_64_T));
    assert_true(match("void <unnamed>::hopper_attention<64, 1, 0, 128, 128, 0>(CUtensorMap_st, CUtensorMap_st, "
                      "CUtensorMap_st, <unnamed>::Params)", HOP09_64_F));
    /* ... and a demangler that spells them out */
    assert_true(match("void <unnamed>::hopper_attention<64, 1, false, 128, 128, true>(CUtensorMap_st, "
                      "CUtensorMap_st, CUtensorMap_st, <unnamed>::Params)", HOP09_64_T));
    assert_true(match("void (anonymous namespace)::hopper_attention<64, 1, false, 128, 128, false>(CUtensorMap_st, "
                      "CUtensorMap_st, CUtensorMap_st, (anonymous namespace)::Params)", HOP09_64_F));
    /* rung 06: ncu leaves the namespace `tiling` out; with it, it matches too */
    assert_true(match("void flash_fwd<64, 32, 128, 4, 2, 2>(fwd_params)", FLASH64));
    assert_true(match("void tiling::flash_fwd<64, 32, 128, 4, 2, 2>(tiling::fwd_params)", FLASH64));
    assert_true(match("void rung06::tiling::flash_fwd<64, 32, 128, 4, 2, 2>(rung06::tiling::fwd_params)", R06_FLASH));
    assert_true(match("void flash_fwd<64, 32, 128, 4, 2, 2>(fwd_params)", R06_FLASH));
    /* rung 10 running rung 09's kernel: ncu prints `rung09::<unnamed>` as `unnamed>` */
    assert_true(match("void unnamed>::hopper_attention<128, 2, 0, 176, 48, 1>(CUtensorMap_st, CUtensorMap_st, "
                      "CUtensorMap_st, unnamed>::Params)", R09_HOP128));
    assert_true(match("void rung09::<unnamed>::hopper_attention<128, 2, 0, 176, 48, 1>(CUtensorMap_st)", R09_HOP128));
    /* one process profiling every rung: ncu prints rung11::rung10::<unnamed> as
     * rung11::<unnamed>, the outermost name and the anonymous one */
    assert_true(match("void rung11::<unnamed>::latency_attention<64>(CUtensorMap_st, CUtensorMap_st, "
                      "CUtensorMap_st, rung11::<unnamed>::LatParams)", R12_LAT64));
    assert_true(match("void rung11::rung10::<unnamed>::latency_attention<64>(CUtensorMap_st)", R12_LAT64));
    assert_false(match("void rung12::<unnamed>::latency_attention<64>(CUtensorMap_st)", R12_LAT64));
    assert_false(match("void rung10::rung11::<unnamed>::latency_attention<64>(CUtensorMap_st)", R12_LAT64));
    assert_false(match("void rung11::latency_attention<64>(CUtensorMap_st)", R12_LAT64));   /* not anonymous */
    /* rung 07 with one template argument; rung 02's kernel, no template */
    assert_true(match("void <unnamed>::hopper_attention<64>(CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, "
                      "<unnamed>::Params)", HOP07_64));
    assert_true(match("softmax_rows::softmax_rows_kernel(const float *, __half *, int, int, int, int, int, int, int, "
                      "int)", SOFTMAX));
    /* the other forms read: no namespace, a negative argument, GCC's anonymous namespace,
     * an extern "C" kernel (no mangling at all) */
    assert_true(match("void f<64>(int)", "_Z1fILi64EEvi"));
    assert_true(match("void f<-1, true>(int)", "_Z1fILin1ELb1EEvi"));
    assert_true(match("void (anonymous namespace)::f<64>(int)", "_ZN12_GLOBAL__N_11fILi64EEEvi"));
    assert_true(match("attn_kernel", "attn_kernel"));
    assert_true(match("void attn_kernel(const __half *)", "_Z11attn_kernelPK6__half"));
}

/* Close names that are other kernels. */
static void near_misses_do_not_match(void **st)
{
    (void)st;
    assert_false(match(LAT64_RAN, LAT128));                                       /* <64> vs <128> */
    assert_false(match("void <unnamed>::latency_attention<128>(CUtensorMap_st)", LAT64));
    assert_false(match("void <unnamed>::latency_attention<6>(CUtensorMap_st)", LAT64));   /* a prefix of 64 */
    assert_false(match("void <unnamed>::latency_attention<640>(CUtensorMap_st)", LAT64));
    assert_false(match("void <unnamed>::latency_attention<064>(CUtensorMap_st)", LAT64)); /* not how 64 is printed */
    assert_false(match("void <unnamed>::latency_attention<-64>(CUtensorMap_st)", LAT64));
    assert_false(match("void <unnamed>::hopper_attention<64>(CUtensorMap_st)", LAT64));  /* another kernel */
    assert_false(match("void <unnamed>::latency_attentio<64>(CUtensorMap_st)", LAT64));  /* a prefix of its name */
    assert_false(match("void <unnamed>::latency_attention2<64>(CUtensorMap_st)", LAT64));
    assert_false(match("void <unnamed>::latency_attention(CUtensorMap_st)", LAT64));     /* no template */
    assert_false(match("void <unnamed>::latency_attention<64, 1>(CUtensorMap_st)", LAT64)); /* one more argument */
    assert_false(match("void <unnamed>::hopper_attention<64>(CUtensorMap_st)", HOP09_64_T));  /* fewer */
    /* the last bool differs */
    assert_false(match("void <unnamed>::hopper_attention<64, 1, 0, 128, 128, 1>(CUtensorMap_st)", HOP09_64_F));
    assert_false(match("void <unnamed>::hopper_attention<64, 1, false, 128, 128, false>(CUtensorMap_st)", HOP09_64_T));
    /* a bool spelled out is a bool, never an int of that value */
    assert_false(match("void f<true>(int)", "_Z1fILi1EEvi"));
    assert_false(match("void f<1>(int)", "_Z1fILb0EEvi"));
    assert_false(match("void f<2>(int)", "_Z1fILb1EEvi"));
    /* rung 06's kernel at another tile */
    assert_false(match("void flash_fwd<64, 32, 128, 4, 2, 2>(fwd_params)", FLASH64_BIG));
    /* namespaces that are named must agree, innermost first */
    assert_false(match("void rung07::<unnamed>::hopper_attention<64>(CUtensorMap_st)", R08_HOP64));
    assert_true(match("void rung07::<unnamed>::hopper_attention<64>(CUtensorMap_st)", R07_HOP64));
    assert_false(match("void other::latency_attention<64>(CUtensorMap_st)", LAT64));      /* named vs anonymous */
    assert_false(match("void <unnamed>::flash_fwd<64, 32, 128, 4, 2, 2>(fwd_params)", FLASH64));  /* anonymous */
    assert_false(match("void tiling::flash_fwd<64, 32, 128, 4, 2, 2>(fwd_params)",
                       "_Z9flash_fwdILi64ELi32ELi128ELi4ELi2ELi2EEvv"));   /* a namespace it has not */
    assert_false(match("void a::tiling::flash_fwd<64, 32, 128, 4, 2, 2>(fwd_params)", FLASH64));  /* more than it has */
    assert_false(match("softmax_kernel(const float *)", SOFTMAX));
    assert_false(match("attn_kernel", "attn_kernel2"));
    assert_false(match("attn_kernel2", "attn_kernel"));
    /* cuBLAS's and cuDNN's kernels are in no phase's build */
    assert_false(match("nvjet_sm90_hsh_64x48_64x15_1x4_h_bz_NNT", SOFTMAX));
    assert_false(match("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_32_64x256x64_4x1x1_cga1x1x1_"
                       "kernel0_0", LAT64));
}

/* Of a build's entries, the one a kernel matches alone; none, or several, is no match. */
static void one_entry_or_none(void **st)
{
    (void)st;
    const char *built[] = { R07_HOP64, R08_HOP64, LAT64, LAT128, R09_HOP128, "_Z1fILx64EEvv", "" };
    size_t n = sizeof built / sizeof built[0];
    kernel_name *names = calloc(n, sizeof *names);
    assert_non_null(names);
    for (size_t i = 0; i < n; i++) kernel_name_from_build(built[i], &names[i]);   /* unread ones stay blank */
    kernel_name ran;
    assert_int_equal(kernel_name_from_profile(LAT64_RAN, &ran), 0);
    assert_int_equal(kernel_name_find(&ran, names, n), 2);
    assert_int_equal(kernel_name_from_profile("void <unnamed>::latency_attention<128>(LatParams)", &ran), 0);
    assert_int_equal(kernel_name_find(&ran, names, n), 3);
    /* rung 10 running rung 07's or 08's kernel, as ncu prints it: both match, so neither */
    assert_int_equal(kernel_name_from_profile("void unnamed>::hopper_attention<64>(CUtensorMap_st, "
                                              "unnamed>::Params)", &ran), 0);
    assert_int_equal(kernel_name_find(&ran, names, n), -1);
    /* with its namespace named, the one */
    assert_int_equal(kernel_name_from_profile("void rung08::<unnamed>::hopper_attention<64>(CUtensorMap_st)", &ran), 0);
    assert_int_equal(kernel_name_find(&ran, names, n), 1);
    assert_int_equal(kernel_name_from_profile("void unnamed>::hopper_attention<128, 2, 0, 176, 48, 1>(Params)",
                                              &ran), 0);
    assert_int_equal(kernel_name_find(&ran, names, n), 4);
    /* a kernel of no entry */
    assert_int_equal(kernel_name_from_profile("nvjet_sm90_hss_128x128_64x6_1x2_h_bz_TNT", &ran), 0);
    assert_int_equal(kernel_name_find(&ran, names, n), -1);
    assert_int_equal(kernel_name_find(&ran, names, 0), -1);
    /* an unread profile name matches nothing, not even an unread entry */
    assert_int_equal(kernel_name_from_profile("void f<0x40>(int)", &ran), -1);
    assert_int_equal(kernel_name_find(&ran, names, n), -1);
    free(names);
}

/* What is not one of the forms above is not read: no match, and nothing read past a
 * name's end (the tests run under ASan too). */
static void malformed_names_never_match(void **st)
{
    (void)st;
    static const char *const ran_bad[] = {
        "", "void", "void ", "<", ">", "<<<<>>>>", "((((", "))))", "void f<64", "void f64>(int)", "void f<64>(",
        "void f<64>)", "void f<64,>(int)", "void f<,64>(int)", "void f<0x40>(int)", "void f<64u>(int)",
        "void f<(int)64>(int)", "void f<T>(int)", "void f<64><1>(int)", "void ::f<64>(int)", "void a::::f<64>(int)",
        "void a b::f<64>(int)", "void f<- 1>(int)",
        "void <unnamed>::<64>(int)", "void f<1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17>(int)",
        "void f<123456789012345678901234567890>(int)", "void f<64>(int) const", "f g<64>(int)",
    };
    static const char *const built_bad[] = {
        "", "_Z", "_ZN", "_ZNE", "_Z0", "_Z01fv", "_ZN1fE", "_Z3fo", "_Z1fI", "_Z1fILi64", "_Z1fILi64E",
        "_Z1fILx64EEv", "_Z1fILb2EEv", "_Z1fILbn1EEv", "_Z1fILiEEv", "_Z1fILinEEv", "_Z1fILi064EEv", "_Z1fIiEv",
        "_ZN1a1fILi64EE1gEv", "_ZN1fILi64EE", "_Z99999999999999999999fv", "_ZN4a b1fEv", "_ZL1fv", "_ZNK1a1fEv",
        "_Z1fILi1ELi2ELi3ELi4ELi5ELi6ELi7ELi8ELi9ELi10ELi11ELi12ELi13ELi14ELi15ELi16ELi17EEvv",
        "_Z1fILi123456789012345678901234567890EEvv", "attn kernel", "f<64>",
    };
    kernel_name k;
    for (size_t i = 0; i < sizeof ran_bad / sizeof ran_bad[0]; i++) {
        if (kernel_name_from_profile(ran_bad[i], &k) == 0) fail_msg("profile name '%s' was read", ran_bad[i]);
        assert_false(match(ran_bad[i], "_Z1fILi64EEvi"));
    }
    for (size_t i = 0; i < sizeof built_bad / sizeof built_bad[0]; i++) {
        if (kernel_name_from_build(built_bad[i], &k) == 0) fail_msg("build name '%s' was read", built_bad[i]);
        assert_false(match("void f<64>(int)", built_bad[i]));
        assert_false(match("f", built_bad[i]));
    }
    assert_false(match(NULL, LAT64));
    assert_false(match(LAT64_RAN, NULL));
    /* sixteen arguments are read, so are sixteen namespaces */
    assert_true(match("void f<1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16>(int)",
                      "_Z1fILi1ELi2ELi3ELi4ELi5ELi6ELi7ELi8ELi9ELi10ELi11ELi12ELi13ELi14ELi15ELi16EEvv"));
    assert_true(match("void a::b::c::d::e::f::g::h::i::j::k::l::m::n::o::p::x<1>(int)",
                      "_ZN1a1b1c1d1e1f1g1h1i1j1k1l1m1n1o1p1xILi1EEEvi"));
    assert_false(match("void a::b::c::d::e::f::g::h::i::j::k::l::m::n::o::p::q::x<1>(int)",
                       "_ZN1a1b1c1d1e1f1g1h1i1j1k1l1m1n1o1p1q1xILi1EEEvi"));
    /* a name longer than any evidence string, and a length prefix past the end */
    size_t n = KERNEL_NAME_MAX + 64;
    char *huge = malloc(n + 1);
    assert_non_null(huge);
    memset(huge, 'a', n);
    huge[n] = '\0';
    assert_int_equal(kernel_name_from_profile(huge, &k), -1);
    assert_false(match(huge, huge));
    memcpy(huge, "_Z2000", 6);
    assert_int_equal(kernel_name_from_build(huge, &k), -1);
    free(huge);
    char cut[] = "_Z5abc";   /* claims five characters, has three */
    assert_int_equal(kernel_name_from_build(cut, &k), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(real_names_match_their_entries),
        cmocka_unit_test(near_misses_do_not_match),
        cmocka_unit_test(one_entry_or_none),
        cmocka_unit_test(malformed_names_never_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
