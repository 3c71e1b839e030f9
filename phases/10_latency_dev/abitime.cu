// abitime LIB.so B H SQ SKV D CAUSAL [reps]: per-launch time of a phase in a CUDA graph of 20
// launches (median of reps graph replays), outside the harness (no correctness gate).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <string>
#include <cmath>
#include <dlfcn.h>
#include <cuda_fp16.h>
#include "attn_phase.h"
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW); if (!h) { printf("%s\n", dlerror()); return 1; }
  const attn_phase *ph = (const attn_phase *)dlsym(h, "attn_phase_entry");
  attn_shape s = { atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atoi(argv[7]), 0.f };
  s.scale = 1.f / sqrtf((float)s.head_dim);
  int reps = argc > 8 ? atoi(argv[8]) : 200;
  const char *un = ph->unsupported(&s); if (un) { printf("unsupported: %s\n", un); return 1; }
  size_t nq = (size_t)s.batch * s.heads * s.seq_q * s.head_dim, nk = (size_t)s.batch * s.heads * s.seq_kv * s.head_dim;
  std::vector<__half> hq(nq), hk(nk);
  for (size_t i = 0; i < nq; ++i) hq[i] = __float2half((float)((i * 2654435761u) % 2001) / 1000.f - 1.f);
  for (size_t i = 0; i < nk; ++i) hk[i] = __float2half((float)((i * 40503u + 7) % 2001) / 1000.f - 1.f);
  void *q, *k, *v, *o, *ws = nullptr;
  CK(cudaMalloc(&q, nq * 2)); CK(cudaMalloc(&k, nk * 2)); CK(cudaMalloc(&v, nk * 2)); CK(cudaMalloc(&o, nq * 2));
  CK(cudaMemcpy(q, hq.data(), nq * 2, cudaMemcpyHostToDevice)); CK(cudaMemcpy(k, hk.data(), nk * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(v, hk.data(), nk * 2, cudaMemcpyHostToDevice));
  size_t wb = ph->workspace_bytes(&s); if (wb) CK(cudaMalloc(&ws, wb));
  void *st; if (ph->init(&st, &s)) { printf("init failed\n"); return 1; }
  cudaStream_t str; CK(cudaStreamCreateWithFlags(&str, cudaStreamNonBlocking));
  attn_args a = { q, k, v, o, ws, str };
  for (int i = 0; i < 10; ++i) if (ph->run(st, &a)) { printf("run failed: %s\n", ph->error_string(1)); return 1; }
  CK(cudaStreamSynchronize(str));
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(str, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 20; ++i) ph->run(st, &a);
  CK(cudaStreamEndCapture(str, &g)); CK(cudaGraphInstantiate(&ge, g, 0));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int i = 0; i < 20; ++i) CK(cudaGraphLaunch(ge, str));
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(e0, str); CK(cudaGraphLaunch(ge, str)); cudaEventRecord(e1, str); CK(cudaEventSynchronize(e1));
    float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 1000.f / 20);
  }
  std::sort(t.begin(), t.end());
  printf("%-10s %dx%dx%d:%dx%d%s  median %.3f us  p10 %.3f  p90 %.3f\n", argv[1] + std::string(argv[1]).rfind('/') + 1, s.batch, s.heads, s.seq_q, s.seq_kv, s.head_dim,
         s.causal ? " c" : "", t[reps / 2], t[reps / 10], t[reps * 9 / 10]);
  CK(cudaGetLastError());
  typedef int (*dump_fn)(unsigned long long *, int);
  dump_fn dump = (dump_fn)dlsym(h, "lat_trace_dump");
  if (dump) {
    const int NB = 256;
    std::vector<unsigned long long> tr(NB * 4 * 5);
    if (dump(tr.data(), NB * 4 * 5)) { printf("dump failed\n"); return 1; }
    int nb = 0; while (nb < NB && tr[(nb * 4) * 5] != 0) ++nb;
    unsigned long long t0 = ~0ull; for (int b = 0; b < nb; ++b) t0 = std::min(t0, tr[(b * 4) * 5]);
    auto T = [&](int b, int w, int k) { return (double)(long long)(tr[(b * 4 + w) * 5 + k] - t0); };
    std::vector<double> rel0, comp, xfer, recv, endt, sent, waitp;
    int last = 0; double lastend = 0;
    for (int b = 0; b < nb; ++b) {
      int split = b % 2, partner = b ^ 1;
      rel0.push_back(T(b, 0, 0));
      for (int w = 0; w < 4; ++w) {
        comp.push_back(T(b, w, 1) - T(b, w, 0));
        bool owner = (w * 2 / 4) == split;
        if (owner) {
          double pe = std::max(T(partner, w, 2), 0.0);  // the partner warp that sends these rows (same rows)
          waitp.push_back(T(b, w, 3) - T(b, w, 1));
          xfer.push_back(T(b, w, 3) - std::max(T(b, w, 1), pe));
          recv.push_back(T(b, w, 4) - T(b, w, 3));
          endt.push_back(T(b, w, 4));
          if (T(b, w, 4) > lastend) { lastend = T(b, w, 4); last = b * 4 + w; }
        } else sent.push_back(T(b, w, 2) - T(b, w, 1));
      }
    }
    auto st = [](std::vector<double> v) { std::sort(v.begin(), v.end()); char buf[128]; snprintf(buf, sizeof buf, "min %5.0f med %5.0f max %5.0f", v[0], v[v.size() / 2], v.back()); return std::string(buf); };
    printf("  trace (ns, last launch, %d blocks): wait release %s\n", nb, st(rel0).c_str());
    printf("  compute (release->end) %s | send %s\n", st(comp).c_str(), st(sent).c_str());
    printf("  owner wait (own end->partials in) %s | in after max(own end, partner sent) %s\n", st(waitp).c_str(), st(xfer).c_str());
    printf("  receive+store %s | owner end %s\n", st(recv).c_str(), st(endt).c_str());
    int b = last / 4, w = last % 4;
    printf("  last: block %d warp %d: release %.0f compute end %.0f in %.0f end %.0f; partner %d sender end %.0f (its release %.0f, compute end %.0f)\n", b, w, T(b,w,0), T(b,w,1), T(b,w,3), T(b,w,4), b ^ 1, T(b ^ 1, w, 2), T(b ^ 1, w, 0), T(b ^ 1, w, 1));
  }
  return 0;
}
