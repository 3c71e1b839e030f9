/* test_cublas_lib.c: cuBLAS is not loaded by starting the harness (every process that
 * starts it would pay for mapping the library: 0.07 s, 0.2 s under ASan) and is loaded on
 * first use, the major version the harness was compiled against, with every entry point
 * the GPU run calls. No GPU needed: cublasGetProperty answers without one. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "measure/cublas_lib.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static void loaded_on_first_use_only(void **st)
{
    (void)st;
    const char *soname = "libcublas.so." STR(CUBLAS_VER_MAJOR);
    /* not linked: this binary links what the harness links */
    void *before = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    if (before) fail_msg("%s is loaded before any use: is it linked again (HARNESS_LIBS)?", soname);
    char err[512] = "";
    const cublas_lib *lib = cublas_lib_get(err, sizeof err);
    if (!lib) fail_msg("cublas_lib_get: %s", err);
    assert_non_null(lib->create);
    assert_non_null(lib->destroy);
    assert_non_null(lib->set_stream);
    assert_non_null(lib->gemm_ex);
    assert_non_null(lib->get_property);
    int major = -1;
    assert_int_equal(lib->get_property(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
    assert_int_equal(major, CUBLAS_VER_MAJOR);
    assert_non_null(lib->path);
    assert_non_null(strstr(lib->path, "libcublas.so"));
    /* loaded once: the same table again */
    assert_ptr_equal(cublas_lib_get(NULL, 0), lib);
    void *after = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(after);
    dlclose(after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loaded_on_first_use_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
