LDLIBS_02_cublas_hybrid := -lcublas
