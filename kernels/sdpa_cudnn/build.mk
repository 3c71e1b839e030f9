LDLIBS_sdpa_cudnn := -lcudnn
