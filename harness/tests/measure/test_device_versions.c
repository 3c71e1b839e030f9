/* test_device_versions.c: the evidence names the cuDNN file the baseline loaded, not the
 * soname's link to it. The GPU machines reach their cuDNN through a link
 * (/lib/x86_64-linux-gnu/libcudnn.so.9 -> libcudnn.so.9.14.0) and PyTorch's through another
 * of the same name, so the link's path names neither release. No GPU needed: cuDNN's
 * version query answers without one. */
#include <dlfcn.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "measure/device_info.h"

/* Where this machine's cuDNN is, by the loader's own search; NULL (test skipped) without one. */
static const char *cudnn_file(char *real)
{
    void *h = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
    if (!h) return NULL;
    void *sym = dlsym(h, "cudnnGetVersion");
    Dl_info info;
    const char *found = sym && dladdr(sym, &info) && info.dli_fname && realpath(info.dli_fname, real) ? real : NULL;
    dlclose(h);
    return found;
}

static void cudnn_path_is_the_file(void **st)
{
    (void)st;
    char real[PATH_MAX], dir[] = "/tmp/attn_cudnn_XXXXXX", link[PATH_MAX + 32];
    if (!cudnn_file(real)) skip();
    assert_non_null(mkdtemp(dir));
    snprintf(link, sizeof link, "%s/libcudnn.so.9", dir);
    assert_int_equal(symlink(real, link), 0);
    /* the baseline's load, through the link, as on the GPU machine */
    void *h = dlopen(link, RTLD_NOW | RTLD_GLOBAL);
    assert_non_null(h);
    device_versions v;
    device_versions_read(&v);
    assert_int_equal(v.cudnn, DEVICE_CUDNN_VERSION);
    assert_true(v.cudnn_version >= 90000);
    assert_string_equal(v.cudnn_path, real);
    dlclose(h);
    unlink(link);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cudnn_path_is_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
